import ChimeAPI
import ChimeCore
import DBus
import Logging

/// The signals of ``ChimeAPI/Scheduler1``, typed: what a listener hears of
/// firings, presses, closings and completions.
struct ServiceSignals {
    let connection: Connection
    let logger: Logger

    /// A scheduled notification was shown, `lateBy` seconds after its due time.
    func fired(_ id: String, _ description: [(String, Value)], lateBy: Double) {
        emit(Scheduler1.fired, [.string(id), .variantDictionary(description + [(NotificationKey.lateBy.rawValue, .double(lateBy))])])
    }

    /// Button `key` was pressed on `id`.
    func actionInvoked(_ id: String, key: String, userInfo: [String: UserInfoValue]) {
        emit(Scheduler1.actionInvoked, [.string(id), .string(key), NotificationEncoding.userInfo(userInfo)])
    }

    /// `id` left the screen, for `reason` as the notification specification numbers it.
    func closed(_ id: String, reason: UInt32) {
        emit(Scheduler1.closed, [.string(id), .uint32(reason)])
    }

    /// Complete ended `id` and its lineage.
    func completed(_ id: String) {
        emit(Scheduler1.completed, [.string(id)])
    }

    private func emit(_ signal: SignalDeclaration, _ arguments: [Value]) {
        do {
            try signal.emit(on: connection, arguments)
        } catch {
            logger.error("Cannot emit \(signal.name): \(error)")
        }
    }
}
