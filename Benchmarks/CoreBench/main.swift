// Benchmark for the analysis the stats view and the weekly card need, on five years of
// daily play: insights, the weekly reflection of last week, the 4-week reflection
// history, the 30-day trend and personal bests. Run in release mode:
//
//   swift run -c release core-bench [--iterations N] [--breakdown]
//
// Prints figures; it is not a pass/fail test (targets are judged by a person, not a timer).
import Foundation
import HistoryFixtures
import QuestCore

let iterations = CommandLine.arguments.firstIndex(of: "--iterations").flatMap { i in
    CommandLine.arguments.dropFirst(i + 1).first.flatMap(Int.init)
} ?? 50

let history = FiveYears()
let calendar = history.calendar
let end = history.end
let snapshots = history.snapshots
let sessions = history.sessions

func workload() -> StatsWorkload { StatsWorkload.run(snapshots: snapshots, sessions: sessions, calendar: calendar, end: end) }

let clock = SuspendingClock()
var first: StatsWorkload?
let firstTime = Timing.milliseconds(clock.measure { first = workload() })
var times: [Double] = []
for _ in 0..<iterations {
    var out: StatsWorkload?
    times.append(Timing.milliseconds(clock.measure { out = workload() }))
    precondition(out?.insights.count == first?.insights.count)
}

#if DEBUG
print("warning: debug build — run with `swift run -c release core-bench` for real figures")
#endif
print("core-bench: \(snapshots.count) estimations, \(sessions.count) sessions, 3 routines, 12 tasks, \(history.days) days")
print("workload: insights + last week's reflection + 4-week history + 30-day trend + personal bests")
print(String(format: "first run  %8.2f ms", firstTime))
print("           " + Timing.summary(times))
print("target     ≤ 20 ms: \(Timing.median(times) <= 20 ? "met" : "NOT met")")
if let f = first {
    print("checks: \(f.insights.count) task insights, \(f.history.count) past reflections, \(f.trend.count) trend days, \(f.bests.count) personal bests, last week \(f.reflection.weekIdentifier): \(f.reflection.questsCompleted) quests")
}

// Where the time goes, part by part (median of the runs).
if CommandLine.arguments.contains("--breakdown") {
    let lastWeek = WeeklyReflectionEngine.previousWeekBounds(from: end, calendar: calendar)?.start ?? end
    let parts: [(String, () -> Void)] = [
        ("insight index (build)", { _ = InsightIndex(snapshots: snapshots, calendar: calendar) }),
        ("insights (all history)", { _ = InsightEngine.generateInsights(snapshots: snapshots, calendar: calendar) }),
        ("last week's reflection", { _ = WeeklyReflectionEngine.computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: lastWeek, calendar: calendar) }),
        ("4-week reflection history", { _ = WeeklyReflectionEngine.recentReflections(snapshots: snapshots, sessions: sessions, now: end, calendar: calendar) }),
        ("30-day trend", { _ = AccuracyTrend.dailyAverages(snapshots: snapshots, now: end, calendar: calendar) }),
        ("personal bests", { _ = PersonalBestTracker.personalBests(from: snapshots) }),
    ]
    for (label, run) in parts {
        let t = (0..<max(5, iterations / 5)).map { _ in Timing.milliseconds(clock.measure(run)) }
        print("  " + label.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%8.2f ms", Timing.median(t)))
    }
}

// The machine's share of a press's way to its LED: one `QuestMachine.step` per button edge
// of a ten-task quest (the edges the daemon feeds it, with a fresh environment each), timed
// edge by edge. The HIL figures measure the whole way on a kernel; this is the pure part.
if CommandLine.arguments.contains("--press-path") {
    // #35: `--voice`, the box speaking (its words are made in the step).
    let voiced = CommandLine.arguments.contains("--voice")
    let tasks = (1...10).map { RoutineTask(id: UUID(), name: "task-\($0)", displayName: "Task \($0)") }
    let routine = Routine(id: UUID(), name: "morning", displayName: "Morning", activeDays: Array(1...7), tasks: tasks)
    let world = QuestWorld(routines: [routine], calendar: calendar, bootID: "bench")
    var byKind: [String: [Double]] = [:]
    let wallStart = end.addingTimeInterval(-12 * 3600)
    for _ in 0..<max(20, iterations) {
        var state = QuestState(world: world, rules: GameRules())
        state.voice.speaks = voiced
        let t0: MonotonicNanos = 1_000_000_000
        state = QuestMachine.start(state, env: QuestEnvironment(now: wallStart, newID: UUID())).0
        var t = t0
        func edge(_ kind: String, _ role: ButtonRole) {
            for pressed in [true, false] {
                let env = QuestEnvironment(now: wallStart.addingTimeInterval(Double(t - t0) / 1e9), newID: UUID())
                var next = state
                let d = clock.measure { next = QuestMachine.step(state, .button(role, pressed: pressed, atNanos: t), env: env).0 }
                state = next
                if pressed { byKind[kind, default: []].append(Timing.milliseconds(d) * 1000) }
                t += 100_000_000
            }
            t += 2_000_000_000
        }
        edge("start quest", .lock)
        for _ in tasks {
            edge("lock-in", .lock)
            t += 5_000_000_000
            edge("stop (reveal)", .stop)
            edge("next", .lock)
        }
    }
    print("machine step per press edge, µs (\(max(20, iterations)) quests of 10 tasks, voice \(voiced ? "on" : "off")):")
    for kind in ["start quest", "lock-in", "stop (reveal)", "next"] {
        let v = (byKind[kind] ?? []).sorted()
        guard !v.isEmpty else { continue }
        print("  " + kind.padding(toLength: 14, withPad: " ", startingAt: 0)
              + String(format: "p50 %7.1f  p99 %7.1f  max %7.1f", Timing.percentile(v, 0.5), Timing.percentile(v, 0.99), v.last ?? 0))
    }
}
