import Foundation
import BoardProfile
import QuestCore
import QuestStore

/// One setting as every surface shows it: its key, its value as text and what it accepts.
public struct SettingValue: Codable, Equatable, Sendable {
    public var key: String
    public var value: String
    public var allowed: String
}

/// Every setting of the box by key (`questbox settings`, the web app's settings page): how
/// it reads, what it accepts, and how a value is checked before anything is written.
public enum SettingsCatalog {
    struct Entry: Sendable {
        var key: String
        var allowed: String
        var read: @Sendable (StoredSettings) -> String
        /// The change a text value asks for, or the reason it cannot be taken.
        var parse: @Sendable (String) -> Result<@Sendable (inout StoredSettings) -> Void, SettingRefusal>
    }

    /// Why a value was refused: the allowed values are named by the caller.
    struct SettingRefusal: Error {}

    public static let reminderPrefix = "reminder."

    static let booleanWords: [String: Bool] = ["true": true, "false": false, "on": true, "off": false, "yes": true, "no": false]
    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    static func flag(_ key: String, _ get: @escaping @Sendable (StoredSettings) -> Bool, _ set: @escaping @Sendable (inout StoredSettings, Bool) -> Void) -> Entry {
        Entry(key: key, allowed: "true | false", read: { get($0) ? "true" : "false" }) { text in
            guard let value = booleanWords[text.lowercased()] else { return .failure(SettingRefusal()) }
            return .success { set(&$0, value) }
        }
    }

    static func lock(_ playerSwitch: PlayerSwitch) -> Entry {
        flag("lock." + playerSwitch.rawValue, { $0.game.lockedSwitches.contains(playerSwitch) }) { s, locked in
            if locked { s.game.lockedSwitches.insert(playerSwitch) } else { s.game.lockedSwitches.remove(playerSwitch) }
        }
    }

    static let entries: [Entry] = [
        flag("sound.mute", { !$0.soundEnabled }, { $0.soundEnabled = !$1 }),
        Entry(key: "sound.volume", allowed: "0–100", read: { "\($0.volumePercent)" }) { text in
            guard let v = Int(text), (0...100).contains(v) else { return .failure(SettingRefusal()) }
            return .success { $0.volumePercent = v }
        },
        Entry(key: "streak.policy", allowed: "pause | joker", read: { $0.game.streakPolicy.rawValue }) { text in
            guard let p = GameSettings.StreakPolicy(rawValue: text) else { return .failure(SettingRefusal()) }
            return .success { $0.game.streakPolicy = p }
        },
        flag("hints", { $0.game.hintsEnabled }, { $0.game.hintsEnabled = $1 }),
        flag("estimate.readback", { $0.game.estimateReadBack }, { $0.game.estimateReadBack = $1 }),
        Entry(
            key: "stop.guard-seconds",
            allowed: "\(GameSettings.stopGuardRange.lowerBound)–\(GameSettings.stopGuardRange.upperBound) | default",
            read: { $0.game.stopGuardSeconds.map(String.init) ?? "default" }
        ) { text in
            if text == "default" { return .success { $0.game.stopGuardSeconds = nil } }
            guard let v = Int(text), GameSettings.stopGuardRange.contains(v) else { return .failure(SettingRefusal()) }
            return .success { $0.game.stopGuardSeconds = v }
        },
        Entry(key: "week.first-day", allowed: "monday … sunday | locale", read: { s in s.firstWeekday.map { weekdays[$0 - 1] } ?? "locale" }) { text in
            if text == "locale" { return .success { $0.firstWeekday = nil } }
            guard let i = weekdays.firstIndex(of: text.lowercased()) else { return .failure(SettingRefusal()) }
            return .success { $0.firstWeekday = i + 1 }
        },
        flag("reminders", { $0.game.remindersEnabled }, { $0.game.remindersEnabled = $1 }),
        Entry(key: "reminder.time", allowed: "HH:MM", read: { $0.game.reminderTime.description }) { text in
            guard let t = ClockTime(text) else { return .failure(SettingRefusal()) }
            return .success { $0.game.reminderTime = t }
        },
        // #32: the board from the first run; a profile the box can find, or none.
        Entry(key: "board", allowed: "a board profile (questbox boards list) | none", read: { $0.boardName ?? "none" }) { text in
            if text == "none" { return .success { $0.boardName = nil } }
            guard StoredSettings.isBoardName(text), BoardCatalog.available(in: BoardCatalog.searchDirectories()).contains(where: { $0.name == text })
            else { return .failure(SettingRefusal()) }
            return .success { $0.boardName = text }
        },
        // #32: a parent locks a switch the player otherwise owns (her page, the box's gesture).
        lock(.mute), lock(.hints), lock(.reminders),
        // #33: the player's pages for the family's paired browsers only.
        Entry(key: "web.player-pages", allowed: "open | paired", read: { $0.playerPagesPaired ? "paired" : "open" }) { text in
            switch text {
            case "open": .success { $0.playerPagesPaired = false }
            case "paired": .success { $0.playerPagesPaired = true }
            default: .failure(SettingRefusal())
            }
        },
        Entry(key: "web.hosts", allowed: WebHosts.allowed, read: { $0.webHosts.isEmpty ? "none" : $0.webHosts.joined(separator: " ") }) { text in
            guard let names = WebHosts.parse(text) else { return .failure(SettingRefusal()) }
            return .success { $0.webHosts = names }
        },
    ]

