import Foundation
import Testing
@testable import QuestCore

@Suite("STREAK-1 pause policy")
struct PauseStreakTests {
    let cal = calendar("Europe/Berlin")

    @Test("first play starts at 1")
    func firstPlay() {
        let u = StreakTracker.updatedStreak(currentStreak: 0, lastPlayedDate: nil, today: at(2026, 5, 4, 8, 0, cal), calendar: cal)
        #expect(u.currentStreak == 1)
        #expect(u.increased)
    }

    @Test("same day leaves it unchanged")
    func sameDay() {
        let u = StreakTracker.updatedStreak(
            currentStreak: 4, lastPlayedDate: at(2026, 5, 4, 7, 0, cal), today: at(2026, 5, 4, 21, 0, cal), calendar: cal)
        #expect(u.currentStreak == 4)
        #expect(!u.increased)
    }

    @Test("the next calendar day adds one, even 10 minutes later across midnight")
    func nextDay() {
        let u = StreakTracker.updatedStreak(
            currentStreak: 4, lastPlayedDate: at(2026, 5, 4, 23, 55, cal), today: at(2026, 5, 5, 0, 5, cal), calendar: cal)
        #expect(u.currentStreak == 5)
        #expect(u.increased)
    }

    @Test("after a gap the streak resumes at its value — never reset")
    func gapPauses() {
        let u = StreakTracker.updatedStreak(
            currentStreak: 12, lastPlayedDate: at(2026, 5, 1, 8, 0, cal), today: at(2026, 5, 9, 8, 0, cal), calendar: cal)
        #expect(u.currentStreak == 12)
        let next = StreakTracker.updatedStreak(
            currentStreak: u.currentStreak, lastPlayedDate: u.lastPlayedDate, today: at(2026, 5, 10, 8, 0, cal), calendar: cal)
        #expect(next.currentStreak == 13)
    }

    @Test("DST: the 23-hour spring day and the 25-hour autumn day are still one day apart")
    func dstDays() {
        // Berlin springs forward on 2026-03-29 and falls back on 2026-10-25.
        let spring = StreakTracker.updatedStreak(
            currentStreak: 2, lastPlayedDate: at(2026, 3, 28, 23, 30, cal), today: at(2026, 3, 29, 23, 30, cal), calendar: cal)
        #expect(spring.currentStreak == 3)
        let autumn = StreakTracker.updatedStreak(
            currentStreak: 2, lastPlayedDate: at(2026, 10, 25, 0, 30, cal), today: at(2026, 10, 25, 23, 30, cal), calendar: cal)
        #expect(autumn.currentStreak == 2)  // same calendar day despite 24 h apart
    }

    @Test("a wall clock that went backwards changes nothing")
    func clockBackwards() {
        let later = at(2026, 5, 9, 8, 0, cal)
        let u = StreakTracker.updatedStreak(currentStreak: 3, lastPlayedDate: later, today: at(2026, 5, 1, 8, 0, cal), calendar: cal)
        #expect(u.currentStreak == 3)
        #expect(u.lastPlayedDate == later)
    }
}

@Suite("STREAK-1 replayed over the history (the store's derived profile)")
struct PauseStreakReplayTests {
    /// The streak as the machine builds it, one completed quest at a time.
    func folded(_ dates: [Date], _ cal: Calendar) -> (Int, Date?) {
        var streak = 0
        var last: Date?
        for d in dates.sorted() {
            let u = StreakTracker.updatedStreak(currentStreak: streak, lastPlayedDate: last, today: d, calendar: cal)
            streak = u.currentStreak
            last = u.lastPlayedDate
        }
        return (streak, last)
    }

    @Test("replay equals the fold of updatedStreak: DST days (Berlin, New York), a year boundary, gaps, same-day plays")
    func edgeCases() {
        for zone in ["Europe/Berlin", "America/New_York"] {
            let cal = calendar(zone)
            let dates = [
                at(2025, 12, 30, 23, 50, cal), at(2025, 12, 31, 7, 0, cal), at(2026, 1, 1, 0, 10, cal),  // across New Year
                at(2026, 3, 7, 23, 30, cal), at(2026, 3, 8, 23, 30, cal),  // US spring forward
                at(2026, 3, 28, 23, 30, cal), at(2026, 3, 29, 0, 30, cal), at(2026, 3, 29, 23, 30, cal),  // EU spring forward
                at(2026, 10, 25, 0, 30, cal), at(2026, 10, 25, 23, 30, cal), at(2026, 10, 26, 0, 5, cal),  // EU fall back
                at(2026, 11, 1, 1, 30, cal), at(2026, 11, 2, 1, 30, cal),  // US fall back
            ]
            let replayed = StreakTracker.replay(playedAt: dates.shuffled(), calendar: cal)
            let expected = folded(dates, cal)
            #expect(replayed.currentStreak == expected.0, "\(zone)")
            #expect(replayed.lastPlayedDate == expected.1, "\(zone)")
        }
        let empty = StreakTracker.replay(playedAt: [], calendar: calendar())
        #expect(empty.currentStreak == 0 && empty.lastPlayedDate == nil)
    }

