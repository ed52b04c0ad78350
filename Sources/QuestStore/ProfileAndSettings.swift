import Foundation
import GRDB
import QuestCore

/// Settings the parent and player choose (stored in one row).
public struct StoredSettings: Equatable, Sendable {
    public var game = GameSettings()
    /// "HH:MM", local time (REM-1).
    public var reminderTime = "07:30"
    public var remindersEnabled = true
    public var soundEnabled = true
    public var volumePercent = 80
    /// 1 = Sunday … 7 = Saturday; nil: the locale's.
    public var firstWeekday: Int?
    public var hasPIN = false

    public init() {}
}

extension QuestDatabase {
    /// The one profile row; a fresh box has the zero profile (nothing is written by reading).
    public func profile() throws -> PlayerProfile {
        try pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM playerProfile WHERE id = 1") else { return PlayerProfile() }
            return PlayerProfile(
                totalXP: row["totalXP"], currentStreak: row["currentStreak"],
                lastPlayedDate: (row["lastPlayedDate"] as Double?).map(Date.init(timeIntervalSince1970:)),
                sessionsCompleted: row["sessionsCompleted"])
        }
    }

    public func saveProfile(_ profile: PlayerProfile) throws {
        try pool.write { db in try Self.saveProfile(db, profile) }
    }

    /// An upsert on the single-row key: creating and updating cannot race into two rows.
    static func saveProfile(_ db: Database, _ p: PlayerProfile) throws {
        try db.execute(
            sql: """
                INSERT INTO playerProfile (id, totalXP, currentStreak, lastPlayedDate, sessionsCompleted) VALUES (1, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET totalXP = excluded.totalXP, currentStreak = excluded.currentStreak,
                  lastPlayedDate = excluded.lastPlayedDate, sessionsCompleted = excluded.sessionsCompleted
                """,
            arguments: [p.totalXP, p.currentStreak, p.lastPlayedDate?.timeIntervalSince1970, p.sessionsCompleted])
    }

    public func settings() throws -> StoredSettings {
        try pool.read { db in
            var s = StoredSettings()
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM settings WHERE id = 1") else { return s }
            s.game = GameSettings(
                streakPolicy: GameSettings.StreakPolicy(rawValue: row["streakPolicy"]) ?? .pause, hintsEnabled: row["hintsEnabled"])
            s.reminderTime = row["reminderTime"]
            s.remindersEnabled = row["remindersEnabled"]
            s.soundEnabled = row["soundEnabled"]
            s.volumePercent = row["volumePercent"]
            s.firstWeekday = row["firstWeekday"]
            s.hasPIN = (row["pinHash"] as String?) != nil
            return s
        }
    }

    /// Changes settings in one transaction; values are checked before anything is written.
    public func updateSettings(_ change: (inout StoredSettings) -> Void) throws {
        var s = try settings()
        change(&s)
        guard (0...100).contains(s.volumePercent) else { throw StoreError.invalid("volume: \(s.volumePercent) is not 0–100") }
        if let day = s.firstWeekday, !(1...7).contains(day) {
            throw StoreError.invalid("firstWeekday: \(day) is not a weekday (1 = Sunday … 7 = Saturday)")
        }
        guard Self.isClockTime(s.reminderTime) else { throw StoreError.invalid("reminderTime: \"\(s.reminderTime)\" is not HH:MM") }
        try pool.write { db in
            try Self.ensureSettingsRow(db)
            try db.execute(
                sql: """
                    UPDATE settings SET reminderTime = ?, remindersEnabled = ?, streakPolicy = ?, soundEnabled = ?,
                      volumePercent = ?, hintsEnabled = ?, firstWeekday = ? WHERE id = 1
                    """,
                arguments: [s.reminderTime, s.remindersEnabled, s.game.streakPolicy.rawValue, s.soundEnabled, s.volumePercent,
                            s.game.hintsEnabled, s.firstWeekday])
        }
    }

    static func ensureSettingsRow(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO settings (id) VALUES (1) ON CONFLICT(id) DO NOTHING")
    }

    static func isClockTime(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]) else { return false }
        return (0...23).contains(h) && (0...59).contains(m)
    }

    /// REFL-1 tracking: the last ISO week whose reflection was shown, and the last dismissed.
    public func reflectionTracking() throws -> (lastShownWeek: String?, dismissedWeek: String?) {
        try pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT lastShownWeek, dismissedWeek FROM reflectionTracking WHERE id = 1")
            return (row?[0], row?[1])
        }
    }

    public func markReflectionShown(week: String) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO reflectionTracking (id, lastShownWeek) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET lastShownWeek = excluded.lastShownWeek",
                arguments: [week])
        }
    }
}
