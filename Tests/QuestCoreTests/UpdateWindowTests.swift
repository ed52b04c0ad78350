import Foundation
import Testing
@testable import QuestCore

@Suite("UPD-1 when an update may start")
struct UpdateWindowTests {
    static let berlin = calendar("Europe/Berlin")
    static let morning = Routine(
        id: uuid(0xC00), name: "morning", displayName: "Morning Quest", activeDays: Array(1...7),
        tasks: [RoutineTask(id: uuid(0xC01), name: "t", displayName: "Teeth")])
    static let settings = GameSettings(reminderTime: ClockTime("07:30"))

    func verdict(
        phase: String? = "idle", routines: [Routine] = [morning], plays: [QuestPlay] = [], reminded: [UUID: Date] = [:],
        settings: GameSettings = settings, at now: Date, calendar: Calendar = berlin
    ) -> UpdateWindow.Verdict {
        UpdateWindow.verdict(boxPhase: phase, routines: routines, plays: plays, reminded: reminded, settings: settings, now: now, calendar: calendar)
    }

    @Test("never mid-quest: any phase but idle waits; no box running is idle")
    func questInPlay() {
        let night = at(2026, 6, 10, 3, 0, Self.berlin)
        for phase in ["estimating", "active", "revealing", "summary"] {
            #expect(verdict(phase: phase, at: night) == .questInPlay(phase: phase))
        }
        #expect(verdict(phase: "idle", at: night) == .open)
        #expect(verdict(phase: nil, at: night) == .open)
    }

    @Test("never in the 30 minutes before a reminder; open at 31 and right after it sounded")
    func beforeReminder() {
        let cal = Self.berlin
        let reminder = at(2026, 6, 10, 7, 30, cal)
        #expect(verdict(at: at(2026, 6, 10, 6, 59, cal)) == .open)
        #expect(verdict(at: at(2026, 6, 10, 7, 0, cal)) == .reminderSoon(routine: "Morning Quest", at: reminder))
        #expect(verdict(at: at(2026, 6, 10, 7, 29, cal)) == .reminderSoon(routine: "Morning Quest", at: reminder))
        // At its time and within REM-1's hour it is due until it sounds or she plays.
        #expect(verdict(at: reminder) == .reminderDue(routine: "Morning Quest", at: reminder))
        #expect(verdict(reminded: [Self.morning.id: reminder], at: at(2026, 6, 10, 7, 31, cal)) == .open)
        #expect(verdict(plays: [QuestPlay(routineID: Self.morning.id, completedAt: at(2026, 6, 10, 7, 10, cal), measuredTaskSeconds: 60)],
                        at: at(2026, 6, 10, 7, 20, cal)) == .open)
        // A missed reminder past its hour no longer holds the update.
        #expect(verdict(at: at(2026, 6, 10, 8, 30, cal)) == .open)
    }

    @Test("a reminder just after midnight holds the half hour before it, across the day and the year")
    func acrossMidnight() {
        let cal = Self.berlin
        var late = Self.morning
        late.reminder = .at(ClockTime(hour: 0, minute: 10)!)
        #expect(verdict(routines: [late], at: at(2026, 12, 31, 23, 50, cal)) == .reminderSoon(routine: "Morning Quest", at: at(2027, 1, 1, 0, 10, cal)))
        #expect(verdict(routines: [late], at: at(2026, 12, 31, 23, 30, cal)) == .open)
    }

    @Test("on the night clocks go forward a 02:30 reminder sounds at 03:00 CEST: the 30 real minutes before that are held")
    func dstNight() {
        let cal = Self.berlin
        var night = Self.morning
        night.reminder = .at(ClockTime(hour: 2, minute: 30)!)
        // 2026-03-29: 02:00 CET becomes 03:00 CEST; 02:30 sounds at 03:00 CEST (01:00 UTC).
        let sounds = at(2026, 3, 29, 3, 0, cal)
        #expect(verdict(routines: [night], at: sounds.addingTimeInterval(-29 * 60)) == .reminderSoon(routine: "Morning Quest", at: sounds))
        #expect(verdict(routines: [night], at: sounds.addingTimeInterval(-31 * 60)) == .open)
    }

    @Test("no reminder, no wait: reminders off for all, off for the routine, a day the routine is not played")
    func noReminder() {
        let cal = Self.berlin
        let soon = at(2026, 6, 10, 7, 15, cal)  // a Wednesday
        var off = Self.settings
        off.remindersEnabled = false
        #expect(verdict(settings: off, at: soon) == .open)
        var routineOff = Self.morning
        routineOff.reminder = .off
        #expect(verdict(routines: [routineOff], at: soon) == .open)
        var weekend = Self.morning
        weekend.activeDays = [1, 7]
        #expect(verdict(routines: [weekend], at: soon) == .open)
        #expect(verdict(routines: [], at: soon) == .open)
    }

    @Test("the words say why, with the reminder's time in the box's calendar")
    func words() {
        let cal = Self.berlin
        #expect(UpdateWindow.Verdict.reminderSoon(routine: "Morning Quest", at: at(2026, 6, 10, 7, 30, cal)).words(calendar: cal)
            == "Morning Quest's reminder sounds at 07:30: the update waits until it has")
        #expect(UpdateWindow.Verdict.questInPlay(phase: "active").words(calendar: cal).contains("a quest is in play"))
        #expect(UpdateWindow.Verdict.open.words(calendar: cal).contains("may start"))
    }
}
