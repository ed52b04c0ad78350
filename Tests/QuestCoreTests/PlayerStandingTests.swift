import Foundation
import Testing
@testable import QuestCore

@Suite("Where the player stands: one function for the box, the web and the CLI (LVL-1, STREAK-1, STREAK-2, CAL-1)")
struct PlayerStandingTests {
    let cal = calendar("Europe/Berlin")

    func play(_ d: Int) -> QuestPlay { QuestPlay(completedAt: at(2026, 6, d, 8, 0, cal), measuredTaskSeconds: 600) }

    @Test("level, progress and XP to the next level from the total; learning quests left")
    func level() {
        let plays = [play(1), play(2)]
        let profile = PlayerProfile.derived(totalXP: 282, plays: plays, calendar: cal)
        let s = PlayerStanding.of(profile: profile, plays: plays, settings: GameSettings(), rules: .standard, today: at(2026, 6, 3, 9, 0, cal), calendar: cal)
        #expect(s.level == 2 && s.totalXP == 282)
        #expect(s.xpToNextLevel == 519 - 282)  // floor(100 · 3^1.5) = 519
        #expect(s.levelProgress == 0)
        #expect(s.calibrationSessionsLeft == 1 && s.sessionsCompleted == 2)
    }

    @Test("pause: the streak resumes after a gap, no jokers; joker: the same plays judged day by day, jokers told")
    func streaks() {
        // Seven days in a row, then a gap of two days: pause keeps 7; joker spends the one joker
        // earned on day 7 for the first bad day and ends at 0 on the second.
        let plays = (1...7).map(play)
        let profile = PlayerProfile.derived(totalXP: 700, plays: plays, calendar: cal)
        let today = at(2026, 6, 10, 9, 0, cal)
        var settings = GameSettings()
        let paused = PlayerStanding.of(profile: profile, plays: plays, settings: settings, rules: .standard, today: today, calendar: cal)
        #expect(paused.streak == 7 && paused.jokers == nil && paused.streakText == "Streak: 7 days")
        settings.streakPolicy = .joker
        let joker = PlayerStanding.of(profile: profile, plays: plays, settings: settings, rules: .standard, today: today, calendar: cal)
        let expected = JokerStreakCalculator.evaluate(plays: plays, today: today, calendar: cal)
        #expect(joker.streak == expected.currentStreak && joker.jokers == expected.availableJokers)
        #expect(joker.streakText == "Streak: \(CountText.counted(expected.currentStreak, "day")) · jokers: \(expected.availableJokers)")
    }

    @Test("#33 STREAK-2: the missed day a joker covered is known by date (the calendar marks it); not under pause, nor a day the streak ended, nor across DST")
    func jokerDays() {
        // Days 1–7 played (the joker earned on day 7), day 8 missed (the joker covers it), day 9
        // played; days 10 and 11 missed with no joker left: the streak ends there.
        let plays = (1...7).map(play) + [play(9)]
        let profile = PlayerProfile.derived(totalXP: 800, plays: plays, calendar: cal)
        let today = at(2026, 6, 12, 9, 0, cal)
        var settings = GameSettings()
        settings.streakPolicy = .joker
        let joker = PlayerStanding.of(profile: profile, plays: plays, settings: settings, rules: .standard, today: today, calendar: cal)
        let covered = (1...12).filter { joker.coveredByJoker(at(2026, 6, $0, 12, 0, cal), calendar: cal) }
        #expect(covered == [8])
        #expect(joker.coveredByJoker(at(2026, 6, 8, 0, 5, cal), calendar: cal) && joker.coveredByJoker(at(2026, 6, 8, 23, 55, cal), calendar: cal), "the whole local day")
        settings.streakPolicy = .pause
        let paused = PlayerStanding.of(profile: profile, plays: plays, settings: settings, rules: .standard, today: today, calendar: cal)
        #expect(!paused.coveredByJoker(at(2026, 6, 8, 12, 0, cal), calendar: cal))
        // Switched to jokers on day 1 (STREAK-3): the same day is covered.
        settings.streakPolicy = .joker
        settings.streakPolicyChanges = [StreakPolicyChange(at: at(2026, 6, 1, 7, 0, cal), from: .pause, to: .joker)]
        let switched = PlayerStanding.of(profile: profile, plays: plays, settings: settings, rules: .standard, today: today, calendar: cal)
        #expect((1...12).filter { switched.coveredByJoker(at(2026, 6, $0, 12, 0, cal), calendar: cal) } == [8])
        // Across the autumn's DST change (Berlin, Oct 25 2026): the covered day stays one day.
        let autumn = (19...25).map { QuestPlay(completedAt: at(2026, 10, $0, 8, 0, cal), measuredTaskSeconds: 600) } + [QuestPlay(completedAt: at(2026, 10, 27, 8, 0, cal), measuredTaskSeconds: 600)]
        settings.streakPolicyChanges = []
        let dst = PlayerStanding.of(profile: PlayerProfile.derived(totalXP: 800, plays: autumn, calendar: cal), plays: autumn, settings: settings, rules: .standard, today: at(2026, 10, 27, 9, 0, cal), calendar: cal)
        #expect((19...27).filter { dst.coveredByJoker(at(2026, 10, $0, 12, 0, cal), calendar: cal) } == [26])
    }

    @Test("the box's idle screen shows exactly the standing")
    func idleScreen() {
        var world = QuestWorld(routines: [], profile: PlayerProfile.derived(totalXP: 1_000, plays: [play(1)], calendar: cal), plays: [play(1)], calendar: cal, bootID: "b")
        world.settings.streakPolicy = .joker
        let now = at(2026, 6, 2, 9, 0, cal)
        let standing = PlayerStanding.of(world, rules: .standard, today: now)
        let (_, effects) = QuestMachine.start(QuestState(world: world), env: QuestEnvironment(now: now, newID: UUID()))
        guard case .display(.idle(let screen))? = effects.first(where: { if case .display = $0 { true } else { false } }) else {
            Issue.record("no idle screen")
            return
        }
        #expect(screen.level == standing.level && screen.levelProgress == standing.levelProgress)
        #expect(screen.streakText == standing.streakText && screen.calibrationSessionsLeft == standing.calibrationSessionsLeft)
    }
}

@Suite("A file's size as a person reads it")
struct ByteTextTests {
    @Test("KiB rounded up below a MiB, MiB to one decimal from there")
    func sizes() {
        #expect(ByteText.format(0) == "0 KiB")
        #expect(ByteText.format(1) == "1 KiB")
        #expect(ByteText.format(36_000) == "36 KiB")
        #expect(ByteText.format((1 << 20) - 1) == "1024 KiB")
        #expect(ByteText.format(1 << 20) == "1.0 MiB")
        #expect(ByteText.format(8_074_035) == "7.7 MiB")
        #expect(ByteText.format(64 << 20) == "64.0 MiB")
    }
}
