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

extension QuestDatabase: FamilySettings {
    func streakToday(calendar: Calendar, now: Date) throws -> Int {
        let world = try loadWorld(calendar: calendar, bootID: "web", taskMemory: false)
        return PlayerStanding.of(world, rules: .standard, today: now).streak
    }
}