    static let reminderAllowed = "HH:MM | off | default"

    /// The box's settings by key, without the per-routine reminders.
    public static var keys: [String] { entries.map(\.key) }

    /// Every setting, then one reminder per routine ("reminder.<routine name>").
    public static func list(_ settings: StoredSettings, routines: [Routine]) -> [SettingValue] {
        entries.map { SettingValue(key: $0.key, value: $0.read(settings), allowed: $0.allowed) }
            + routines.map { SettingValue(key: reminderPrefix + $0.name, value: ($0.reminder ?? .standard).description, allowed: reminderAllowed) }
    }

    /// One setting; an unknown key is one line naming it and the keys there are.
    public static func value(of key: String, in settings: StoredSettings, routines: [Routine]) throws -> SettingValue {
        guard let found = list(settings, routines: routines).first(where: { $0.key == key }) else { throw unknownKey(key, routines: routines) }
        return found
    }

    /// Checks `text` for `key` and writes it in one transaction; a bad key or value is one
    /// line naming it and what is allowed, and nothing is written. Returns the new value.
    @discardableResult
    public static func set(_ key: String, to text: String, in db: QuestDatabase) throws -> SettingValue {
        let shown = DisplayText.escaped(text)
        if let entry = entries.first(where: { $0.key == key }) {
            guard case .success(let change) = entry.parse(text) else {
                throw StoreError.invalid("\(key): \"\(shown)\" is not allowed (allowed: \(entry.allowed))")
            }
            try db.updateSettings(change)
        } else if key.hasPrefix(reminderPrefix), key.count > reminderPrefix.count {
            let name = String(key.dropFirst(reminderPrefix.count))
            guard let reminder = ReminderChoice(text) else {
                throw StoreError.invalid("\(DisplayText.escaped(key)): \"\(shown)\" is not allowed (allowed: \(reminderAllowed))")
            }
            guard try db.setReminder(reminder, forRoutineNamed: name) else { throw unknownKey(key, routines: try db.routines()) }
        } else {
            throw unknownKey(key, routines: try db.routines())
        }
        return try value(of: key, in: try db.settings(), routines: try db.routines())
    }

    /// The values a setting takes when they can be listed (a page offers them as a choice);
    /// nil for numbers, times and reminders.
    public static func choices(for key: String) -> [String]? {
        switch key {
        case "streak.policy": GameSettings.StreakPolicy.allCases.map(\.rawValue)
        case "week.first-day": ["locale"] + weekdays
        case "web.player-pages": ["open", "paired"]
        case "board": ["none"] + BoardCatalog.available(in: BoardCatalog.searchDirectories()).map(\.name)
        default: entries.first { $0.key == key }?.allowed == "true | false" ? ["true", "false"] : nil
        }
    }

    /// Why `text` cannot be taken for `key` (the line `set` would throw), or nil when it can.
    public static func problem(setting key: String, to text: String, routines: [Routine]) -> String? {
        let shown = DisplayText.escaped(text)
        if let entry = entries.first(where: { $0.key == key }) {
            guard case .success = entry.parse(text) else { return "\(key): \"\(shown)\" is not allowed (allowed: \(entry.allowed))" }
            return nil
        }
        if key.hasPrefix(reminderPrefix), routines.contains(where: { reminderPrefix + $0.name == key }) {
            return ReminderChoice(text) == nil ? "\(DisplayText.escaped(key)): \"\(shown)\" is not allowed (allowed: \(reminderAllowed))" : nil
        }
        return unknownKey(key, routines: routines).description
    }

    /// Several settings at once: every value is checked first and, if one is refused, nothing
    /// is written (its line is thrown); the box's settings then change in one transaction.
    public static func set(all changes: [(key: String, text: String)], in db: QuestDatabase) throws {
        let routines = try db.routines()
        for change in changes {
            if let problem = problem(setting: change.key, to: change.text, routines: routines) { throw StoreError.invalid(problem) }
        }
        var edits: [@Sendable (inout StoredSettings) -> Void] = []
        for change in changes {
            if let entry = entries.first(where: { $0.key == change.key }), case .success(let edit) = entry.parse(change.text) { edits.append(edit) }
        }
        var reminders: [(routine: String, reminder: ReminderChoice)] = []
        for change in changes where change.key.hasPrefix(reminderPrefix) && !entries.contains(where: { $0.key == change.key }) {
            if let reminder = ReminderChoice(change.text) { reminders.append((String(change.key.dropFirst(reminderPrefix.count)), reminder)) }
        }
        guard !edits.isEmpty || !reminders.isEmpty else { return }
        try db.updateSettings(reminders: reminders) { s in edits.forEach { $0(&s) } }
    }

    static func unknownKey(_ key: String, routines: [Routine]) -> StoreError {
        let escaped = DisplayText.escaped(key)
        if key.hasPrefix(reminderPrefix) && !routines.isEmpty {
            return .invalid("\(escaped): no routine has that name (routines: \(routines.map { DisplayText.escaped($0.name) }.joined(separator: ", ")))")
        }
        return .invalid("\(escaped): no such setting (settings: \(keys.joined(separator: ", ")), reminder.<routine name>)")
    }
}
