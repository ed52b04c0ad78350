import Foundation
import QuestCore
import QuestStore

/// What the web app needs of the family's routines (#49: a store protocol per area, as in
/// Hummingbird's examples, so the routine pages' tests can run on a fake): the store itself in
/// the running app. A stale save throws `StoreError.changedElsewhere`, a clashing name
/// `StoreError.invalid`, as the store does.
protocol RoutineLibrary: Sendable {
    func all() throws -> [Routine]
    func withID(_ id: UUID) throws -> Routine?
    func named(_ name: String) throws -> Routine?
    func save(_ routine: Routine, ifStillAt revision: String?) throws
    @discardableResult func setActive(_ isActive: Bool, id: UUID) throws -> Bool
    @discardableResult func remove(id: UUID) throws -> Bool
    /// How many times each routine was played to the end since `since` (PAR-1's aggregate).
    func completedPlayCounts(since: Date) throws -> [UUID: Int]
}

extension RoutineStore: RoutineLibrary {}
