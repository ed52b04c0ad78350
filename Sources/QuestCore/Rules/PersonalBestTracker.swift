public struct PersonalBest: Codable, Equatable, Sendable {
    public var taskKey: String
    public var taskDisplayName: String
    public var absDifferenceSeconds: Double
    public var recordedAt: Date
}

/// PB-1: a task's personal best is its smallest |difference| ever.
public enum PersonalBestTracker {
    /// Beating needs a previous best to beat: the first try sets it without a celebration.
    public static func isNewPersonalBest(absDifference: Double, previousBest: Double?) -> Bool {
        guard let previousBest else { return false }
        return absDifference < previousBest
    }

    /// One entry per task, closest first; ties keep the earliest.
    public static func personalBests(from snapshots: [EstimationSnapshot]) -> [PersonalBest] {
        var best: [String: PersonalBest] = [:]
        for s in snapshots.sorted(by: { $0.recordedAt < $1.recordedAt }) {
            let key = s.taskKey
            if let current = best[key] {
                // Keep the latest display name; replace only when strictly closer.
                if s.absDifferenceSeconds < current.absDifferenceSeconds {
                    best[key] = PersonalBest(
                        taskKey: key, taskDisplayName: s.taskDisplayName,
                        absDifferenceSeconds: s.absDifferenceSeconds, recordedAt: s.recordedAt)
                } else {
                    best[key]?.taskDisplayName = s.taskDisplayName
                }
            } else {
                best[key] = PersonalBest(
                    taskKey: key, taskDisplayName: s.taskDisplayName,
                    absDifferenceSeconds: s.absDifferenceSeconds, recordedAt: s.recordedAt)
            }
        }
        return best.values.sorted {
            ($0.absDifferenceSeconds, $0.taskDisplayName) < ($1.absDifferenceSeconds, $1.taskDisplayName)
        }
    }
}

public struct DailyAccuracy: Codable, Equatable, Sendable {
    public var day: Date
    public var averageAccuracy: Double
    public var estimationCount: Int
}

/// TREND-1: the average accuracy of each played day over the last 30 days (today included).
public enum AccuracyTrend {
    public static func dailyAverages(
        snapshots: [EstimationSnapshot], now: Date, days: Int = 30, calendar: Calendar
    ) -> [DailyAccuracy] {
        let todayStart = calendar.startOfDay(for: now)
        guard let windowStart = calendar.date(byAdding: .day, value: -(days - 1), to: todayStart),
              let windowEnd = calendar.date(byAdding: .day, value: 1, to: todayStart)
        else { return [] }
        var sums: [Date: (total: Double, count: Int)] = [:]
        for s in snapshots where s.recordedAt >= windowStart && s.recordedAt < windowEnd {
            let day = calendar.startOfDay(for: s.recordedAt)
            sums[day, default: (0, 0)].total += s.accuracyPercent
            sums[day, default: (0, 0)].count += 1
        }
        return sums.map { DailyAccuracy(day: $0.key, averageAccuracy: $0.value.total / Double($0.value.count), estimationCount: $0.value.count) }
            .sorted { $0.day < $1.day }
    }
}
