import Foundation
import Hummingbird
import QuestCore
import QuestStore
import QuestReports

/// `/parent/settings`: every setting of `questbox settings`, with the CLI's keys, checks and
/// words. The page sends each value with the value it showed; only the ones the parent
/// changed are written, so a setting changed meanwhile elsewhere is not put back. All values
/// are checked first: one refused value writes nothing, and its problem is shown beside it.
/// Per-routine reminders live in each routine's editor.
struct SettingsController {
    let box: BoxLink
    let forms: PageForms
    let calendar: Calendar
    let routines: any RoutineLibrary
    let settings: any FamilySettings

    /// How each setting reads on the page (the CLI's key stays visible for the manual).
    static let labels: [String: (label: String, help: String, choices: [String: String])] = [
        "sound.mute": ("Sounds", "The reveal, tick and reminder sounds.", ["false": "On", "true": "Muted"]),
        "sound.volume": ("Volume", "0 to 100 %.", [:]),
        "streak.policy": ("When a day is missed", Self.streakPolicyHelp(streakNow: nil),
                          ["pause": "The streak pauses and goes on", "joker": "One free day a week keeps it going"]),
        "hints": ("Hints", "“Last 5 times this took about …” before estimating a task played 5 times.", ["true": "Shown", "false": "Off"]),
        "intro": ("How it works, before the first quest", "A few short screens (and the voice) explain guess, lock, stop and the reveal before her first quest; she can skip them with STOP.",
                  ["true": "Shown before her first quest", "false": "Off"]),
        "estimate.readback": ("Read the estimate back", "Buzzer pulses repeat the locked estimate (for a box without a screen).",
                              ["true": "On", "false": "Off"]),
        "stop.guard-seconds": ("Stop guard", "Seconds after start in which a stop press is ignored (0–10, or “default”: 2).", [:]),
        "week.first-day": ("First day of the week", "For weekly reflections and streak weeks.", [
            "locale": "As the box's language says", "monday": "Monday", "tuesday": "Tuesday", "wednesday": "Wednesday",
            "thursday": "Thursday", "friday": "Friday", "saturday": "Saturday", "sunday": "Sunday",
        ]),
        "reminders": ("Reminders", "A sound and a light when a quest of the day has not been played.", ["true": "On", "false": "Off"]),
        "reminder.time": ("Reminder time", "When reminders sound unless a routine sets its own.", [:]),
        "lock.sound.mute": ("The player's sound switch", "Whether the player may turn the sounds off and on (her page, and STOP held at the box).",
                            ["false": "The player may switch it", "true": "Locked: only a parent"]),
        "lock.hints": ("The player's hints switch", "Whether the player may turn the hints off and on on her page.",
                       ["false": "The player may switch it", "true": "Locked: only a parent"]),
        "web.player-pages": ("The player's pages", "Who on the home network sees her home, stats and quests. With paired screens only, she pairs her phone with a code from the box (or you pair it under Paired screens).",
                             ["open": "Any browser on the home network", "paired": "Only the family's paired screens"]),
        // #35: the box's voice (docs/sound.md).
        "voice": ("The box's voice", "Says the task, the guess and the reveal aloud; “auto” speaks on a box with no screen.",
                  ["auto": "Auto: when the box has no screen", "on": "On", "off": "Off"]),
        "voice.language": ("Voice", "An eSpeak NG voice such as en-us, en-gb or de (questbox voice say … --voice NAME to hear one); “locale” follows the box's language.", [:]),
        "voice.rate": ("Speaking speed", "Words per minute, 80–450 (150 is unhurried).", [:]),
        "voice.volume": ("Voice loudness", "0–100 % of the sounds' volume.", [:]),
        // #34: the house (docs/mqtt.md).
        "mqtt.url": ("MQTT broker (Home Assistant)", "mqtt://host:1883 or mqtts://host:8883 for TLS; “off” for none. The box appears in Home Assistant by itself (discovery).", [:]),
        "mqtt.username": ("Broker user name", "When the broker asks for one; “none” for none.", [:]),
        "mqtt.password": ("Broker password", "Never shown again: leave the field empty to keep it, “none” to remove it.", [:]),
        "mqtt.topic": ("MQTT topic", "Where the box publishes; “default” is questbox/ and the box's own id.", [:]),
        "mqtt.discovery": ("Home Assistant discovery", "“on” (prefix homeassistant), “off”, or another discovery prefix.", [:]),
        "mqtt.protocol": ("MQTT protocol", "3.1.1 works with every broker; 5 where the broker speaks it (Mosquitto 2, EMQX, Home Assistant's Mosquitto add-on).",
                          ["3.1.1": "3.1.1 (every broker)", "5": "5"]),
        "notify.url": ("Push to the player's phone", "An ntfy address such as https://ntfy.sh/your-topic; “off” for none.", [:]),
        "notify.parent-url": ("Push to a parent's phone", "An ntfy address for the parent's messages (quest done, paused, a missed reminder); “off”: the player's address.", [:]),
        "notify.on": ("What is pushed", "Any of: reminder, reminder-missed, quest-paused, quest-done, level-up, streak-milestone; or “none”.", [:]),
        "board": ("Board", "Which buttons, light and buzzer the box has (its wiring is on the wiring check). A box waiting for a board starts with it; QUESTBOX_BOARD in /etc/default/questbox wins where set.",
                  ["none": "None yet (the box waits)"]),
    ]

