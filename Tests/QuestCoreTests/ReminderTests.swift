import Foundation
import Testing
@testable import QuestCore

@Suite("REM-1 reminders")
struct ReminderTests {
    static let berlin = calendar("Europe/Berlin")
    static let newYork = calendar("America/New_York")
    static let everyDay = Routine(
        id: uuid(0xB00), name: "morning", displayName: "Morning Quest", activeDays: Array(1...7),
        tasks: [RoutineTask(id: uuid(0xB01), name: "t", displayName: "Teeth")])

    func settings(at time: String = "07:30") -> GameSettings {
        GameSettings(reminderTime: ClockTime(time))
    }

    func utc(_ date: Date?) -> String {
        guard let date else { return "nil" }
        return date.formatted(.iso8601)
    }

    @Test("a time the clock skips sounds at the first moment after the gap; a time that occurs twice, at the first (Berlin, New York)")
    func dstDays() {
        let cases: [(Calendar, Date, String, String)] = [
            // Berlin: 2026-03-29 02:00 → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.
            (Self.berlin, at(2026, 3, 29, 12, 0, Self.berlin), "02:30", "2026-03-29T01:00:00Z"),
            (Self.berlin, at(2026, 10, 25, 12, 0, Self.berlin), "02:30", "2026-10-25T00:30:00Z"),
            (Self.berlin, at(2026, 10, 25, 12, 0, Self.berlin), "07:30", "2026-10-25T06:30:00Z"),
            // New York: 2026-03-08 02:00 → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
            (Self.newYork, at(2026, 3, 8, 12, 0, Self.newYork), "02:30", "2026-03-08T07:00:00Z"),
            (Self.newYork, at(2026, 11, 1, 12, 0, Self.newYork), "01:30", "2026-11-01T05:30:00Z"),
            (Self.newYork, at(2026, 11, 1, 12, 0, Self.newYork), "07:30", "2026-11-01T12:30:00Z"),
        ]
        for (cal, day, time, expected) in cases {
            #expect(utc(ReminderSchedule.time(for: Self.everyDay, settings: settings(at: time), on: day, calendar: cal)) == expected, "\(time) in \(cal.timeZone.identifier)")
        }
    }

    @Test("due once a day from its time, only on active days, not once played; off per routine or for all; a routine's own time")
    func due() {
        let cal = Self.berlin
        let s = settings()
        let before = at(2026, 6, 10, 7, 29, cal), after = at(2026, 6, 10, 7, 30, cal)
        func due(_ routines: [Routine], _ plays: [QuestPlay] = [], reminded: [UUID: Date] = [:], settings: GameSettings? = nil, at now: Date) -> [String] {
            ReminderSchedule.due(routines: routines, plays: plays, reminded: reminded, settings: settings ?? s, now: now, calendar: cal).map(\.name)
        }
        #expect(due([Self.everyDay], at: before) == [])
        #expect(due([Self.everyDay], at: after) == ["morning"])
        #expect(due([Self.everyDay], reminded: [Self.everyDay.id: after], at: at(2026, 6, 10, 8, 0, cal)) == [])
        // Missed by more than an hour (the box was off): no chime at 8:30 or in the afternoon.
        #expect(due([Self.everyDay], at: at(2026, 6, 10, 8, 29, cal)) == ["morning"])
        #expect(due([Self.everyDay], at: at(2026, 6, 10, 8, 30, cal)) == [])
        #expect(due([Self.everyDay], at: at(2026, 6, 10, 15, 0, cal)) == [])
        #expect(due([Self.everyDay], reminded: [Self.everyDay.id: at(2026, 6, 9, 7, 30, cal)], at: after) == ["morning"])
        #expect(due([Self.everyDay], [QuestPlay(routineID: Self.everyDay.id, completedAt: at(2026, 6, 10, 7, 0, cal), measuredTaskSeconds: 60)], at: after) == [])
        var weekend = Self.everyDay
        weekend.activeDays = [1, 7]  // 2026-06-10 is a Wednesday
        #expect(due([weekend], at: after) == [])
        var off = Self.everyDay
        off.reminder = .off
        #expect(due([off], at: after) == [])
        var disabled = s
        disabled.remindersEnabled = false
        #expect(due([Self.everyDay], settings: disabled, at: after) == [])
        var own = Self.everyDay
        own.reminder = .at(ClockTime(hour: 18, minute: 0)!)
        #expect(due([own], at: after) == [])
        #expect(due([own], at: at(2026, 6, 10, 18, 0, cal)) == ["morning"])
    }

    @Test("the next reminder time: later today, else the next day that has one; nil when none is set")
    func nextTime() {
        let cal = Self.berlin
        var evening = Self.everyDay
        evening.id = uuid(0xB10)
        evening.name = "evening"
        evening.reminder = .at(ClockTime(hour: 19, minute: 15)!)
        let routines = [Self.everyDay, evening]
        #expect(ReminderSchedule.nextTime(routines: routines, settings: settings(), now: at(2026, 6, 10, 6, 0, cal), calendar: cal) == at(2026, 6, 10, 7, 30, cal))
        #expect(ReminderSchedule.nextTime(routines: routines, settings: settings(), now: at(2026, 6, 10, 7, 30, cal), calendar: cal) == at(2026, 6, 10, 19, 15, cal))
        #expect(ReminderSchedule.nextTime(routines: routines, settings: settings(), now: at(2026, 6, 10, 20, 0, cal), calendar: cal) == at(2026, 6, 11, 7, 30, cal))
        // A year boundary, and a routine active only on Mondays (2027-01-04).
        var monday = Self.everyDay
        monday.activeDays = [2]
        #expect(ReminderSchedule.nextTime(routines: [monday], settings: settings(), now: at(2026, 12, 31, 23, 0, cal), calendar: cal) == at(2027, 1, 4, 7, 30, cal))
        var off = settings()
        off.remindersEnabled = false
        #expect(ReminderSchedule.nextTime(routines: routines, settings: off, now: at(2026, 6, 10, 6, 0, cal), calendar: cal) == nil)
    }

