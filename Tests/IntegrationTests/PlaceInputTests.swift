import Foundation
import TestSupport
import Testing

/// Bad places: each refused with one sentence naming what is wrong, and nothing stored.
@Suite(.timeLimit(.minutes(5)))
struct PlaceInputTests {
    static let target = ["--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                         "--method", "io.github.chime.Scheduler1.Schedule"]

    @Test(arguments: [
        (["--near", "91,13.4"], "--near '91,13.4': 91.0 is outside -90 to 90 degrees."),
        (["--near=-90.5,13.4"], "--near '-90.5,13.4'"),
        (["--near", "52.5,180.5"], "--near '52.5,180.5': 180.5 is outside -180 to 180 degrees."),
        (["--near", "52.5,13.4", "--radius", "0m"], "--radius '0m' is not a distance such as 150m or 2km."),
        (["--near", "52.5,13.4", "--radius=-5m"], "--radius '-5m' is not a distance"),
        (["--near", "52.5,13.4", "--radius", "101km"], "--radius '101km' is more than 100km, the largest circle Chime watches."),
        (["--near", "52.5,13.4", "--at", "15:00"], "give a time (--at, --in) or a place (--near, --on-network), not both"),
        (["--on-network", "Office", "--in", "5m"], "not both"),
        (["--on-network", ""], "--on-network needs a name"),
        (["--near", "52.5"], "is not LAT,LON"),
        (["--near", "52.5,13.4", "--radius", "far"], "is not a distance"),
        (["--near", "52.5,13.4", "--on-network", "Office"], "give one place"),
        (["--in", "5m", "--every-time"], "--every-time needs a place"),
        (["--near", "52.5,13.4", "--repeat", "day"], "--repeat and --near cannot both be given"),
    ])
    func badPlacesOnTheCommandLine(_ arguments: [String], _ sentence: String) throws {
        let session = try TestSession(capabilities: nil)
        let result = try session.run(["chime", "add", "Buy milk"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(sentence), "\(result)")
        #expect(result.stderr.split(separator: "\n").filter { !$0.hasPrefix("Usage") && !$0.hasPrefix("  See") && !$0.isEmpty }.count == 1,
                "\(result)")
    }

    @Test func badPlacesOverTheBusLeaveTheStoreAsItWas() throws {
        let session = try TestSession(capabilities: nil)
        let kept = try session.add("Kept", "--in", "1h")
        let cases = [
            ("{'title': <'T'>, 'when': <'in 1h'>, 'region': <{'latitude': <52.5>, 'longitude': <13.4>, 'radius': <100.0>}>}",
             "when: and region cannot both be given: a notification fires at a date or at a place, never both."),
            ("{'title': <'T'>, 'region': <{'latitude': <52.5>, 'longitude': <13.4>}>}", "region.radius: is required."),
            ("{'title': <'T'>, 'region': <{'latitude': <52.5>, 'longitude': <13.4>, 'radius': <5.0>, 'colour': <'red'>}>}",
             "region.colour: is not a key of region"),
            ("{'title': <'T'>, 'region': <{'latitude': <'north'>, 'longitude': <13.4>, 'radius': <5.0>}>}",
             "region.latitude: must be a number"),
            ("{'title': <'T'>, 'network': <{'name': <''>}>}", "network.name: must not be empty"),
            ("{'title': <'T'>, 'network': <{'name': <'A'>}>, 'regionTriggersOnce': <'yes'>}", "regionTriggersOnce: must be a boolean"),
            ("{'title': <'T'>, 'regionTriggersOnce': <false>}", "regionTriggersOnce: applies to a region or a network"),
            ("{'title': <'T'>, 'network': <{'name': <'A'>}>, 'region': <{'latitude': <1.0>, 'longitude': <1.0>, 'radius': <1.0>}>}",
             "region: and network cannot both be given"),
        ]
        for (notification, sentence) in cases {
            let result = try session.run(["gdbus", "call"] + Self.target + [notification])
            #expect(result.status != 0, "\(notification)")
            #expect(result.stderr.contains("InvalidArgs") && result.stderr.contains(sentence), "\(result)")
        }
        let simple = try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime", "/io/github/chime/Chime",
                                      "io.github.chime.Scheduler1.ScheduleSimple", "string:", "string:T", "string:",
                                      "dict:string:string:region,52.5;13.4;5m"])
        #expect(simple.stderr.contains("region: '52.5;13.4;5m' is not LAT,LON,RADIUS"), "\(simple)")
        let list = try session.run(["chime", "list", "--json"])
        #expect(list.stdout.contains(kept) && list.stdout.split(separator: "\"id\"").count == 2, "\(list)")
    }

    @Test func theStringFormSchedulesARegion() throws {
        let session = try TestSession(capabilities: nil)
        let simple = try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime", "/io/github/chime/Chime",
                                      "io.github.chime.Scheduler1.ScheduleSimple", "string:", "string:T", "string:",
                                      "dict:string:string:region,52.5;13.4;1.5km"])
        #expect(simple.status != 0)
        // dbus-send splits a{ss} at commas: the string form is for gdbus and programs, and
        // chime add builds it from --near and --radius.
        let gdbus = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                     "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.ScheduleSimple", "", "T", "",
                                     "{'region': '52.5,13.4,1.5km', 'region.identifier': 'shop', 'region.notifyOnExit': 'true'}"])
        #expect(gdbus.status == 0, "\(gdbus)")
        let id = try #require(gdbus.stdout.split(separator: "'").dropFirst().first.map(String.init))
        let shown = try session.run(["chime", "show", id, "--json"])
        #expect(shown.stdout.contains("\"radius\": 1500"), "\(shown)")
        #expect(shown.stdout.contains("\"notifyOnEntry\": false") && shown.stdout.contains("\"notifyOnExit\": true"), "\(shown)")
        #expect(shown.stdout.contains("\"regionTriggersOnce\": true"), "\(shown)")
    }
}
