import Foundation
import Logging
import QuestCore
import QuestStore
import SystemClock

/// What the web app needs of the parent's PIN (PAR-2's reset waits 24 hours): the store itself
/// in the running app, a fake in the tests. Whether there is a PIN is a setting (`hasPIN`).
protocol ParentPINStore: Sendable {
    func setPIN(_ pin: String, at now: Date) throws
    /// PAR-2: a new PIN asked for from `from` (a client's name), taking effect after the wait.
    func askPINReset(_ pin: String, from: String, clock: PINResetClock) throws
    func pinReset() throws -> PINReset?
    /// The reset waiting applied when its wait is over; the reset as it stands then.
    func settlePINReset(clock: PINResetClock) throws -> PINReset?
    /// False when no reset was waiting.
    func cancelPINReset(at now: Date) throws -> Bool
    func markPINResetShown(at now: Date) throws
}

extension ParentPINRecords: ParentPINStore {}

/// PAR-2's reset as the parent's pages and the first-run page settle it: the store's PIN, the
/// signed-in parents its change signs out, and the clocks its 24 hours are judged on.
struct PINResets: Sendable {
    let pins: any ParentPINStore
    let parents: ParentSessions
    let clock: any SystemClock
    let logger: Logger

    /// The clocks a PIN reset's 24 hours are judged on.
    func pinResetClock() -> PINResetClock {
        PINResetClock(monotonicNanos: clock.monotonicNanos(), bootID: clock.bootID, wall: clock.wallNow(), wallTrusted: clock.isWallClockTrusted())
    }

    /// A waiting PIN reset whose 24 hours are over replaces the PIN now, and every session of
    /// the old PIN ends. The last reset, as it is after that (nil: none).
    @discardableResult
    func settlePINReset() throws -> PINReset? {
        let last = try pins.pinReset()
        guard let reset = last, reset.state == .waiting else { return last }
        let now = try pins.settlePINReset(clock: pinResetClock())
        if now?.state == .applied {
            parents.closeAll()
            logger.notice("parent PIN replaced: a reset's 24 hours are over", metadata: ["from": "\(reset.from)"])
        }
        return now
    }
}
