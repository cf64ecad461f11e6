import ChimeAPI
import DBus
import Glibc
import JSON
import Localization

/// What `chime add` prints: the id first, then when it will fire as chimed understood it.
extension Add {
    /// `17  Wed 24 Dec 18:00 (in 3 days)`, or `{"id": …, "nextFire": …, "nextFireLocal": …}`;
    /// a one-shot due now (`now`, or a past time allowed) may have fired before chimed is
    /// asked: its time is when it fired. The bare id only for a place, which has no time.
    ///
    /// The time comes from chimed's own description of what it stored, so a misread shows
    /// at once; scripts read the id as the first word.
    static func echo(id: String, described entries: [(key: String, value: Value)], json: Bool,
                     now: Int64 = Int64(time(nil))) -> String {
        let fields = HumanText.fields(entries)
        let next = fields[.nextFire]?.integerValue
        if json {
            var object: [(String, JSONText)] = [("id", .string(id))]
            if let next {
                object.append((NotificationKey.nextFire.rawValue, .integer(next)))
                object.append((NotificationKey.nextFireLocal.rawValue, .string(HumanText.isoTime(next))))
            }
            return JSONText.object(object).rendered()
        }
        guard let next = next ?? fields[.lastFired]?.integerValue else { return id }
        return id + "  " + HumanText.date(next, zone: HumanText.zone(fields), distance: true, now: now)
    }
}
