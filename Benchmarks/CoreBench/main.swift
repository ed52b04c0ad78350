// Benchmark for the analysis the stats view and the weekly card need, on five years of
// daily play: insights, the weekly reflection of last week, the 4-week reflection
// history, the 30-day trend and personal bests. Run in release mode:
//
//   swift run -c release core-bench [--iterations N]
//
// Prints figures; it is not a pass/fail test (targets are judged by a person, not a timer).
import Foundation
import QuestCore

let iterations = CommandLine.arguments.firstIndex(of: "--iterations").flatMap { i in
    CommandLine.arguments.dropFirst(i + 1).first.flatMap(Int.init)
} ?? 50

var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
calendar.firstWeekday = 2

// Deterministic pseudo-random numbers (SplitMix64), so every run measures the same data.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// 3 routines × 4 tasks; every day all three, plus a replay of one of them: 16 estimations a day.
let routineNames = ["Morning Quest", "After School", "Bedtime"]
let taskNames = [["Tooth Time", "Get Dressed", "Breakfast", "Pack Bag"],
                 ["Snack", "Homework", "Tidy Desk", "Practice"],
                 ["Shower", "Pyjamas", "Read", "Lights Out"]]
let taskIDs = (0..<3).map { r in (0..<4).map { t in QuestSimulator.sequentialID(0x100 * (r + 1) + t) } }
let typical: [[Double]] = [[120, 300, 600, 240], [300, 1800, 420, 900], [480, 180, 1200, 60]]

let end = calendar.date(from: DateComponents(year: 2026, month: 11, day: 21, hour: 20))!
let days = 5 * 365 + 1
var rng = SplitMix(state: 42)
var snapshots: [EstimationSnapshot] = []
var sessions: [GameSession] = []
snapshots.reserveCapacity(days * 16)
for d in 0..<days {
    let day = calendar.date(byAdding: .day, value: d - days, to: calendar.startOfDay(for: end))!
    for (slot, r) in [0, 1, 2, d % 3].enumerated() {
        let hour = [7, 15, 20, 18][slot]
        let start = calendar.date(byAdding: .hour, value: hour, to: day)!
        let sessionID = QuestSimulator.sequentialID(1_000_000 + d * 4 + slot)
        let calibration = d == 0
        for t in 0..<4 {
            let actual = typical[r][t] * Double.random(in: 0.7...1.4, using: &rng)
            let estimate = (typical[r][t] * Double.random(in: 0.6...1.3, using: &rng) / 15).rounded() * 15
            snapshots.append(EstimationSnapshot(
                taskID: taskIDs[r][t], taskDisplayName: taskNames[r][t], routineDisplayName: routineNames[r],
                estimatedSeconds: max(15, estimate), actualSeconds: actual,
                recordedAt: start.addingTimeInterval(Double(t) * 400), isCalibration: calibration, sessionID: sessionID))
        }
        sessions.append(GameSession(
            id: sessionID, routineID: QuestSimulator.sequentialID(r + 1), routineDisplayName: routineNames[r], startedAt: start,
            startedMonotonicNanos: 0, bootID: "bench", completedAt: start.addingTimeInterval(1600), status: .completed,
            isCalibration: calibration, xpEarned: 200))
    }
}

struct Output {
    var insights: [TaskInsight]
    var reflection: WeeklyReflection
    var history: [WeeklyReflection]
    var trend: [DailyAccuracy]
    var bests: [PersonalBest]
}

@MainActor
func workload() -> Output {
    // As the stats view does it: the history is indexed once and every question reuses it.
    let index = InsightIndex(snapshots: snapshots, calendar: calendar)
    let insights = index.insights()
    let lastWeek = WeeklyReflectionEngine.previousWeekBounds(from: end, calendar: calendar)!.start
    let reflection = WeeklyReflectionEngine.computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: lastWeek, calendar: calendar, index: index)
    let history = WeeklyReflectionEngine.recentReflections(snapshots: snapshots, sessions: sessions, now: end, calendar: calendar, index: index)
    let trend = AccuracyTrend.dailyAverages(snapshots: snapshots, now: end, calendar: calendar)
    let bests = PersonalBestTracker.personalBests(from: snapshots)
    return Output(insights: insights, reflection: reflection, history: history, trend: trend, bests: bests)
}

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
}

let clock = SuspendingClock()
var first: Output?
let firstTime = clock.measure { first = workload() }
var times: [Double] = []
for _ in 0..<iterations {
    var out: Output?
    times.append(milliseconds(clock.measure { out = workload() }))
    precondition(out?.insights.count == first?.insights.count)
}
times.sort()
@MainActor func pct(_ p: Double) -> Double { times[min(times.count - 1, Int(Double(times.count - 1) * p))] }

#if DEBUG
print("warning: debug build — run with `swift run -c release core-bench` for real figures")
#endif
print("core-bench: \(snapshots.count) estimations, \(sessions.count) sessions, 3 routines, 12 tasks, \(days) days")
print("workload: insights + last week's reflection + 4-week history + 30-day trend + personal bests")
print(String(format: "first run  %8.2f ms", milliseconds(firstTime)))
print(String(format: "median     %8.2f ms   (p90 %.2f ms, min %.2f ms, max %.2f ms, %d runs)", pct(0.5), pct(0.9), times.first!, times.last!, times.count))
print("target     ≤ 20 ms: \(pct(0.5) <= 20 ? "met" : "NOT met")")
if let f = first {
    print("checks: \(f.insights.count) task insights, \(f.history.count) past reflections, \(f.trend.count) trend days, \(f.bests.count) personal bests, last week \(f.reflection.weekIdentifier): \(f.reflection.questsCompleted) quests")
}

// Where the time goes, part by part (median of the runs).
if CommandLine.arguments.contains("--breakdown") {
    let lastWeek = WeeklyReflectionEngine.previousWeekBounds(from: end, calendar: calendar)!.start
    let parts: [(String, () -> Void)] = [
        ("insight index (build)", { _ = InsightIndex(snapshots: snapshots, calendar: calendar) }),
        ("insights (all history)", { _ = InsightEngine.generateInsights(snapshots: snapshots, calendar: calendar) }),
        ("last week's reflection", { _ = WeeklyReflectionEngine.computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: lastWeek, calendar: calendar) }),
        ("4-week reflection history", { _ = WeeklyReflectionEngine.recentReflections(snapshots: snapshots, sessions: sessions, now: end, calendar: calendar) }),
        ("30-day trend", { _ = AccuracyTrend.dailyAverages(snapshots: snapshots, now: end, calendar: calendar) }),
        ("personal bests", { _ = PersonalBestTracker.personalBests(from: snapshots) }),
    ]
    for (label, run) in parts {
        var t: [Double] = []
        for _ in 0..<max(5, iterations / 5) { t.append(milliseconds(clock.measure(run))) }
        t.sort()
        print(String(format: "  %-28@ %8.2f ms", label as NSString, t[t.count / 2]))
    }
}
