import Foundation
import BoardProfile
import HomeLink
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

    /// Why a value was refused: the allowed values are named by the caller, with what is
    /// wrong when a value has parts (an address).
    struct SettingRefusal: Error {
        var reason: String? = nil
    }

    static func refusalLine(_ key: String, _ shown: String, _ entry: Entry, _ refusal: SettingRefusal) -> String {
        "\(key): \"\(shown)\" is not allowed (\(refusal.reason.map { $0 + "; " } ?? "")allowed: \(entry.allowed))"
    }

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

    static let boxEntries: [Entry] = [
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
        // GAME-9: the first quest's intro (a box with quests played never shows it).
        flag("intro", { $0.game.firstQuestIntro }, { $0.game.firstQuestIntro = $1 }),
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
        // #32: a parent locks a switch the player otherwise owns (her page, the box's gesture);
        // #48: never her reminders (seed 004).
        lock(.mute), lock(.hints),
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

    /// #34: a text setting of the house's link: nil for `none` (or ""), else text the store
    /// keeps (at most 512 bytes, no control characters) that `valid` takes.
    static func linkText(
        _ key: String, allowed: String, none: String = "none", read: @escaping @Sendable (HomeLinkSettings) -> String?,
        problem: @escaping @Sendable (String) -> String? = { _ in nil },
        write: @escaping @Sendable (inout HomeLinkSettings, String?) -> Void
    ) -> Entry {
        Entry(key: key, allowed: allowed, read: { s in read(s.link) ?? none }) { text in
            if text == none || text.isEmpty { return .success { write(&$0.link, nil) } }
            if let reason = linkTextProblem(text) ?? problem(text) { return .failure(SettingRefusal(reason: reason)) }
            return .success { write(&$0.link, text) }
        }
    }

    static func linkTextProblem(_ text: String) -> String? {
        if text.utf8.count > HomeLinkSettings.maximumBytes { return "longer than \(HomeLinkSettings.maximumBytes) bytes" }
        if text.unicodeScalars.contains(where: DisplayText.isControl) { return "has a control character" }
        return nil
    }

    static func addressProblem<T>(_ result: Result<T, LinkAddressProblem>) -> String? {
        if case .failure(let problem) = result { problem.description } else { nil }
    }

    /// What `notify.on` takes (#34), in the order the settings page lists them.
    public static let notifyEvents = ["reminder", "reminder-missed", "quest-paused", "quest-done", "level-up", "streak-milestone"]
    /// How a secret reads back: never its value.
    public static let secretShown = "(set)"

    static let linkEntries: [Entry] = [
        linkText("mqtt.url", allowed: BrokerAddress.allowed, none: "off", read: \.mqttURL, problem: { addressProblem(BrokerAddress.parse($0)) }) {
            $0.mqttURL = $1
        },
        linkText("mqtt.username", allowed: "a user name | none", read: \.mqttUsername) { $0.mqttUsername = $1 },
        // Read back as "(set)"; "(set)" given back (a page's untouched field) keeps it.
        Entry(key: "mqtt.password", allowed: "a password | none", read: { $0.link.mqttPassword == nil ? "none" : secretShown }) { text in
            if text == secretShown { return .success { _ in } }
            if text == "none" || text.isEmpty { return .success { $0.link.mqttPassword = nil } }
            if let reason = linkTextProblem(text) { return .failure(SettingRefusal(reason: reason)) }
            return .success { $0.link.mqttPassword = text }
        },
        linkText("mqtt.topic", allowed: "a topic (default: questbox/<box id>) | default", none: "default", read: \.mqttTopic, problem: LinkTopic.problem) {
            $0.mqttTopic = $1
        },
        Entry(key: "mqtt.discovery", allowed: "on | off | a discovery prefix (on: homeassistant)", read: { $0.link.mqttDiscovery ?? "off" }) { text in
            switch text {
            case "on": return .success { $0.link.mqttDiscovery = "homeassistant" }
            case "off": return .success { $0.link.mqttDiscovery = nil }
            default:
                if let reason = LinkTopic.problem(text) { return .failure(SettingRefusal(reason: reason)) }
                return .success { $0.link.mqttDiscovery = text }
            }
        },
        Entry(key: "mqtt.protocol", allowed: HomeLinkSettings.mqttProtocols.joined(separator: " | "), read: { $0.link.mqttProtocol }) { text in
            guard HomeLinkSettings.mqttProtocols.contains(text) else { return .failure(SettingRefusal()) }
            return .success { $0.link.mqttProtocol = text }
        },
        linkText("notify.url", allowed: PushAddress.allowed, none: "off", read: \.notifyURL, problem: { addressProblem(PushAddress.parse($0)) }) {
            $0.notifyURL = $1
        },
        linkText("notify.parent-url", allowed: PushAddress.allowed, none: "off", read: \.notifyParentURL, problem: { addressProblem(PushAddress.parse($0)) }) {
            $0.notifyParentURL = $1
        },
        Entry(key: "notify.on", allowed: "none | any of " + notifyEvents.joined(separator: " "), read: { $0.link.notifyOn.isEmpty ? "none" : $0.link.notifyOn.joined(separator: " ") }) { text in
            if text == "none" { return .success { $0.link.notifyOn = [] } }
            let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            guard !words.isEmpty, words.allSatisfy(notifyEvents.contains) else { return .failure(SettingRefusal()) }
            let chosen = notifyEvents.filter(words.contains)
            return .success { $0.link.notifyOn = chosen }
        },
    ]

    static let reminderAllowed = "HH:MM | off | default"

    /// The box's settings by key, without the per-routine reminders.
    public static var keys: [String] { entries.map(\.key) }

    /// Every entry: the box's own, then the house's link (#34).
    /// #35: the box's voice.
    static let voiceEntries: [Entry] = [
        Entry(key: "voice", allowed: "auto | on | off (auto: on for a board with no screen)", read: { $0.voice.mode.rawValue }) { text in
            guard let mode = VoiceChoice.Mode(rawValue: text.lowercased()) else { return .failure(SettingRefusal()) }
            return .success { $0.voice.mode = mode }
        },
        Entry(key: "voice.language", allowed: "an eSpeak NG voice (en-us, en-gb, de, fr, en-us+f3 …) | locale", read: { $0.voice.language ?? "locale" }) { text in
            if text == "locale" { return .success { $0.voice.language = nil } }
            guard VoiceChoice.isVoiceName(text) else { return .failure(SettingRefusal()) }
            return .success { $0.voice.language = text }
        },
        Entry(key: "voice.rate", allowed: "\(VoiceChoice.rateRange.lowerBound)–\(VoiceChoice.rateRange.upperBound) words per minute", read: { "\($0.voice.rate)" }) { text in
            guard let v = Int(text), VoiceChoice.rateRange.contains(v) else { return .failure(SettingRefusal()) }
            return .success { $0.voice.rate = v }
        },
        Entry(key: "voice.volume", allowed: "0–100 (% of the sounds' volume)", read: { "\($0.voice.volumePercent)" }) { text in
            guard let v = Int(text), VoiceChoice.volumeRange.contains(v) else { return .failure(SettingRefusal()) }
            return .success { $0.voice.volumePercent = v }
        },
    ]

    static let entries: [Entry] = boxEntries + voiceEntries + linkEntries

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
    /// `now`: when the change happens, a calendar fact (STREAK-3 stores a policy switch with it).
    public static func set(_ key: String, to text: String, in db: any SettingsStore, now: Date = Date()) throws -> SettingValue {
        let shown = DisplayText.escaped(text)
        if let entry = entries.first(where: { $0.key == key }) {
            let change: @Sendable (inout StoredSettings) -> Void
            switch entry.parse(text) {
            case .success(let c): change = c
            case .failure(let refusal): throw StoreError.invalid(refusalLine(key, shown, entry, refusal))
            }
            try db.update(reminders: [], now: now, change)
        } else if key.hasPrefix(reminderPrefix), key.count > reminderPrefix.count {
            let name = String(key.dropFirst(reminderPrefix.count))
            guard let reminder = ReminderChoice(text) else {
                throw StoreError.invalid("\(DisplayText.escaped(key)): \"\(shown)\" is not allowed (allowed: \(reminderAllowed))")
            }
            guard try db.setReminder(reminder, forRoutineNamed: name) else { throw unknownKey(key, routines: try db.routineList()) }
        } else {
            throw unknownKey(key, routines: try db.routineList())
        }
        return try value(of: key, in: try db.current(), routines: try db.routineList())
    }

    /// The values a setting takes when they can be listed (a page offers them as a choice);
    /// nil for numbers, times and reminders.
    public static func choices(for key: String) -> [String]? {
        switch key {
        case "streak.policy": GameSettings.StreakPolicy.allCases.map(\.rawValue)
        case "week.first-day": ["locale"] + weekdays
        case "web.player-pages": ["open", "paired"]
        case "mqtt.protocol": HomeLinkSettings.mqttProtocols
        case "voice": VoiceChoice.Mode.allCases.map(\.rawValue)
        case "board": ["none"] + BoardCatalog.available(in: BoardCatalog.searchDirectories()).map(\.name)
        default: entries.first { $0.key == key }?.allowed == "true | false" ? ["true", "false"] : nil
        }
    }

    /// Why `text` cannot be taken for `key` (the line `set` would throw), or nil when it can.
    public static func problem(setting key: String, to text: String, routines: [Routine]) -> String? {
        let shown = DisplayText.escaped(text)
        if let entry = entries.first(where: { $0.key == key }) {
            if case .failure(let refusal) = entry.parse(text) { return refusalLine(key, shown, entry, refusal) }
            return nil
        }
        if key.hasPrefix(reminderPrefix), routines.contains(where: { reminderPrefix + $0.name == key }) {
            return ReminderChoice(text) == nil ? "\(DisplayText.escaped(key)): \"\(shown)\" is not allowed (allowed: \(reminderAllowed))" : nil
        }
        return unknownKey(key, routines: routines).description
    }

    /// Several settings at once: every value is checked first and, if one is refused, nothing
    /// is written (its line is thrown); the box's settings then change in one transaction.
    public static func set(all changes: [(key: String, text: String)], in db: any SettingsStore) throws {
        let routines = try db.routineList()
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
        try db.update(reminders: reminders, now: Date()) { s in edits.forEach { $0(&s) } }
    }

    static func unknownKey(_ key: String, routines: [Routine]) -> StoreError {
        let escaped = DisplayText.escaped(key)
        if key.hasPrefix(reminderPrefix) && !routines.isEmpty {
            return .invalid("\(escaped): no routine has that name (routines: \(routines.map { DisplayText.escaped($0.name) }.joined(separator: ", ")))")
        }
        return .invalid("\(escaped): no such setting (settings: \(keys.joined(separator: ", ")), reminder.<routine name>)")
    }
}
