import CLinux
import Foundation
import Testing
import TestSupport

/// chimed killed with SIGKILL at any moment while clients schedule and cancel: whatever
/// it acknowledged is there afterwards, and whatever it acknowledged cancelling is gone.
@Suite(.timeLimit(.minutes(10)))
struct DaemonKillTests {
    /// A client that schedules and cancels in a loop, writing `add ID` after each
    /// acknowledged schedule, `try ID` before each cancel and `cancel ID` after each
    /// acknowledged one. A call that fails (chimed died under it) acknowledges nothing.
    static let client = """
        i=0; last=
        while [ $i -lt "$2" ]; do
            if out=$("$0" add "S$i" --in 1h 2>/dev/null); then id=${out%% *}; echo "add $id" >>"$1"; last=$id; fi
            if [ $((i % 3)) -eq 2 ] && [ -n "$last" ]; then
                echo "try $last" >>"$1"
                if "$0" cancel "$last" 2>/dev/null; then echo "cancel $last" >>"$1"; fi
                last=
            fi
            i=$((i+1))
        done
        """

    @Test func killedAtRandomMomentsLosesNothingAcknowledged() throws {
        let session = try TestSession()
        let ledger = session.directory.appendingPathComponent("ledger")
        let chime = binDirectory.appendingPathComponent("chime").path
        let stream = try session.spawn(["sh", "-c", Self.client, chime, ledger.path, "300"])
        var generator = SystemRandomNumberGenerator()
        var kills = 0
        while stream.process.isRunning && kills < 8 {
            // Random moments: there is no event to await, the point is to land anywhere.
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.4, using: &generator))
            guard let pid = try? session.daemonPID() else { continue }
            kill(pid, SIGKILL)
            kills += 1
        }
        let finished = try stream.finish(timeout: 240)
        #expect(finished.status == 0, "\(finished)")
        #expect(kills >= 3, "chimed was killed only \(kills) times")

        let lines = try String(contentsOf: ledger, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ") }
        let added = Set(lines.filter { $0.first == "add" }.map { String($0[1]) })
        let tried = Set(lines.filter { $0.first == "try" }.map { String($0[1]) })
        let cancelled = Set(lines.filter { $0.first == "cancel" }.map { String($0[1]) })
        let listed = try session.run(["chime", "list", "--json"])
        let present = Set(try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            .compactMap { $0["id"] as? String })
        #expect(added.count > 100, "\(added.count) acknowledged")
        #expect(added.subtracting(tried).subtracting(present).isEmpty, "lost: \(added.subtracting(tried).subtracting(present))")
        #expect(cancelled.intersection(present).isEmpty, "came back: \(cancelled.intersection(present))")
    }
}
