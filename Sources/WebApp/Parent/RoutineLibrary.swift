import Foundation
import QuestCore
import QuestStore

/// What the web app needs of the family's routines (#49: a store protocol per area, as in
/// Hummingbird's examples, so the routine pages' tests can run on a fake): the store itself in
/// the running app. A stale save throws `StoreError.changedElsewhere`, a clashing name
/// `StoreError.invalid`, as the store does.
protocol RoutineLibrary: Sendable {
    func routines() throws -> [Routine]
    func routine(id: UUID) throws -> Routine?
    func routine(named name: String) throws -> Routine?
    func saveRoutine(_ routine: Routine, ifStillAt revision: String?) throws
    @discardableResult func setRoutineActive(_ isActive: Bool, id: UUID) throws -> Bool
    @discardableResult func removeRoutine(id: UUID) throws -> Bool
    /// How many times each routine was played to the end since `since` (PAR-1's aggregate).
    func completedPlayCounts(since: Date) throws -> [UUID: Int]
}

extension QuestDatabase: RoutineLibrary {}
