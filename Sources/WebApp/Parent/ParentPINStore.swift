import Foundation
import QuestCore
import QuestStore

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

extension QuestDatabase: ParentPINStore {}