    /// STREAK-3: what each policy really does, and what a switch does to the streak shown now.
    static func streakPolicyHelp(streakNow: Int?) -> String {
        let now = streakNow.map { " (now \(CountText.counted($0, "day")))" } ?? ""
        return "Pause: a missed day pauses the streak and the next quest goes on from it; it never drops. "
            + "One free day a week: every 7th day in a row earns a joker (at most 3), a missed day spends one, "
            + "and with none left the streak starts again from 0. Switching keeps the streak\(now); the new rule judges the days after."
    }

    /// A refused value in the page's words (#32): the field's label and what to enter, not
    /// the CLI's key and grammar (the API keeps those, for scripts).
    static func pageProblem(setting key: String, value: String) -> String {
        let label = labels[key]?.label ?? key
        let shown = value.count > 40 ? DisplayText.escaped(String(value.prefix(40))) + "…" : DisplayText.escaped(value)
        let ask: String
        switch key {
        case "sound.volume": ask = "Enter a number from 0 to 100."
        case "stop.guard-seconds": ask = "Enter whole seconds from 0 to 10, or “default” for 2."
        case "reminder.time": ask = "Enter a time of day such as 07:30."
        default:
            let choices = (SettingsCatalog.choices(for: key) ?? []).map { labels[key]?.choices[$0] ?? $0 }
            ask = choices.isEmpty ? "Enter another value." : "Choose one of: " + choices.joined(separator: " · ") + "."
        }
        return "\(label): “\(shown)” cannot be used. \(ask)"
    }

