import Foundation
import QuestCore

/// Five years of daily play for the benchmarks, the same on every run: 3 routines × 4 tasks;
/// every day all three routines plus a replay of one, 16 estimations a day (≈ 29,000).
public struct FiveYears: Sendable {
    public let calendar: Calendar
    public let end: Date
    public let days: Int
    public let sessions: [GameSession]
    public let estimations: [TaskEstimation]

    public var snapshots: [EstimationSnapshot] { estimations.map(\.snapshot) }

    public init(endingAt endComponents: DateComponents = DateComponents(year: 2026, month: 11, day: 21, hour: 20), zone: String = "Europe/Berlin") {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: zone) ?? .gmt
        cal.firstWeekday = 2
        calendar = cal
        let end = cal.date(from: endComponents) ?? Date()
        self.end = end
        let days = 5 * 365 + 1
        self.days = days

        let routineNames = ["Morning Quest", "After School", "Bedtime"]
        let taskNames = [["Tooth Time", "Get Dressed", "Breakfast", "Pack Bag"],
                         ["Snack", "Homework", "Tidy Desk", "Practice"],
                         ["Shower", "Pyjamas", "Read", "Lights Out"]]
        let typical: [[Double]] = [[120, 300, 600, 240], [300, 1800, 420, 900], [480, 180, 1200, 60]]
        let routineIDs = (0..<3).map { QuestSimulator.sequentialID($0 + 1) }
        let taskIDs = (0..<3).map { r in (0..<4).map { t in QuestSimulator.sequentialID(0x100 * (r + 1) + t) } }
        var rng = SplitMix64(state: 42)
        var sessions: [GameSession] = [], estimations: [TaskEstimation] = []
        sessions.reserveCapacity(days * 4)
        estimations.reserveCapacity(days * 16)
        var serial = 0x10_0000
        var mono: Int64 = 0
        for d in 0..<days {
            let day = cal.date(byAdding: .day, value: d - days, to: cal.startOfDay(for: end)) ?? end
            for (slot, r) in [0, 1, 2, d % 3].enumerated() {
                let start = cal.date(byAdding: .hour, value: [7, 15, 20, 18][slot], to: day) ?? day
                serial += 1
                let sessionID = QuestSimulator.sequentialID(serial)
                let calibration = d == 0
                var xp = XPEngine.sessionCompletionBonus
                for t in 0..<4 {
                    let actual = typical[r][t] * Double.random(in: 0.7...1.4, using: &rng)
                    let estimate = max(15, (typical[r][t] * Double.random(in: 0.6...1.3, using: &rng) / 15).rounded() * 15)
                    let result = TimeEstimationScorer.score(estimated: estimate, actual: actual)
                    let gained = XPEngine.xpForEstimation(rating: result.rating)
                    xp += gained
                    serial += 1
                    mono += 5_000_000_000
                    let lock = mono
                    mono += Int64(actual * 1e9)
                    estimations.append(TaskEstimation(
                        id: QuestSimulator.sequentialID(serial), sessionID: sessionID, taskID: taskIDs[r][t],
                        taskDisplayName: taskNames[r][t], routineDisplayName: routineNames[r], orderIndex: t, result: result,
                        xpEarned: gained, isCalibration: calibration, recordedAt: start.addingTimeInterval(Double(t) * 400),
                        lockMonotonicNanos: lock, stopMonotonicNanos: mono, bootID: "bench"))
                }
                sessions.append(GameSession(
                    id: sessionID, routineID: routineIDs[r], routineDisplayName: routineNames[r], startedAt: start,
                    startedMonotonicNanos: 0, bootID: "bench", completedAt: start.addingTimeInterval(1600), status: .completed,
                    isCalibration: calibration, xpEarned: xp))
            }
        }
        self.sessions = sessions
        self.estimations = estimations
    }
}

/// Deterministic pseudo-random numbers (SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Median and spread of timed runs, for printing.
public enum Timing {
    public static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
    }

    /// The `p` quantile (0…1) of samples already sorted; nan for none.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }

    public static func summary(_ samples: [Double]) -> String {
        let s = samples.sorted()
        guard !s.isEmpty else { return "no runs" }
        return String(format: "median %7.2f ms   (p90 %.2f ms, min %.2f ms, max %.2f ms, %d runs)", percentile(s, 0.5), percentile(s, 0.9), s[0], s[s.count - 1], s.count)
    }

    public static func median(_ samples: [Double]) -> Double {
        let s = samples.sorted()
        return s.isEmpty ? 0 : s[(s.count - 1) / 2]
    }
}

/// What the stats view computes from a history, the way it does it: the history indexed
/// once and every question reusing the index. Shared by the core and store benchmarks.
public struct StatsWorkload: Sendable {
    public var insights: [TaskInsight]
    public var reflection: WeeklyReflection
    public var history: [WeeklyReflection]
    public var trend: [DailyAccuracy]
    public var bests: [PersonalBest]

    public static func run(snapshots: [EstimationSnapshot], sessions: [GameSession], calendar: Calendar, end: Date) -> StatsWorkload {
        let index = InsightIndex(snapshots: snapshots, calendar: calendar)
        let lastWeek = WeeklyReflectionEngine.previousWeekBounds(from: end, calendar: calendar)?.start ?? end
        return StatsWorkload(
            insights: index.insights(),
            reflection: WeeklyReflectionEngine.computeReflection(
                snapshots: snapshots, sessions: sessions, weekContaining: lastWeek, calendar: calendar, index: index),
            history: WeeklyReflectionEngine.recentReflections(snapshots: snapshots, sessions: sessions, now: end, calendar: calendar, index: index),
            trend: AccuracyTrend.dailyAverages(snapshots: snapshots, now: end, calendar: calendar),
            bests: PersonalBestTracker.personalBests(from: snapshots))
    }
}