    /// A box on a virtual clock started at `start` (Berlin) with the every-day routine.
    func box(start: Date) -> QuestSimulator {
        let world = QuestWorld(routines: [Self.everyDay], settings: settings(), calendar: Self.berlin, bootID: "b")
        var sim = QuestSimulator(state: QuestState(world: world), wallClockStart: start, ids: .sequential(next: 1))
        sim.start()
        return sim
    }

    func reminders(_ effects: [QuestEffect]) -> [String] {
        effects.compactMap { if case .persist(.reminderSounded(_, let name, _)) = $0 { name } else { nil } }
    }

    @Test("the machine: one chime and a slow blink at the minute, never again that day, gone once played")
    func machineReminder() {
        let s: Int64 = 1_000_000_000
        var sim = box(start: at(2026, 6, 10, 7, 0, Self.berlin))
        #expect(reminders(sim.send(.wallClockTick(atNanos: 29 * 60 * s), at: 29 * 60 * s)) == [])
        let fired = sim.send(.wallClockTick(atNanos: 30 * 60 * s), at: 30 * 60 * s)
        #expect(reminders(fired) == ["Morning Quest"])
        #expect(fired.contains(.playSound(.questAvailable)) && fired.contains(.led(.reminder)))
        // #14: the screen says it too (the OLED lights with it), on every surface.
        let screens = fired.compactMap { if case .display(let screen) = $0 { screen } else { nil } }
        guard case .idle(let idle)? = screens.last else { Issue.record("no idle screen with the reminder"); return }
        #expect(idle.quests.first?.reminded == true)
        #expect(Screen.idle(idle).words.lines.contains("Reminder: time to go!"))
        #expect(reminders(sim.send(.wallClockTick(atNanos: 45 * 60 * s), at: 45 * 60 * s)) == [])
        // Played: the blink ends.
        var t = 50 * 60 * s
        for role in [ButtonRole.lock, .lock, .stop, .lock] {
            sim.press(role, at: t)
            sim.release(role, at: t + 80_000_000)
            t += 3 * s
        }
        sim.advance(to: t + 60 * s)
        guard case .idle = sim.state.phase else { Issue.record("not idle: \(sim.state.phase.name)"); return }
        let lastLED = sim.allEffects.compactMap { if case .led(let p) = $0 { p } else { nil } }.last
        #expect(lastLED == .off)
        guard case .idle(let after)? = sim.allEffects.compactMap({ if case .display(let screen) = $0 { screen } else { nil } }).last else {
            Issue.record("the last screen is not the quest list")
            return
        }
        #expect(after.quests.first?.reminded == nil, "played: no reminder on the screen")
    }

    @Test("a reminder never interrupts a quest: it waits for the end, and sounds then only if still due")
    func waitsForTheQuest() {
        let s: Int64 = 1_000_000_000
        let minute = 60 * s
        // Abandoned quest: the reminder is still due when the box is idle again.
        var sim = box(start: at(2026, 6, 10, 7, 25, Self.berlin))
        sim.press(.lock, at: minute)
        sim.release(.lock, at: minute + 80_000_000)
        #expect(reminders(sim.send(.wallClockTick(atNanos: 5 * minute), at: 5 * minute)) == [])
        sim.press(.stop, at: 6 * minute)
        sim.advance(to: 6 * minute + 3_100_000_000)  // held 3 s: abandoned
        sim.release(.stop, at: 6 * minute + 3_200_000_000)
        #expect(reminders(sim.allEffects) == ["Morning Quest"])
        // Completed quest: nothing left to remind.
        var played = box(start: at(2026, 6, 10, 7, 25, Self.berlin))
        var t = minute
        for role in [ButtonRole.lock, .lock] {
            played.press(role, at: t)
            played.release(role, at: t + 80_000_000)
            t += s
        }
        played.send(.wallClockTick(atNanos: 5 * minute), at: 5 * minute)
        played.press(.stop, at: 6 * minute)
        played.release(.stop, at: 6 * minute + 80_000_000)
        played.press(.lock, at: 7 * minute)
        played.release(.lock, at: 7 * minute + 80_000_000)
        played.advance(to: 9 * minute)
        #expect(reminders(played.allEffects) == [])
    }

    @Test("a moment's time of day in the family's calendar, as pages say it (\"07:05\"), whatever its offset")
    func clockTimeOfDate() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 3600))
        let date = try #require(calendar.date(from: DateComponents(year: 2026, month: 3, day: 29, hour: 7, minute: 5)))
        #expect(ClockTime(of: date, calendar: calendar).description == "07:05")
        let late = try #require(calendar.date(from: DateComponents(year: 2026, month: 12, day: 31, hour: 23, minute: 59, second: 59)))
        #expect(ClockTime(of: late, calendar: calendar) == ClockTime(hour: 23, minute: 59))
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        #expect(ClockTime(of: date, calendar: calendar).description == "06:05")
        // The morning the clocks go forward in Berlin: 07:05 there is still 07:05.
        let berlin = try #require(Self.berlin.date(from: DateComponents(year: 2026, month: 3, day: 29, hour: 7, minute: 5)))
        #expect(ClockTime(of: berlin, calendar: Self.berlin).description == "07:05")
    }
}
