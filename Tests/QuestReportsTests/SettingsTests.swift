import Foundation
import TestSupport
import QuestCore
import Testing
@testable import QuestStore
import GRDB
@testable import QuestReports

@Suite("settings (questbox settings, SettingsCatalog)")
struct SettingsTests {
    let questbox = productPath("questbox")

    func run(_ args: [String]) throws -> ProcessResult { try runProcess(questbox, args) }

    func dataWithRoutine() throws -> String {
        let data = (temporaryDirectory() as NSString).appendingPathComponent("data")
        let file = (temporaryDirectory() as NSString).appendingPathComponent("r.json")
        _ = FileManager.default.createFile(atPath: file, contents: Data("""
            {"name": "School Morning", "displayName": "Morning Quest", "activeDays": [2,3,4,5,6], "tasks": [{"name": "Teeth", "displayName": "Teeth"}]}
            """.utf8))
        #expect(try run(["routine", "import", file, "--data", data]).status == 0)
        return data
    }

    @Test("settings lists every key with value and allowed range, text and JSON")
    func list() throws {
        let data = try dataWithRoutine()
        let text = try run(["settings", "--data", data])
        #expect(text.status == 0, "\(text)")
        for key in ["sound.mute", "sound.volume", "streak.policy", "hints", "estimate.readback", "stop.guard-seconds",
                    "week.first-day", "reminders", "reminder.time", "reminder.School Morning"] {
            #expect(text.stdout.contains(key), "missing \(key) in \(text.stdout)")
        }
        #expect(text.stdout.contains("sound.volume") && text.stdout.contains("80  (0–100)"))
        let json = try run(["settings", "list", "--json", "--data", data])
        let values = try JSONDecoder().decode([SettingValue].self, from: Data(json.stdout.utf8))
        #expect(values.first { $0.key == "stop.guard-seconds" }?.value == "default")
        #expect(values.first { $0.key == "reminder.School Morning" } == SettingValue(key: "reminder.School Morning", value: "default", allowed: "HH:MM | off | default"))
    }

    @Test("settings set writes one value; get reads it back; the store holds it")
    func setAndGet() throws {
        let data = try dataWithRoutine()
        let changes = [("sound.mute", "true", "true"), ("sound.volume", "35", "35"), ("streak.policy", "joker", "joker"),
                       ("hints", "off", "false"), ("estimate.readback", "on", "true"), ("stop.guard-seconds", "5", "5"),
                       ("week.first-day", "Monday", "monday"), ("reminders", "false", "false"), ("reminder.time", "06:45", "06:45"),
                       ("reminder.School Morning", "07:10", "07:10")]
        for (key, value, shown) in changes {
            let set = try run(["settings", "set", key, value, "--data", data])
            #expect(set.status == 0 && set.stdout == "\(key) = \(shown)\n", "\(set)")
            #expect(try run(["settings", "get", key, "--data", data]).stdout == shown + "\n")
        }
        let db = try QuestDatabase(path: data + "/questbox.sqlite", access: .readOnly)
        let s = try db.settings.current()
        #expect(!s.soundEnabled && s.volumePercent == 35 && s.firstWeekday == 2)
        var expected = GameSettings(
            streakPolicy: .joker, hintsEnabled: false, estimateReadBack: true, stopGuardSeconds: 5, remindersEnabled: false,
            reminderTime: ClockTime(hour: 6, minute: 45))
        #expect(s.game.streakPolicyChanges.map(\.to) == [.joker], "STREAK-3: the switch is stored")
        expected.streakPolicyChanges = s.game.streakPolicyChanges
        expected.soundMuted = true
        expected.firstQuestIntro = true  // GAME-9: a store's default
        #expect(s.game == expected)
        #expect(try db.routines.all().first?.reminder == .at(ClockTime(hour: 7, minute: 10)!))
        let json = try run(["settings", "get", "week.first-day", "--json", "--data", data])
        #expect(try JSONDecoder().decode(SettingValue.self, from: Data(json.stdout.utf8)).value == "monday")
    }