    @Test("replay equals the fold on 200 random histories of up to two years")
    func randomHistories() {
        var rng = SplitMix(seed: 42)
        let cal = calendar("Europe/Berlin")
        let base = at(2025, 1, 1, 0, 0, cal).timeIntervalSince1970
        for _ in 0..<200 {
            let count = Int(rng.next() % 60)
            let dates = (0..<count).map { _ in Date(timeIntervalSince1970: base + Double(rng.next() % (730 * 86_400))) }
            let replayed = StreakTracker.replay(playedAt: dates, calendar: cal)
            let expected = folded(dates, cal)
            #expect(replayed.currentStreak == expected.0 && replayed.lastPlayedDate == expected.1)
        }
    }

    @Test("the derived profile counts the plays and takes XP as given")
    func derivedProfile() {
        let cal = calendar("Europe/Berlin")
        let plays = [at(2026, 5, 1, 8, 0, cal), at(2026, 5, 2, 8, 0, cal), at(2026, 5, 2, 19, 0, cal)].map {
            QuestPlay(completedAt: $0, measuredTaskSeconds: 300)
        }
        let p = PlayerProfile.derived(totalXP: 777, plays: plays, calendar: cal)
        #expect(p == PlayerProfile(totalXP: 777, currentStreak: 2, lastPlayedDate: at(2026, 5, 2, 19, 0, cal), sessionsCompleted: 3))
    }
}

/// A small deterministic generator (tests must not depend on the system's random source).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("STREAK-2 joker policy (seed 002)")
struct JokerStreakTests {
    let g = DayOutcome.good, b = DayOutcome.bad

    func days(_ pattern: String) -> [DayOutcome] { pattern.map { $0 == "g" ? .good : .bad } }

    @Test("day 7 is bad: the joker is earned first, then spent; streak 7")
    func daySevenEdge() {
        let r = JokerStreakCalculator.evaluate(days("ggggggb"))
        #expect(r.currentStreak == 7)
        #expect(r.availableJokers == 0)
        #expect(r.jokersEarned == 1 && r.jokersConsumed == 1)
    }

    @Test("seven good days earn one joker")
    func earnsOnSeventh() {
        #expect(JokerStreakCalculator.evaluate(days("gggggg")).availableJokers == 0)
        let r = JokerStreakCalculator.evaluate(days("ggggggg"))
        #expect(r.currentStreak == 7 && r.availableJokers == 1)
    }

    @Test("a bad day without a joker ends the streak at 0")
    func badWithoutJoker() {
        let r = JokerStreakCalculator.evaluate(days("gggb"))
        #expect(r.currentStreak == 0)
        #expect(JokerStreakCalculator.evaluate(days("gggbgg")).currentStreak == 2)
    }

    @Test("several bad days each need their own joker")
    func severalBadDays() {
        let two = JokerStreakCalculator.evaluate(days(String(repeating: "g", count: 14) + "bb"))
        #expect(two.currentStreak == 16 && two.availableJokers == 0)
        let three = JokerStreakCalculator.evaluate(days(String(repeating: "g", count: 14) + "bbb"))
        #expect(three.currentStreak == 0)
    }

    @Test("a healed day counts toward the next milestone")
    func healedCounts() {
        let r = JokerStreakCalculator.evaluate(days("ggggggb" + "gggggg" + "g"))
        #expect(r.currentStreak == 14)
        #expect(r.availableJokers == 1)  // earned on day 7 (spent) and on day 14
    }

    @Test("cap: at most 3 held; a fourth earned at the cap is forfeited")
    func cap() {
        let r = JokerStreakCalculator.evaluate(days(String(repeating: "g", count: 28)))
        #expect(r.jokersEarned == 4)
        #expect(r.availableJokers == 3)
        let spent = JokerStreakCalculator.evaluate(days(String(repeating: "g", count: 28) + "bbb"))
        #expect(spent.currentStreak == 31 && spent.availableJokers == 0)
        #expect(JokerStreakCalculator.evaluate(days(String(repeating: "g", count: 28) + "bbbb")).currentStreak == 0)
    }

