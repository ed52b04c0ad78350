import Foundation
import QuestCore
import QuestStore

/// What `SettingsCatalog` needs of the store to read and change the box's settings (#49: a
/// store protocol per area, so the settings pages' tests can run on a fake): the store itself
/// (`db.settings`) for the CLI, the web app and the family runner. A refused value throws
/// `StoreError.invalid`, as the store does.
public protocol SettingsStore: Sendable {
    /// The settings as stored now.
    func current() throws -> StoredSettings
    /// The routines, whose reminders are settings too (`reminder.<routine>`).
    func routineList() throws -> [Routine]
    /// The settings read, changed and written in one transaction, with `reminders` (by
    /// routine name); `now` is when a streak policy switch counts from (STREAK-3).
    func update(reminders: [(routine: String, reminder: ReminderChoice)], now: Date, _ change: (inout StoredSettings) -> Void) throws
    /// REM-1: false when no routine has that name.
    @discardableResult func setReminder(_ reminder: ReminderChoice, forRoutineNamed name: String) throws -> Bool
}

/// The store's settings area (`db.settings`), with the routines' reminders beside it.
extension SettingsRecords: SettingsStore {
    public func routineList() throws -> [Routine] { try routines.all() }
    @discardableResult
    public func setReminder(_ reminder: ReminderChoice, forRoutineNamed name: String) throws -> Bool {
        try routines.setReminder(reminder, forRoutineNamed: name)
    }
}