    @Test("a bad key or value is one line naming it and what is allowed; nothing is written")
    func refusals() throws {
        let data = try dataWithRoutine()
        let before = try run(["settings", "--json", "--data", data]).stdout
        let cases: [([String], String)] = [
            (["sound.volume", "140"], "questbox: sound.volume: \"140\" is not allowed (allowed: 0–100)\n"),
            (["sound.mute", "maybe"], "questbox: sound.mute: \"maybe\" is not allowed (allowed: true | false)\n"),
            (["stop.guard-seconds", "-1"], "questbox: stop.guard-seconds: \"-1\" is not allowed (allowed: 0–10 | default)\n"),
            (["reminder.time", "7:30"], "questbox: reminder.time: \"7:30\" is not allowed (allowed: HH:MM)\n"),
            (["reminder.School Morning", "25:00"], "questbox: reminder.School Morning: \"25:00\" is not allowed (allowed: HH:MM | off | default)\n"),
            (["reminder.Evening", "08:00"], "questbox: reminder.Evening: no routine has that name (routines: School Morning)\n"),
            (["streak.policy", "reset\u{1B}[2J"], "questbox: streak.policy: \"reset\\u{1B}[2J\" is not allowed (allowed: pause | joker)\n"),
        ]
        for (args, message) in cases {
            let r = try run(["settings", "set"] + args + ["--data", data])
            #expect(r.status == 1 && r.stderr == message, "\(args): \(r)")
        }
        let unknown = try run(["settings", "get", "volume", "--data", data])
        #expect(unknown.status == 1 && unknown.stderr.hasPrefix("questbox: volume: no such setting (settings: sound.mute, sound.volume,"), "\(unknown)")
        #expect(try run(["settings", "--json", "--data", data]).stdout == before)
    }

    @Test("a reminder survives re-importing its routine; `default` clears it")
    func reminderKeptOnReimport() throws {
        let (db, _) = try freshDatabase()
        var routine = Routine(id: UUID(), name: "r", displayName: "R", activeDays: [2], tasks: [RoutineTask(id: UUID(), name: "t", displayName: "T")])
        try db.routines.save(routine)
        try SettingsCatalog.set("reminder.r", to: "off", in: db.settings)
        routine.displayName = "Renamed"
        try db.routines.save(routine)
        #expect(try db.routines.all().first?.reminder == .off)
        try SettingsCatalog.set("reminder.r", to: "default", in: db.settings)
        #expect(try db.routines.all().first?.reminder == nil)
        routine.reminder = .at(ClockTime(hour: 18, minute: 5)!)
        try db.routines.save(routine)
        #expect(try SettingsCatalog.value(of: "reminder.r", in: try db.settings.current(), routines: try db.routines.all()).value == "18:05")
    }

    @Test("ClockTime reads exactly HH:MM")
    func clockTime() {
        #expect(ClockTime("07:30")?.minutes == 450)
        #expect(ClockTime("23:59")?.description == "23:59")
        for bad in ["7:30", "24:00", "07:60", "07:3", "0730", "07:30:00", "٠٧:٣٠", "+7:30", ""] { #expect(ClockTime(bad) == nil, "\(bad)") }
    }

    @Test("REM-1: a parent's settings and routine reminders change in one transaction: one refused, none written")
    func oneTransaction() throws {
        let (db, _) = try freshDatabase()
        try db.routines.save(morningRoutine)
        #expect(throws: StoreError.self) {
            try db.settings.update(reminders: [(morningRoutine.name, .off), ("no such routine", .off)]) { $0.volumePercent = 10 }
        }
        #expect(try db.settings.current().volumePercent == StoredSettings().volumePercent)
        #expect(try db.routines.all().first?.reminder == nil, "the first reminder was not kept either")
        try SettingsCatalog.set(all: [("sound.volume", "35"), ("reminder.\(morningRoutine.name)", "06:45")], in: db.settings)
        #expect(try db.settings.current().volumePercent == 35)
        #expect(try db.routines.all().first?.reminder == .at(try #require(ClockTime("06:45"))))
    }
}

