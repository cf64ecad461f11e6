import Foundation
import Testing
import TestSupport

/// The session bus dies under chimed: it must leave promptly with status 69 (the user
/// unit restarts it on that), let go of its store first, and the next chimed, on a new
/// bus with the same data directory, must have every schedule that was acknowledged.
@Suite(.timeLimit(.minutes(10)))
struct BusFaultTests {
    /// Generous: the suite shares a slow machine. Measured, chimed leaves in tens of
    /// milliseconds (see the soak below).
    static let exitLimit: TimeInterval = 10

    func check(_ outcome: BusLoss.Outcome, loggedTheClosedBus: Bool = true) {
        #expect(outcome.status == 69, "\(outcome)\n\(outcome.log)")
        #expect(outcome.secondsToExit < Self.exitLimit, "\(outcome)")
        #expect(outcome.lockFree, "\(outcome)")
        #expect(outcome.missing.isEmpty, "\(outcome)")
        if loggedTheClosedBus { #expect(outcome.log.contains("The session bus closed"), "\(outcome.log)") }
    }

    @Test func busKilledWhileIdle() throws {
        let outcome = try BusLoss.round(.idle, exitLimit: Self.exitLimit)
        check(outcome)
        #expect(outcome.acknowledged == 1)
    }

    @Test func busKilledDuringAStreamOfSchedules() throws {
        let outcome = try BusLoss.round(.scheduling, exitLimit: Self.exitLimit)
        check(outcome)
        #expect(outcome.acknowledged > 12, "\(outcome)")
    }

    @Test func busKilledWhileANotifyIsInFlight() throws {
        check(try BusLoss.round(.notifyInFlight, exitLimit: Self.exitLimit))
    }

    @Test func busKilledDuringStartUp() throws {
        check(try BusLoss.round(.startingUp, exitLimit: Self.exitLimit), loggedTheClosedBus: false)
    }

    /// For the soak (`CHIME_SOAK_BUS_ROUNDS=200 swift test --filter busLossSoak`): many
    /// rounds at every moment; prints the figures.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CHIME_SOAK_BUS_ROUNDS"] != nil),
          .timeLimit(.minutes(120)))
    func busLossSoak() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["CHIME_SOAK_BUS_ROUNDS"] ?? "") ?? 100
        var outcomes: [BusLoss.Outcome] = []
        for index in 0..<rounds {
            let moment = BusLoss.Moment.allCases[index % BusLoss.Moment.allCases.count]
            let outcome = try BusLoss.round(moment, exitLimit: 30)
            if outcome.status != 69 || !outcome.lockFree || !outcome.missing.isEmpty { print("bus loss: \(outcome)\n\(outcome.log)") }
            outcomes.append(outcome)
        }
        for moment in BusLoss.Moment.allCases {
            let some = outcomes.filter { $0.moment == moment }
            let times = some.map(\.secondsToExit).sorted()
            guard !times.isEmpty else { continue }
            let percentile = { (p: Double) in times[min(times.count - 1, Int(Double(times.count) * p))] }
            let statuses = Dictionary(grouping: some, by: { $0.status.map(String.init) ?? "none" }).mapValues(\.count)
            print(String(format: "bus loss, %@: %d rounds; exit after p50 %.3f s, p99 %.3f s, max %.3f s; statuses %@; "
                         + "lock held after exit %d; acknowledged %d, missing %d",
                         moment.rawValue, some.count, percentile(0.5), percentile(0.99), times.last ?? 0, "\(statuses)",
                         some.filter { !$0.lockFree }.count, some.map(\.acknowledged).reduce(0, +),
                         some.map(\.missing.count).reduce(0, +)))
        }
        for outcome in outcomes {
            // Killed before it had connected, chimed says so in other words.
            check(outcome, loggedTheClosedBus: outcome.moment != .startingUp)
        }
    }
}
