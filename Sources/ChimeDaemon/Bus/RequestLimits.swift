import ChimeAPI
import ChimeCore
import DBus

/// The most chimed accepts in one request: part of the D-Bus contract (docs/dbus.md, "Limits"),
/// whose numbers ``ChimeAPI/Limits`` holds.
///
/// 100,000 hints in one call once froze the loop for 13 s and took 452 MB, and a stored
/// repeating one froze it again at every firing. The bus-level figures bound what any
/// message makes chimed read (``bus``, checked while the message is read); the counts
/// bound what one notification may carry (checked by ``AlertDecoding``). Each is far
/// above what an honest caller or notification server sends: a server shows a handful
/// of buttons, userInfo is a few keys of app data, and the largest message chimed ever
/// receives from a server or the bus (capabilities, `NameOwnerChanged`) is a few
/// hundred bytes.
enum RequestLimits {
    /// Buttons one notification may have besides `default`.
    static let actions = Limits.actions
    /// Hints one notification may carry.
    static let hints = Limits.hints
    /// userInfo entries one notification may carry.
    static let userInfo = Limits.userInfo
    /// The bytes of a title (a summary line; servers show one or two lines of it).
    static let titleBytes = Limits.titleBytes

    /// A field whose entries are counted.
    enum Counted: String {
        case actions, hints, userInfo

        var limit: Int {
            switch self {
            case .actions: RequestLimits.actions
            case .hints: RequestLimits.hints
            case .userInfo: RequestLimits.userInfo
            }
        }

        /// Refuses `count` entries when that is over the limit, naming the field and the limit.
        func check(_ count: Int) throws(FieldError) {
            let noun = switch self {
            case .actions: "buttons"
            case .hints: "hints"
            case .userInfo: "entries"
            }
            guard count <= limit else { throw FieldError(rawValue, "has more than \(limit) \(noun), the most one notification may have.") }
        }
    }

    /// What chimed reads of any one message from the bus.
    static let bus = ReadLimits(
        // A request at every count above, with a 16 KiB body and 2 KiB in each userInfo
        // value, is about 160 KiB. Bulk data (an image, a file) has no place in a request.
        bytes: Limits.messageBytes,
        // At every limit, a request holds under 1,000 values (a userInfo entry is four:
        // entry, key, variant, value).
        values: Limits.values,
        // a{sv} → entry → variant → a{sv} → entry → variant → value is 6 deep.
        depth: Limits.depth,
        // A body of a few KiB, with room to spare.
        stringBytes: Limits.stringBytes
    )
}