    @Test("forward iteration: a joker earned earlier heals a later bad day (the backward-iteration bug)")
    func forwardIteration() {
        let r = JokerStreakCalculator.evaluate(days("ggggggg" + "b" + "ggg"))
        #expect(r.currentStreak == 11)
        #expect(r.availableJokers == 0)
        // Bad days before any joker exists are not healed by jokers earned afterwards.
        let early = JokerStreakCalculator.evaluate(days("b" + "ggggggg"))
        #expect(early.currentStreak == 7 && early.availableJokers == 1)
    }

    let cal = calendar("America/New_York", firstWeekday: 1)

    func play(_ m: Int, _ d: Int, seconds: Double = 600, hour: Int = 8) -> QuestPlay {
        QuestPlay(completedAt: at(2026, m, d, hour, 0, cal), measuredTaskSeconds: seconds)
    }

    @Test("gaps in the history are bad days: every calendar day is iterated")
    func gapsAreBad() {
        let plays = [play(5, 1), play(5, 2), play(5, 3), play(5, 5), play(5, 6)]
        let outcomes = JokerStreakCalculator.dayOutcomes(plays: plays, today: at(2026, 5, 7, 9, 0, cal), calendar: cal)
        #expect(outcomes == [g, g, g, b, g, g])
        #expect(JokerStreakCalculator.evaluate(plays: plays, today: at(2026, 5, 7, 9, 0, cal), calendar: cal).currentStreak == 2)
    }

    @Test("today is ignored until played (grace), and counts once it is good")
    func todaysGrace() {
        let plays = (1...5).map { play(5, $0) }
        let morning = at(2026, 5, 6, 7, 0, cal)
        #expect(JokerStreakCalculator.dayOutcomes(plays: plays, today: morning, calendar: cal).count == 5)
        #expect(JokerStreakCalculator.evaluate(plays: plays, today: morning, calendar: cal).currentStreak == 5)
        // A short play today does not count yet, but does not break anything either.
        let short = plays + [play(5, 6, seconds: 30, hour: 6)]
        #expect(JokerStreakCalculator.evaluate(plays: short, today: morning, calendar: cal).currentStreak == 5)
        let good = plays + [play(5, 6, seconds: 300, hour: 6)]
        #expect(JokerStreakCalculator.evaluate(plays: good, today: morning, calendar: cal).currentStreak == 6)
    }

    @Test("a good day needs ≥ 2 min of measured task time, rounded to the nearest minute")
    func twoMinuteRule() {
        #expect(!JokerStreakCalculator.isGoodQuest(QuestPlay(completedAt: Date(), measuredTaskSeconds: 60)))
        #expect(!JokerStreakCalculator.isGoodQuest(QuestPlay(completedAt: Date(), measuredTaskSeconds: 89.9)))
        #expect(JokerStreakCalculator.isGoodQuest(QuestPlay(completedAt: Date(), measuredTaskSeconds: 90)))  // 1.5 → 2
        #expect(JokerStreakCalculator.isGoodQuest(QuestPlay(completedAt: Date(), measuredTaskSeconds: 108)))  // 1.8 → 2
        // A day of only short quests is bad.
        let plays = [play(5, 1), play(5, 2, seconds: 45), play(5, 3)]
        #expect(JokerStreakCalculator.dayOutcomes(plays: plays, today: at(2026, 5, 4, 9, 0, cal), calendar: cal) == [g, b, g])
    }

    @Test("DST change inside the history adds no phantom gap and loses no day")
    func dstHistory() {
        // New York springs forward on 2026-03-08 and falls back on 2026-11-01.
        let spring = (1...14).map { QuestPlay(completedAt: at(2026, 3, $0, 23, 30, cal), measuredTaskSeconds: 300) }
        let r = JokerStreakCalculator.evaluate(plays: spring, today: at(2026, 3, 15, 9, 0, cal), calendar: cal)
        #expect(r.currentStreak == 14 && r.availableJokers == 2)
        let autumn = (25...31).map { QuestPlay(completedAt: at(2026, 10, $0, 0, 30, cal), measuredTaskSeconds: 300) }
            + (1...7).map { QuestPlay(completedAt: at(2026, 11, $0, 0, 30, cal), measuredTaskSeconds: 300) }
        let outcomes = JokerStreakCalculator.dayOutcomes(plays: autumn, today: at(2026, 11, 8, 9, 0, cal), calendar: cal)
        #expect(outcomes == Array(repeating: g, count: 14))
    }

    @Test("no plays: streak 0, no jokers")
    func empty() {
        #expect(JokerStreakCalculator.evaluate(plays: [], today: Date(), calendar: cal) == JokerStreakResult(currentStreak: 0, availableJokers: 0, jokersEarned: 0, jokersConsumed: 0))
    }
}