@Suite("STREAK-3: a switch of the streak policy is stored and keeps the streak on every surface")
struct StreakSwitchStoreTests {
    @Test("pause → joker keeps the streak in stats (13, not the joker policy's 5); the switch is stored once")
    func switchKeepsStreak() throws {
        let (db, _) = try freshDatabase()
        try db.routines.save(morningRoutine)
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = .current
        let now = Date()
        let today = cal.startOfDay(for: now)
        // Three runs of five days with a day missed between them, the last run ending today
        // (quests at 06:00 or earlier today, so they are all before now).
        for daysAgo in Array(12...16) + Array(6...10) + Array(0...4) {
            let day = try #require(cal.date(byAdding: .day, value: -daysAgo, to: today))
            let at = day.addingTimeInterval(daysAgo == 0 ? min(6 * 3600, now.timeIntervalSince(day) / 2) : 6 * 3600)
            try recordQuest(db, at: at, durations: [(120, 150), (60, 70), (200, 240)])
        }
        #expect(try StatsReport.load(from: db, now: now, calendar: cal).currentStreak == 13)
        try SettingsCatalog.set("streak.policy", to: "joker", in: db.settings)
        try SettingsCatalog.set("streak.policy", to: "joker", in: db.settings)  // no switch: nothing stored
        let report = try StatsReport.load(from: db, now: now.addingTimeInterval(1), calendar: cal)
        #expect(report.currentStreak == 13 && report.availableJokers == 0)
        #expect(try db.settings.current().game.streakPolicyChanges.map { "\($0.from.rawValue)→\($0.to.rawValue)" } == ["pause→joker"])
        // The stored switch is what keeps it: without it the joker policy judges every day.
        try db.pool.write { try $0.execute(sql: "DELETE FROM streakPolicyChange") }
        #expect(try StatsReport.load(from: db, now: now.addingTimeInterval(1), calendar: cal).currentStreak == 5)
    }
}

@Suite("#33 STREAK-2: the calendar of days played marks a joker's day")
struct JokerCalendarTests {
    @Test("seven days played earn a joker; the day missed after them is marked, no other")
    func jokerDayInReport() throws {
        let (db, _) = try freshDatabase()
        try db.routines.save(morningRoutine)
        try db.settings.update { $0.game.streakPolicy = .joker }
        // The joker policy from the first day (no switch stored: a switch today would judge
        // the days before it by the pause policy).
        try db.pool.write { try $0.execute(sql: "DELETE FROM streakPolicyChange") }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = .current
        let now = Date()
        let today = cal.startOfDay(for: now)
        for daysAgo in Array(10...16) + [8] {
            let day = try #require(cal.date(byAdding: .day, value: -daysAgo, to: today))
            try recordQuest(db, at: day.addingTimeInterval(6 * 3600), durations: [(120, 150), (60, 70), (200, 240)])
        }
        let report = try StatsReport.load(from: db, now: now, calendar: cal)
        #expect(report.days.filter(\.joker).map(\.daysAgo) == [9])
        // Switched to pause today: the joker did cover that day while jokers were in force.
        try db.settings.update { $0.game.streakPolicy = .pause }
        #expect(try StatsReport.load(from: db, now: now, calendar: cal).days.filter(\.joker).map(\.daysAgo) == [9])
        // The pause policy all along: no joker ever covered a day.
        try db.pool.write { try $0.execute(sql: "DELETE FROM streakPolicyChange") }
        #expect(try StatsReport.load(from: db, now: now, calendar: cal).days.filter(\.joker).isEmpty)
    }
}
