import Foundation
import GRDB
import QuestCore

/// Settings the parent and player choose (stored in one row).
public struct StoredSettings: Equatable, Sendable {
    /// What the game reads: streak policy, hints, read-back, the stop guard, reminders.
    /// GAME-9's intro is on in a store (off in a world built by hand).
    public var game: GameSettings = { var g = GameSettings(); g.firstQuestIntro = true; return g }()
    /// The sounds' switch, kept in `game` (the box's idle gesture reads and flips it).
    public var soundEnabled: Bool {
        get { !game.soundMuted }
        set { game.soundMuted = !newValue }
    }
    public var volumePercent = 80
    /// 1 = Sunday … 7 = Saturday; nil: the locale's.
    public var firstWeekday: Int?
    public var hasPIN = false
    /// The names the web app answers to besides the box's own (`web.hosts`, #31).
    public var webHosts: [String] = []
    /// The board profile chosen from the web's first run or `questbox settings set board`
    /// (#32); nil: none yet. QUESTBOX_BOARD (the service's defaults file) wins where set.
    public var boardName: String?
    /// #33 (`web.player-pages`): the player's pages answer only the family's paired browsers.
    /// PRIV-1 (#48): the default (a fresh store is made so by its migration; a box in use
    /// keeps what it had).
    public var playerPagesPaired = true
    /// #34: the broker (Home Assistant) and the pushes to phones.
    public var link = HomeLinkSettings()
    /// #35: the box's voice.
    public var voice = VoiceChoice()

    public init() {}

    public static let maximumBoardNameBytes = 64

    /// A board profile's name as the store keeps it: 1–64 of a–z, 0–9, `-`, `_` (a profile
    /// file's name without `.yaml`; never a path).
    public static func isBoardName(_ name: String) -> Bool {
        (1...maximumBoardNameBytes).contains(name.utf8.count) && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// The family's calendar: `base` (the box's time zone and locale) with the week starting
    /// on the stored first weekday. Every reader applies it here, so weeks agree everywhere.
    public func calendar(from base: Calendar) -> Calendar {
        var calendar = base
        if let firstWeekday { calendar.firstWeekday = firstWeekday }
        return calendar
    }
}

extension QuestDatabase {
    /// The family's settings, over the store's one writer.
    public var settings: SettingsRecords { SettingsRecords(pool: pool) }
}

/// The settings the parent and the player choose, one row changed in one transaction each
/// time: an area of the store (#49) over the one writer.
public struct SettingsRecords: Sendable {
    let pool: any DatabaseWriter

    /// The routines, whose reminders are settings too (`reminder.<routine>`).
    public var routines: RoutineStore { RoutineStore(pool: pool) }

    /// The settings as stored now (the defaults where a row breaks a rule).
    public func current() throws -> StoredSettings {
        try pool.read { db in try Self.readSettings(db) }
    }

