import Foundation
import Testing
@testable import QuestCore

/// STREAK-3: switching the streak policy never lowers the streak shown at the switch; the new
/// policy judges the days after it.
@Suite("STREAK-3: a policy switch keeps the streak")
struct StreakSwitchTests {
    let cal = calendar("Europe/Berlin")
    let routine = uuid(0xC00)

    /// A good quest (5 min of tasks) at 07:10 on each day, `day` counted from 2026-03-01.
    func plays(_ days: [Int]) -> [QuestPlay] {
        days.map { QuestPlay(routineID: routine, completedAt: day($0, 7, 10), measuredTaskSeconds: 300) }
    }

    func day(_ n: Int, _ hour: Int = 12, _ minute: Int = 0) -> Date {
        cal.date(byAdding: .day, value: n, to: at(2026, 3, 1, hour, minute, cal))!
    }

    func standing(_ plays: [QuestPlay], policy: GameSettings.StreakPolicy, changes: [StreakPolicyChange], on today: Date) -> PlayerStanding {
        var settings = GameSettings(streakPolicy: policy)
        settings.streakPolicyChanges = changes
        return PlayerStanding.of(
            profile: .derived(totalXP: 0, plays: plays, calendar: cal), plays: plays, settings: settings, rules: .standard, today: today, calendar: cal)
    }

    /// Three runs of five days with a day missed between them (last play on day 16): the pause
    /// policy counts 13 (a run after a gap goes on from where it paused), the joker policy from
    /// scratch only 5 (no joker before a seventh day, so each gap ends the streak).
    var history: [Int] { Array(0..<5) + Array(6..<11) + Array(12..<17) }

    @Test("the issue's case: pause → joker at noon keeps 13 (not the joker policy's 5 over the whole history)")
    func pauseToJokerKeeps() {
        let p = plays(history)
        let today = day(16, 12)
        #expect(standing(p, policy: .pause, changes: [], on: today).streak == 13)
        #expect(standing(p, policy: .joker, changes: [], on: today).streak == 5, "without the stored switch the joker policy judges every day")
        let switched = [StreakPolicyChange(at: today, from: .pause, to: .joker)]
        let now = standing(p, policy: .joker, changes: switched, on: today.addingTimeInterval(60))
        #expect(now.streak == 13 && now.jokers == 0)
        // The days after it are the joker policy's: a good day adds one, a missed day with no
        // joker ends the streak.
        let next = plays(history + [17])
        #expect(standing(next, policy: .joker, changes: switched, on: day(17, 18)).streak == 14)
        #expect(standing(next, policy: .joker, changes: switched, on: day(18, 18)).streak == 14, "today's grace: not yet played")
        // Day 17 was the 14th day: it earned a joker, which heals day 18; day 19 missed too ends it.
        let healed = standing(next, policy: .joker, changes: switched, on: day(19, 8))
        #expect(healed.streak == 15 && healed.jokers == 0)
        #expect(standing(next, policy: .joker, changes: switched, on: day(20, 8)).streak == 0, "day 19 missed, no joker held")
    }

    @Test("the day of the switch is never a missed day: switched before playing that day, the streak waits for the next")
    func switchDayIsFree() {
        let p = plays(history)  // last play on day 16
        let switched = [StreakPolicyChange(at: day(17, 9), from: .pause, to: .joker)]
        #expect(standing(p, policy: .joker, changes: switched, on: day(17, 9, 5)).streak == 13)
        #expect(standing(p, policy: .joker, changes: switched, on: day(18, 8)).streak == 13, "day 17 (the switch) is not judged")
        #expect(standing(plays(history + [18]), policy: .joker, changes: switched, on: day(18, 8)).streak == 14)
        // A play later on the switch day still counts, under the policy before it.
        #expect(standing(plays(history + [17]), policy: .joker, changes: switched, on: day(17, 20)).streak == 14)
    }

    @Test("joker → pause keeps the joker streak; then a gap pauses it instead of ending it")
    func jokerToPause() {
        // Fourteen good days (two jokers earned), one missed and healed: the joker streak is 16.
        let p = plays(Array(0..<14) + [15])
        #expect(standing(p, policy: .joker, changes: [], on: day(15, 12)).streak == 16)
        #expect(standing(p, policy: .pause, changes: [], on: day(15, 12)).streak == 14, "the pause policy alone counts 14")
        let switched = [StreakPolicyChange(at: day(15, 12), from: .joker, to: .pause)]
        let now = standing(p, policy: .pause, changes: switched, on: day(15, 12, 1))
        #expect(now.streak == 16 && now.jokers == nil)
        // Days 16 and 17 missed: paused, not ended; day 18 played resumes it, day 19 adds one.
        #expect(standing(plays(Array(0..<14) + [15, 18, 19]), policy: .pause, changes: switched, on: day(19, 20)).streak == 17)
    }

