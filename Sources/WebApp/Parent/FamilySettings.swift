import Foundation
import QuestCore
import QuestReports
import QuestStore

/// What the web app needs of the family's settings (#49: a store protocol per area): the
/// catalog's reads and changes (`SettingsStore`), the player's own switches and the streak a
/// policy switch would act on. The store itself in the running app, a fake in the tests.
protocol FamilySettings: SettingsStore {
    /// Her switch changed in the same SQL statement that checks a parent's lock: false when
    /// it is locked.
    func setPlayerSwitch(_ playerSwitch: PlayerSwitch, on: Bool) throws -> Bool
    /// The player's streak today (STREAK-3: the settings page says what a switch keeps).
    func streakToday(calendar: Calendar, now: Date) throws -> Int
}

/// The running app's: the store's settings area (`db.settings`), and the plays a streak is
/// read from.
struct StoreFamilySettings: FamilySettings {
    let database: QuestDatabase

    func current() throws -> StoredSettings { try database.settings.current() }
    func routineList() throws -> [Routine] { try database.settings.routineList() }
    func update(reminders: [(routine: String, reminder: ReminderChoice)], now: Date, _ change: (inout StoredSettings) -> Void) throws {
        try database.settings.update(reminders: reminders, now: now, change)
    }
    @discardableResult
    func setReminder(_ reminder: ReminderChoice, forRoutineNamed name: String) throws -> Bool {
        try database.settings.setReminder(reminder, forRoutineNamed: name)
    }
    func setPlayerSwitch(_ playerSwitch: PlayerSwitch, on: Bool) throws -> Bool {
        try database.settings.setPlayerSwitch(playerSwitch, on: on)
    }
    func streakToday(calendar: Calendar, now: Date) throws -> Int {
        let world = try database.loadWorld(calendar: calendar, bootID: "web", taskMemory: false)
        return PlayerStanding.of(world, rules: .standard, today: now).streak
    }
}
