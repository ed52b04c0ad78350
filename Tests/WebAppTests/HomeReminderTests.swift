import Foundation
import QuestCore
import QuestStore
import TestSupport
import Testing
@testable import WebApp

/// #32 item 7: the player's home page shows today's reminder (REM-1) and a quest paused
/// today (GAME-7), as the box will treat them.
@Suite("Home page: today's reminder and a paused quest")
struct HomeReminderTests {
    static let cal: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return c
    }()

    static func at(_ h: Int, _ m: Int) -> Date {
        cal.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: h, minute: m))!
    }

    let morning = Routine(
        id: UUID(), name: "morning", displayName: "Morning Quest", activeDays: Array(1...7),
        tasks: [RoutineTask(id: UUID(), name: "a", displayName: "Dress"), RoutineTask(id: UUID(), name: "b", displayName: "Teeth")],
        reminder: .at(ClockTime("07:30")!))
    let evening = Routine(
        id: UUID(), name: "evening", displayName: "Evening Quest", activeDays: Array(1...7),
        tasks: [RoutineTask(id: UUID(), name: "c", displayName: "Bag"), RoutineTask(id: UUID(), name: "d", displayName: "Desk")],
        reminder: .at(ClockTime("18:00")!))
    let noReminder = Routine(
        id: UUID(), name: "quiet", displayName: "Quiet Quest", activeDays: Array(1...7),
        tasks: [RoutineTask(id: UUID(), name: "e", displayName: "Read")], reminder: .off)

    func store() throws -> QuestDatabase {
        let (_, db) = try TestArguments.fresh(routines: [morning, evening, noReminder])
        return db
    }

    func quest(_ home: PlayerHome, _ name: String) throws -> PlayerHome.Quest {
        try #require(home.quests.first { $0.name == name })
    }

    /// The store and the home at 08:00, the morning's reminder sounded at 07:30.
    func atEight(clock: ClockStyle) throws -> (QuestDatabase, PlayerHome) {
        let db = try store()
        try db.plays.apply(.reminderSounded(routineID: morning.id, name: morning.displayName, at: Self.at(7, 30)), wallClockTrusted: true)
        return (db, try PlayerHome.load(from: db, calendar: Self.cal, clock: clock, now: Self.at(8, 0)))
    }

    @Test("REM-1: a reminder to come, one that sounded, none once played, none when off")
    func reminderWords() throws {
        var (db, home) = try atEight(clock: .twentyFourHour)
        #expect(try quest(home, "Morning Quest").reminder == "Reminded at 07:30")
        #expect(try quest(home, "Evening Quest").reminder == "Reminder at 18:00")
        #expect(try quest(home, "Quiet Quest").reminder == nil)

        // Played: the reminder is done with (REM-1 never sounds for a played quest).
        _ = try recordQuest(db, at: Self.at(8, 5), durations: [(60, 60), (60, 60)], routine: morning)
        home = try PlayerHome.load(from: db, calendar: Self.cal, clock: .twentyFourHour, now: Self.at(8, 30))
        #expect(try quest(home, "Morning Quest").reminder == nil)
        #expect(try quest(home, "Morning Quest").playedToday)

        // After its time with no reminder sounded (the box was off): nothing to say.
        home = try PlayerHome.load(from: db, calendar: Self.cal, clock: .twentyFourHour, now: Self.at(19, 0))
        #expect(try quest(home, "Evening Quest").reminder == nil)

        // Reminders switched off for the box: none shown.
        try db.settings.update { $0.game.remindersEnabled = false }
        home = try PlayerHome.load(from: db, calendar: Self.cal, clock: .twentyFourHour, now: Self.at(8, 0))
        #expect(home.quests.allSatisfy { $0.reminder == nil })
    }

    /// The evening quest started at 17:00, its first task played, then paused (GAME-7).
    @discardableResult
    func pauseEveningAfterItsFirstTask(_ db: QuestDatabase) throws -> GameSession {
        let session = GameSession(
            id: UUID(), routineID: evening.id, routineDisplayName: evening.displayName, startedAt: Self.at(17, 0),
            startedMonotonicNanos: 1_000_000_000, bootID: "boot-a", isCalibration: true)
        try db.plays.apply(.sessionStarted(session), wallClockTrusted: true)
        let result = TimeEstimationScorer.score(estimated: 60, actual: 70)
        try db.plays.apply(.estimationCompleted(TaskEstimation(
            id: UUID(), sessionID: session.id, taskID: evening.tasks[0].id, taskDisplayName: "Bag",
            routineDisplayName: evening.displayName, orderIndex: 0, result: result,
            xpEarned: XPEngine.xpForEstimation(rating: result.rating), isCalibration: true, recordedAt: Self.at(17, 2),
            lockMonotonicNanos: 2_000_000_000, stopMonotonicNanos: 72_000_000_000, bootID: "boot-a")), wallClockTrusted: true)
        var paused = session
        paused.status = .paused
        try db.plays.apply(.sessionPaused(paused), wallClockTrusted: true)
        return paused
    }

    @Test("GAME-7: a quest paused today says the task the next lock picks it up at; a pause from yesterday says nothing")
    func pausedWords() throws {
        let db = try store()
        let paused = try pauseEveningAfterItsFirstTask(db)

        let home = try PlayerHome.load(from: db, calendar: Self.cal, clock: .twentyFourHour, now: Self.at(17, 30))
        let evening = try quest(home, "Evening Quest")
        #expect(evening.paused == "Paused at task 2 of 2: lock in at the box to go on")
        #expect(!evening.playedToday)
        #expect(evening.reminder == "Reminder at 18:00", "REM-1: a paused quest counts as not played")
        #expect(try quest(home, "Morning Quest").paused == nil)

        let nextDay = try PlayerHome.load(from: db, calendar: Self.cal, clock: .twentyFourHour, now: Self.at(17, 30).addingTimeInterval(86_400))
        #expect(try quest(nextDay, "Evening Quest").paused == nil, "a new day starts it fresh")

        // #48: picked up again, it is no longer paused.
        var resumed = paused
        resumed.status = .inProgress
        try db.plays.apply(.sessionResumed(resumed), wallClockTrusted: true)
        let playing = try PlayerHome.load(from: db, calendar: Self.cal, clock: .twentyFourHour, now: Self.at(17, 31))
        #expect(try quest(playing, "Evening Quest").paused == nil)
    }

    @Test("#48: a quest played today, started again and paused, says both")
    func pausedAfterPlayed() throws {
        let db = try store()
        try recordQuest(db, at: Self.at(16, 0), durations: [(60, 70), (60, 70)], routine: evening)
        try pauseEveningAfterItsFirstTask(db)
        let home = try PlayerHome.load(from: db, calendar: Self.cal, clock: .twentyFourHour, now: Self.at(17, 30))
        let evening = try quest(home, "Evening Quest")
        #expect(evening.playedToday)
        #expect(evening.paused == "Paused at task 2 of 2: lock in at the box to go on")
    }

    @Test("#48: in a twelve-hour locale the reminders say 7:30 AM and 6:00 PM")
    func twelveHours() throws {
        let (_, home) = try atEight(clock: .twelveHour)
        #expect(try quest(home, "Morning Quest").reminder == "Reminded at 7:30 AM")
        #expect(try quest(home, "Evening Quest").reminder == "Reminder at 6:00 PM")
    }

    @Test("the home page shows both lines, as text")
    func rendered() async throws {
        let resources = try await WebResources(directory: TestArguments(databasePath: "", socketPath: "").resourcesDirectory)
        var home = try PlayerHome.load(from: try store(), calendar: Self.cal, clock: .twentyFourHour, now: Self.at(6, 0))
        home.quests[1].paused = "Paused at task 2 of 2: lock in at the box to go on"
        let page = try resources.page("home", home).body
        #expect(page.contains("<span class=\"reminder\">Reminder at 07:30</span>"))
        #expect(page.contains("<span class=\"paused\">Paused at task 2 of 2: lock in at the box to go on</span>"))
    }
}
