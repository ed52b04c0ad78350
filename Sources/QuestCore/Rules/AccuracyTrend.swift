public struct DailyAccuracy: Codable, Equatable, Sendable {
    public var day: Date
    public var averageAccuracy: Double
    public var estimationCount: Int
}

/// TREND-1: the average accuracy of each played day over the last 30 days (today included).
public enum AccuracyTrend: Sendable {
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
