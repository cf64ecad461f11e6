import CCanberra
import ChimeCore
import Logging

/// Plays a notification's sound when the server cannot (no `sound` capability: dunst,
/// KDE Plasma, mako), through libcanberra and the freedesktop sound theme.
///
/// libcanberra's play call is variadic, which Swift cannot call; the proplist form is
/// used instead. Playback is asynchronous inside libcanberra: nothing here waits.
final class SoundPlayer {
    private var context: OpaquePointer?
    private let logger: Logger
    /// How many sounds were handed to libcanberra, for tests and logs.
    private(set) var played = 0

    init(logger: Logger) {
        self.logger = logger
        var created: OpaquePointer?
        let status = ca_context_create(&created)
        guard status == 0, let created else {
            logger.warning("libcanberra is unavailable (\(Self.describe(status))); sounds the server cannot play stay silent.")
            return
        }
        context = created
        if let list = Self.properties([(CA_PROP_APPLICATION_NAME, "Chime"), (CA_PROP_APPLICATION_ID, "io.github.chime.Chime")]) {
            _ = ca_context_change_props_full(created, list)
            ca_proplist_destroy(list)
        }
    }

    deinit {
        if let context { ca_context_destroy(context) }
    }

    /// Whether libcanberra could be set up: without it, local sounds stay silent.
    var isAvailable: Bool { context != nil }

    /// Plays `sound` unless it is silence or the server's own default.
    func play(_ sound: Sound, for id: String) {
        guard let context else { return }
        let properties: [(String, String)]
        switch sound {
        case .serverDefault, .none: return
        case .themed(let name): properties = [(CA_PROP_EVENT_ID, name)]
        case .file(let path): properties = [(CA_PROP_MEDIA_FILENAME, path)]
        }
        let list = Self.properties(properties + [(CA_PROP_EVENT_DESCRIPTION, "Chime notification \(id)")])
        defer { if let list { ca_proplist_destroy(list) } }
        let status = ca_context_play_full(context, 0, list, nil, nil)
        if status == 0 {
            played += 1
            logger.info("Played the sound of \(id) through libcanberra.")
        } else {
            logger.warning("libcanberra could not play the sound of \(id): \(Self.describe(status)).")
        }
    }

    private static func properties(_ pairs: [(String, String)]) -> OpaquePointer? {
        var list: OpaquePointer?
        guard ca_proplist_create(&list) == 0, let list else { return nil }
        for (key, value) in pairs { _ = ca_proplist_sets(list, key, value) }
        return list
    }

    private static func describe(_ status: Int32) -> String {
        ca_strerror(status).map { String(cString: $0) } ?? "error \(status)"
    }
}
