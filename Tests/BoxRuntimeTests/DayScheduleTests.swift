@testable import BoxRuntime
import Foundation
import Logging
import QuestCore
import QuestStore
import SystemClock
import Testing

@Suite("The day's schedule: midnight, reminders, the wall clock set, backups, times corrected", .serialized)
struct DayScheduleTests {
    static func calendar(_ zone: String) -> Calendar {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: zone) ?? .gmt
        return cal
    }

    static func at(_ cal: Calendar, _ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int = 0) -> Date {
        cal.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min)) ?? .distantPast
    }

    static let everyDay = Routine(
        id: UUID(), name: "daily", displayName: "Daily Quest", activeDays: Array(1...7),
        tasks: [RoutineTask(id: UUID(), name: "one", displayName: "One")])

    @Test("REM-1: the timer wakes for today's reminder when it comes before midnight, else at midnight; reminders off: midnight")
    func nextWake() {
        let cal = Self.calendar("Europe/Berlin")
        let settings = GameSettings(reminderTime: ClockTime("07:30"))
        let early = DaySchedule.nextWake(routines: [Self.everyDay], settings: settings, now: Self.at(cal, 2026, 6, 10, 6), calendar: cal)
        #expect(early.at == Self.at(cal, 2026, 6, 10, 7, 30) && early.reminder)
        let late = DaySchedule.nextWake(routines: [Self.everyDay], settings: settings, now: Self.at(cal, 2026, 6, 10, 8), calendar: cal)
        #expect(late.at == Self.at(cal, 2026, 6, 11, 0) && !late.reminder, "tomorrow's reminder comes after midnight")
        var off = settings
        off.remindersEnabled = false
        let none = DaySchedule.nextWake(routines: [Self.everyDay], settings: off, now: Self.at(cal, 2026, 6, 10, 6), calendar: cal)
        #expect(none.at == Self.at(cal, 2026, 6, 11, 0) && !none.reminder)
    }

    @Test("midnight is the local one on the days the clocks change (23 and 25 hours) and at the year's end")
    func midnights() {
        let cal = Self.calendar("Europe/Berlin")
        let cases: [(Date, Date, TimeInterval)] = [
            (Self.at(cal, 2026, 3, 29, 0, 30), Self.at(cal, 2026, 3, 30, 0), 22.5 * 3_600),   // 02:00 → 03:00
            (Self.at(cal, 2026, 10, 25, 0, 30), Self.at(cal, 2026, 10, 26, 0), 24.5 * 3_600), // 03:00 → 02:00
            (Self.at(cal, 2026, 12, 31, 23, 59), Self.at(cal, 2027, 1, 1, 0), 60),
        ]
        for (now, midnight, gap) in cases {
            let wake = DaySchedule.nextWake(routines: [], settings: GameSettings(), now: now, calendar: cal)
            #expect(wake.at == midnight && wake.at.timeIntervalSince(now) == gap, "\(now)")
        }
    }

    @Test("why the timer fired: the clock set (cancelled, or read over a minute late), a reminder, or midnight")
    func reasons() {
        let t = Date(timeIntervalSince1970: 1_780_000_000)
        #expect(DaySchedule.reason(cancelled: true, armed: (t, false), now: t) == "wall clock set")
        #expect(DaySchedule.reason(cancelled: false, armed: (t, true), now: t.addingTimeInterval(61)) == "wall clock set")
        #expect(DaySchedule.reason(cancelled: false, armed: (t, true), now: t.addingTimeInterval(1)) == "reminder")
        #expect(DaySchedule.reason(cancelled: false, armed: (t, false), now: t) == "midnight")
    }

    @Test("the clock synced: times stored before it are corrected once (the store then read again); the daily backup once a day")
    func clockAndBackups() throws {
        let dir = NSTemporaryDirectory() + "questbox-day-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = try QuestDatabase(path: dir + "/questbox.sqlite")
        let clock = FakeSystemClock(wall: Date(timeIntervalSince1970: 100_000), monotonic: 10_000_000_000, trusted: false)
        let session = GameSession(
            id: UUID(), routineID: Self.everyDay.id, routineDisplayName: "Daily Quest", startedAt: clock.wallNow(),
            startedMonotonicNanos: 9_000_000_000, bootID: clock.bootID, isCalibration: true)
        try db.plays.apply(.sessionStarted(session), wallClockTrusted: false)
        final class Writes { var count = 0 }
        let writes = Writes()
        let day = try DaySchedule(database: db, clock: clock, logger: Logger(label: "test")) { writes.count += 1 }
        #expect(!day.wallClockTrusted && !day.clockChecked(), "not synced yet: nothing to correct")
        let synced = Date(timeIntervalSince1970: 1_780_000_000)
        clock.setWall(synced, trusted: true)
        #expect(day.clockChecked() && day.wallClockTrusted)
        #expect(try db.plays.sessions().first?.startedAt == synced.addingTimeInterval(-1), "started 1 s before the monotonic now")
        #expect(!day.clockChecked(), "corrected once")

        let cal = Self.calendar("UTC")
        day.backupIfDue(calendar: cal)
        day.backupIfDue(calendar: cal)
        #expect(try db.backups.all().count == 1)
        clock.advance(seconds: 86_400)
        day.backupIfDue(calendar: cal)
        #expect(try db.backups.all().count == 2)
        #expect(writes.count >= 4, "the follower hears of each write")
    }
}