    @Test("a joker streak carried in goes on counting toward the seventh day (the day-7 case stays where it falls)")
    func dayCountGoesOn() {
        // Pause streak 13 (days 0–12), switched to joker on day 12: day 13 is the 14th day and
        // earns a joker, which then heals day 14.
        let p = plays(Array(0..<13) + [13, 15])
        let switched = [StreakPolicyChange(at: day(12, 20), from: .pause, to: .joker)]
        let s = standing(p, policy: .joker, changes: switched, on: day(15, 20))
        #expect(s.streak == 16 && s.jokers == 0)
    }

    @Test("switched back and forth: each policy judges its own days; two switches in a day leave the last policy")
    func backAndForth() {
        let p = plays(history)
        let changes = [
            StreakPolicyChange(at: day(16, 9), from: .pause, to: .joker),
            StreakPolicyChange(at: day(16, 10), from: .joker, to: .pause),
        ]
        let s = standing(p, policy: .pause, changes: changes, on: day(16, 11))
        #expect(s.streak == 13 && s.jokers == nil)
        #expect(standing(plays(history + [19]), policy: .pause, changes: changes, on: day(19, 11)).streak == 13, "a gap under pause")
    }

    @Test("a switch dated after today (the clock was set back since) is not yet in force")
    func futureSwitch() {
        let p = plays(history)
        let changes = [StreakPolicyChange(at: day(40), from: .pause, to: .joker)]
        #expect(standing(p, policy: .joker, changes: changes, on: day(16, 12)).streak == 13)
        // The other way round: until it comes, the policy before it (joker) judges every day.
        let back = standing(p, policy: .pause, changes: [StreakPolicyChange(at: day(40), from: .joker, to: .pause)], on: day(16, 12))
        #expect(back.streak == 5 && back.jokers == 0)
    }

    @Test("the box celebrates a milestone the carried streak reaches under the new policy")
    func milestoneOnTheBox() {
        var settings = GameSettings(streakPolicy: .joker)
        settings.streakPolicyChanges = [StreakPolicyChange(at: day(16, 12), from: .pause, to: .joker)]
        let p = plays(history)
        let box = Box.morningWithRoutine(routineID: routine)
        var world = QuestWorld(
            routines: [box], profile: .derived(totalXP: 500, plays: p, calendar: cal), plays: p, settings: settings, calendar: cal, bootID: "b")
        world.profile.sessionsCompleted = 15
        // From 13, days 17–24 played under the joker policy: the eighth quest makes 21, a
        // milestone, and is celebrated.
        var sim = QuestSimulator(state: QuestState(world: world), wallClockStart: day(17, 7), ids: .sequential(next: 1))
        sim.start()
        var t: Int64 = 1 * second
        var celebrated: [Int] = []
        for n in 0..<8 {
            if n > 0 {
                t += 86_400 * second
                sim.send(.wallClockTick(atNanos: t), at: t)
            }
            for _ in 0..<2 {  // start, then the one task: lock in, stop after 5 min, go on
                sim.press(.lock, at: t); sim.release(.lock, at: t + 80 * milli); t += second
            }
            sim.press(.stop, at: t + 300 * second); sim.release(.stop, at: t + 300 * second + 80 * milli); t += 302 * second
            sim.press(.lock, at: t); sim.release(.lock, at: t + 80 * milli); t += second
            if case .display(.summary(let s))? = sim.allEffects.last(where: { if case .display(.summary) = $0 { true } else { false } }) {
                if let m = s.streakMilestone { celebrated.append(m) }
            }
            sim.press(.lock, at: t); sim.release(.lock, at: t + 80 * milli); t += second
        }
        #expect(celebrated.last == 21, "\(celebrated)")
        #expect(PlayerStanding.of(sim.state.world, rules: .standard, today: sim.wallClock).streak == 21)
    }
}

extension Box {
    /// A one-task routine for every day.
    static func morningWithRoutine(routineID: UUID) -> Routine {
        Routine(id: routineID, name: "one", displayName: "One Quest", activeDays: Array(1...7),
                tasks: [RoutineTask(id: uuid(0xC01), name: "t", displayName: "Teeth")])
    }
}