    static func readSettings(_ db: Database) throws -> StoredSettings {
        var s = StoredSettings()
        // A settings row that breaks a rule reads as the defaults (doctor names it).
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM settings WHERE id = 1 AND \(RowRules.valid("settings"))") else { return s }
        let intro = s.game.firstQuestIntro
        s.game = GameSettings(
            streakPolicy: GameSettings.StreakPolicy(rawValue: row["streakPolicy"]) ?? .pause, hintsEnabled: row["hintsEnabled"],
            estimateReadBack: row["estimateReadBack"], stopGuardSeconds: row["stopGuardSeconds"],
            remindersEnabled: row["remindersEnabled"], reminderTime: ClockTime(row["reminderTime"] as String))
        s.soundEnabled = row["soundEnabled"]
        s.volumePercent = row["volumePercent"]
        s.firstWeekday = row["firstWeekday"]
        s.hasPIN = (row["pinHash"] as String?) != nil
        if try db.tableExists("streakPolicyChange") {
            s.game.streakPolicyChanges = try Row.fetchAll(db, sql: """
                SELECT changedAt, fromPolicy, toPolicy FROM streakPolicyChange WHERE \(RowRules.valid("streakPolicyChange")) ORDER BY changedAt, id
                """).compactMap { row in
                guard let from = GameSettings.StreakPolicy(rawValue: row[1]), let to = GameSettings.StreakPolicy(rawValue: row[2]) else { return nil }
                return StreakPolicyChange(at: Date(timeIntervalSince1970: row[0]), from: from, to: to)
            }
        }
        // Names that break the rule are left out (a hand-edited restore): never a way in.
        s.webHosts = ((row["webHosts"] as String?) ?? "").split(separator: " ").map(String.init).filter(WebHosts.isHostName)
        if row.hasColumn("boardName") { s.boardName = row["boardName"] }
        if row.hasColumn("playerPagesPaired") { s.playerPagesPaired = row["playerPagesPaired"] }
        s.game.firstQuestIntro = row.hasColumn("firstQuestIntro") ? row["firstQuestIntro"] : intro
        if row.hasColumn("mqttURL") {
            s.link = HomeLinkSettings(
                mqttURL: row["mqttURL"], mqttUsername: row["mqttUsername"], mqttPassword: row["mqttPassword"], mqttTopic: row["mqttTopic"],
                mqttDiscovery: row["mqttDiscovery"], notifyURL: row["notifyURL"], notifyParentURL: row["notifyParentURL"],
                notifyOn: HomeLinkSettings.words(row["notifyOn"]))
        }
        if row.hasColumn("mqttProtocol") { s.link.mqttProtocol = row["mqttProtocol"] }
        if row.hasColumn("voiceMode") {
            s.voice = VoiceChoice(
                mode: VoiceChoice.Mode(rawValue: row["voiceMode"]) ?? .auto, language: row["voiceLanguage"],
                rate: row["voiceRate"], volumePercent: row["voiceVolume"])
        }
        if row.hasColumn("lockSoundMute") {
            // #48: `lockReminders` stays in the table, never read (her reminders are hers).
            let locks: [(PlayerSwitch, String)] = [(.mute, "lockSoundMute"), (.hints, "lockHints")]
            s.game.lockedSwitches = Set(locks.filter { (row[$0.1] as Bool?) == true }.map(\.0))
        }
        return s
    }