    func addRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("settings") { request, _ in try page(request, sent: [:], problems: [:]) }
        parent.post("settings") { request, _ in
            let form = try await forms.changeForm(request)
            // Only what the parent changed on the page: sent value differs from the one shown.
            var sent: [String: String] = [:]
            var changes: [(key: String, text: String)] = []
            for key in SettingsCatalog.keys {
                guard let value = form.value("value." + key) else { continue }
                let text = value.trimmingCharacters(in: .whitespaces)
                sent[key] = text
                if text != form.value("was." + key) { changes.append((key, text)) }
            }
            var problems: [String: String] = [:]
            for change in changes {
                if SettingsCatalog.problem(setting: change.key, to: change.text, routines: []) != nil {
                    problems[change.key] = Self.pageProblem(setting: change.key, value: change.text)
                }
            }
            guard problems.isEmpty else { return try page(request, sent: sent, problems: problems, status: .unprocessableContent) }
            guard !changes.isEmpty else { return .redirect(to: "/parent/settings") }
            try SettingsCatalog.set(all: changes, in: self.settings)
            let box = await self.box.reload().appliedText
            return .redirect(to: LocalLink.to("/parent/settings", [("changed", changes.map(\.key).joined(separator: ",")), ("box", box)]))
        }
    }

    func addAPIRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("settings") { _, _ in
            SettingsList(settings: SettingsCatalog.list(try self.settings.current(), routines: try self.routines.all()))
        }
        parent.post("settings") { request, _ in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            let buffer = try await FormBody.collect(request, limit: 8 * 1024, what: "A settings change")
            guard let body = strictJSON([String: String].self, from: buffer), !body.isEmpty else {
                return try APIProblem(field: "", message: "expected {\"key\": \"value\", …} (see GET /api/v1/parent/settings)").json(status: .badRequest)
            }
            let routines = try self.routines.all()
            for key in body.keys.sorted() {
                if let problem = SettingsCatalog.problem(setting: key, to: body[key] ?? "", routines: routines) {
                    return try APIProblem(field: key, message: problem).json(status: .unprocessableContent)
                }
            }
            try SettingsCatalog.set(all: body.keys.sorted().map { ($0, body[$0] ?? "") }, in: self.settings)
            let box = await self.box.reload().appliedText
            return try SettingsList(
                settings: SettingsCatalog.list(try self.settings.current(), routines: try self.routines.all()), box: box
            ).json(status: .ok)
        }
    }

    func page(_ request: Request, sent: [String: String], problems: [String: String], status: HTTPResponse.Status = .ok) throws -> Response {
        let values = SettingsCatalog.list(try self.settings.current(), routines: [])
        let streakNow = try self.settings.streakToday(calendar: calendar, now: Date())
        let changed = request.uri.queryParameters["changed"].map { $0.split(separator: ",").map(String.init) } ?? []
        let box = request.uri.queryParameters["box"].map(String.init)
        return try forms.formPage("parent-settings", for: request, status: status) { csrf in
            SettingsView(
                csrf: csrf,
                settings: values.map {
                    var setting = SettingsView.Setting($0, sent: sent[$0.key], problem: problems[$0.key])
                    if setting.key == "streak.policy" { setting.help = Self.streakPolicyHelp(streakNow: streakNow) }
                    return setting
                },
                done: changed.isEmpty ? nil : "Saved: " + changed.compactMap { Self.labels[$0]?.label }.joined(separator: ", "),
                boxNote: changed.isEmpty ? nil : BoxNote.text(box),
                hasProblems: !problems.isEmpty)
        }
    }
}

struct SettingsList: ResponseEncodable {
    var settings: [SettingValue]
    /// After a change: `now`, `after-quest` or `offline`.
    var box: String?
}

struct SettingsView: Encodable {
    struct Choice: Encodable { var value: String; var label: String; var selected: Bool }
    struct Setting: Encodable {
        var key: String
        var id: String
        var label: String
        var help: String
        /// What the page showed (sent back as `was.<key>`).
        var was: String
        var value: String
        var choices: [Choice]?
        var hasChoices: Bool
        var isTime: Bool
        var isNumber: Bool
        /// #34: a password field, never filled in; empty keeps what is set.
        var isSecret: Bool
        var secretNote: String?
        /// Addresses and lists: longer than a value of the box's own settings.
        var isLong: Bool
        /// The first of the house's settings (a heading goes before it).
        var startsHouse: Bool
        var problem: String?

        init(_ setting: SettingValue, sent: String?, problem: String?) {
            key = setting.key
            id = "setting-" + setting.key.replacingOccurrences(of: ".", with: "-")
            let words = SettingsController.labels[setting.key]
            label = words?.label ?? setting.key
            help = words?.help ?? "Allowed: \(setting.allowed)"
            was = setting.value
            value = sent ?? setting.value
            let current = value
            choices = SettingsCatalog.choices(for: setting.key).map { values in
                values.map { Choice(value: $0, label: words?.choices[$0] ?? $0, selected: $0 == current) }
            }
            hasChoices = choices != nil
            isTime = setting.key == "reminder.time"
            isNumber = setting.key == "sound.volume" || setting.key == "voice.volume"
            isSecret = setting.key == "mqtt.password"
            isLong = setting.key.hasPrefix("mqtt.") || setting.key.hasPrefix("notify.") || setting.key == "voice.language"
            startsHouse = setting.key == "mqtt.url"
            secretNote = nil
            if isSecret {
                // Never sent to a browser; an empty field is no change.
                secretNote = setting.value == SettingsCatalog.secretShown ? "A password is set: leave empty to keep it" : "No password set"
                was = ""
                value = ""
            }
            self.problem = problem
        }
    }

    var csrf: String
    var settings: [Setting]
    var done: String?
    var boxNote: String?
    var hasProblems: Bool
}
