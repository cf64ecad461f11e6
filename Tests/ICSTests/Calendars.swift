import DBus
import Foundation
import ICS
import Testing

/// The sample files of Tests/ics, written in the style of Thunderbird, GNOME Calendar,
/// Google Calendar and by hand; the integration tests import the same files through chimed.
func sample(_ name: String) throws -> String {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("ics")
    return try String(contentsOf: folder.appendingPathComponent(name + ".ics"), encoding: .utf8)
}

/// `lines` as one VCALENDAR, each line ended with `lineEnd`.
func calendar(_ lines: [String], lineEnd: String = "\r\n") -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Tests//EN"] + lines + ["END:VCALENDAR"])
        .map { $0 + lineEnd }.joined()
}

/// A VEVENT with `lines` after its UID and SUMMARY.
func event(_ uid: String, _ summary: String = "Event", _ lines: [String]) -> [String] {
    ["BEGIN:VEVENT", "UID:\(uid)", "SUMMARY:\(summary)"] + lines + ["END:VEVENT"]
}

/// The VEVENTs and VTODOs of `text`, with libical opened first (what chimed does before
/// it reads a text); fails the test when the text is no calendar.
func components(_ text: String, lines: [Int] = []) throws -> [ImportComponent] {
    try #require(CalendarText.loadFailure() == nil, "libical 3 is installed with the build packages")
    return try #require(CalendarText.components(of: text, lines: lines), "no calendar: \(CalendarText.whyNotCalendar(text))")
}

/// The one component of `text`.
func component(_ text: String) throws -> ImportComponent {
    let found = try components(text)
    try #require(found.count == 1, "\(found.map(\.label))")
    return found[0]
}

/// What chimed's NextFireTimestamps answers, as far as these tests need it: every time is
/// to come (at `next`) but those in `past`, and those in `refusing` refused with their
/// sentence; an `rrule` only when `takesRRULE`, else refused as chimed refuses a part of an
/// RRULE it has no support for. It notes what it was asked, the alarm's lead among it.
final class FirstFire {
    var past: Set<String> = []
    var refusing: [String: String] = [:]
    var takesRRULE = true
    var next: Int64 = 1_900_000_000
    private(set) var asked: [(when: String, options: [String: String], lead: Double?)] = []

    func answer(_ when: String, _ options: [(String, String)], _ lead: Double?) throws -> Int64? {
        let options = Dictionary(options, uniquingKeysWith: { _, last in last })
        asked.append((when, options, lead))
        if let reason = refusing[when] { throw ImportRefusal.refused(reason) }
        if !takesRRULE, let rule = options["rrule"] {
            throw ImportRefusal.refused("rrule: '\(rule)' has a part Chime does not take")
        }
        return past.contains(when) ? nil : next
    }
}

/// The Schedule requests a component asks for, each as a dictionary of its keys; throws the
/// component's refusal.
func requests(_ component: ImportComponent, _ firstFire: FirstFire = FirstFire()) throws -> [[String: Value]] {
    try component.plan.get().requests(firstFire: firstFire.answer).map { request, _, _ in
        Dictionary(request, uniquingKeysWith: { first, _ in first })
    }
}

/// `requests` as one word and its reason: "scheduled", "refused: why" or "skipped: why".
func outcome(_ component: ImportComponent, _ firstFire: FirstFire = FirstFire()) -> String {
    do {
        _ = try requests(component, firstFire)
        return "scheduled"
    } catch let refusal as ImportRefusal {
        switch refusal {
        case .refused(let reason): return "refused: " + reason
        case .skipped(let reason): return "skipped: " + reason
        }
    } catch {
        return "error: \(error)"
    }
}

/// The `when` of each request, in order.
func whens(_ component: ImportComponent, _ firstFire: FirstFire = FirstFire()) throws -> [String] {
    try requests(component, firstFire).compactMap { $0["when"]?.stringValue }
}