    /// Changes settings in one transaction: the row is read, changed and written inside it,
    /// so two programs changing different settings at once both keep their change (nothing
    /// is written back from an earlier read). Values are checked before anything is written.
    /// `reminders` (REM-1: a routine's reminder, by the routine's name) change in the same
    /// transaction, so the box never reads half of a parent's settings.
    /// STREAK-3: a switch of the streak policy is stored with `now` (a calendar fact: the day
    /// from which the new policy judges).
    public func update(
        reminders: [(routine: String, reminder: ReminderChoice)] = [], now: Date = Date(), _ change: (inout StoredSettings) -> Void
    ) throws {
        try pool.write { db in
            for (name, reminder) in reminders {
                guard try RoutineStore.writeReminder(db, reminder, forRoutineNamed: name) else {
                    throw StoreError.invalid("reminder.\(DisplayText.escaped(name)): no routine has that name")
                }
            }
            var s = try Self.readSettings(db)
            let policyBefore = s.game.streakPolicy
            change(&s)
            guard (0...100).contains(s.volumePercent) else { throw StoreError.invalid("volume: \(s.volumePercent) is not 0–100") }
            if let day = s.firstWeekday, !WeekdayNumber.all.contains(day) {
                throw StoreError.invalid("firstWeekday: \(day) is not a weekday (1 = Sunday … 7 = Saturday)")
            }
            if let guardSeconds = s.game.stopGuardSeconds, !GameSettings.stopGuardRange.contains(guardSeconds) {
                throw StoreError.invalid("stopGuardSeconds: \(guardSeconds) is not \(GameSettings.stopGuardRange.lowerBound)–\(GameSettings.stopGuardRange.upperBound)")
            }
            if let problem = WebHosts.problem(s.webHosts) { throw StoreError.invalid("webHosts: \(problem)") }
            if let problem = s.link.problem { throw StoreError.invalid(problem) }
            if let language = s.voice.language, !VoiceChoice.isVoiceName(language) {
                throw StoreError.invalid("voice.language: \"\(DisplayText.escaped(language))\" is not an eSpeak NG voice name")
            }
            if !VoiceChoice.rateRange.contains(s.voice.rate) { throw StoreError.invalid("voice.rate: \(s.voice.rate) is not \(VoiceChoice.rateRange.lowerBound)–\(VoiceChoice.rateRange.upperBound) words per minute") }
            if !VoiceChoice.volumeRange.contains(s.voice.volumePercent) { throw StoreError.invalid("voice.volume: \(s.voice.volumePercent) is not \(VoiceChoice.volumeRange.lowerBound)–\(VoiceChoice.volumeRange.upperBound)") }
            if let board = s.boardName, !StoredSettings.isBoardName(board) {
                throw StoreError.invalid("board: \"\(DisplayText.escaped(board))\" is not a board profile's name")
            }
            try Self.ensureSettingsRow(db)
            if s.game.streakPolicy != policyBefore {
                guard RowRules.isStorableWallTime(now) else { throw StoreError.invalid("streak.policy: the time of the switch \(now.timeIntervalSince1970) is outside the years the store keeps") }
                try db.execute(
                    sql: "INSERT INTO streakPolicyChange (changedAt, fromPolicy, toPolicy) VALUES (?, ?, ?)",
                    arguments: [now.timeIntervalSince1970, policyBefore.rawValue, s.game.streakPolicy.rawValue])
            }
            try db.execute(
                sql: """
                    UPDATE settings SET reminderTime = ?, remindersEnabled = ?, streakPolicy = ?, soundEnabled = ?,
                      volumePercent = ?, hintsEnabled = ?, firstWeekday = ?, estimateReadBack = ?, stopGuardSeconds = ?,
                      webHosts = ?, boardName = ?, lockSoundMute = ?, lockHints = ?, lockReminders = ?, playerPagesPaired = ?,
                      mqttURL = ?, mqttUsername = ?, mqttPassword = ?, mqttTopic = ?, mqttDiscovery = ?, notifyURL = ?, notifyParentURL = ?,
                      notifyOn = ?, mqttProtocol = ?, voiceMode = ?, voiceLanguage = ?, voiceRate = ?, voiceVolume = ?, firstQuestIntro = ? WHERE id = 1
                    """,
                arguments: [s.game.reminderTime.description, s.game.remindersEnabled, s.game.streakPolicy.rawValue, s.soundEnabled,
                            s.volumePercent, s.game.hintsEnabled, s.firstWeekday, s.game.estimateReadBack, s.game.stopGuardSeconds,
                            s.webHosts.isEmpty ? nil : s.webHosts.joined(separator: " "), s.boardName,
                            s.game.lockedSwitches.contains(.mute), s.game.lockedSwitches.contains(.hints), false,
                            s.playerPagesPaired, s.link.mqttURL, s.link.mqttUsername, s.link.mqttPassword, s.link.mqttTopic,
                            s.link.mqttDiscovery, s.link.notifyURL, s.link.notifyParentURL, s.link.notifyOn.joined(separator: " "),
                            s.link.mqttProtocol, s.voice.mode.rawValue, s.voice.language, s.voice.rate, s.voice.volumePercent,
                            s.game.firstQuestIntro])
        }
    }

    /// The player switches one of her own settings (#32); false, and nothing written, when a
    /// parent has locked it (checked in the same statement, so a lock set meanwhile holds).
    public func setPlayerSwitch(_ playerSwitch: PlayerSwitch, on: Bool) throws -> Bool {
        let (column, lock, value): (String, String?, Bool) = switch playerSwitch {
        case .mute: ("soundEnabled", "lockSoundMute", !on)
        case .hints: ("hintsEnabled", "lockHints", on)
        case .reminders: ("remindersEnabled", nil, on)   // #48: never locked
        }
        return try pool.write { db in
            try Self.ensureSettingsRow(db)
            try db.execute(sql: "UPDATE settings SET \(column) = ? WHERE id = 1" + (lock.map { " AND \($0) = 0" } ?? ""), arguments: [value])
            return db.changesCount > 0
        }
    }

    static func ensureSettingsRow(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO settings (id) VALUES (1) ON CONFLICT(id) DO NOTHING")
    }
}
