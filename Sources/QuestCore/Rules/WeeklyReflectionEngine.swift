/// REFL-1: the "sports score card" for one week (every field of seed 000).
public struct WeeklyReflection: Codable, Equatable, Sendable {
    public var weekStartDate: Date
    public var weekEndDate: Date
    /// ISO `YYYY-Www` of the week (see `WeeklyReflectionEngine.weekIdentifier(ofWeekStarting:)`).
    public var weekIdentifier: String
    /// The week's dates as a player reads them: "Nov 16–22", "Nov 30 – Dec 6".
    public var weekDates: String
    /// Every quest completed that week, learning quests (CAL-1) included.
    public var questsCompleted: Int
    /// Of those, the learning quests: left out of the accuracy only.
    public var learningQuests: Int
    /// Over the week's estimations after learning (0 when there are none).
    public var averageAccuracy: Double
    /// Absent when either week has nothing to compare.
    public var accuracyChangeVsPriorWeek: Double?
    public var bestEstimateTaskName: String?
    public var bestEstimateAccuracy: Double?
    public var mostImprovedTaskName: String?
    public var mostImprovedDelta: Double?
    public var daysPlayedThisWeek: Int
    public var totalDaysInWeek: Int
    public var patternHighlight: String?
    public var hasGaps: Bool
    public var totalEstimations: Int
    /// #48 (seed 000's streak context): her streak when the box shows the card; nil where
    /// nobody set it (the stats page's past weeks) or with no streak.
    public var streak: Int? = nil

    /// "streak 12" beside the days played, when there is one.
    public var streakWords: String? { streak.flatMap { $0 > 0 ? "streak \($0)" : nil } }

    /// Always the positive count ("5 of 7 days"), never the days missed.
    public var streakContextString: String { "\(daysPlayedThisWeek) of \(totalDaysInWeek) days" }
    public var isMeaningful: Bool { questsCompleted > 0 }

    /// Quests whose estimations count for accuracy.
    public var scoredQuests: Int { questsCompleted - learningQuests }

    /// The accuracy as a number to show, or nil when the week had only learning quests.
    public var accuracyText: String? { totalEstimations > 0 ? "\(Int(averageAccuracy.rounded()))%" : nil }

    /// What the learning quests did to the accuracy, when the week had any.
    public var learningLine: String? {
        guard learningQuests > 0 else { return nil }
        guard totalEstimations > 0 else {
            return learningQuests == 1 ? "It was a learning quest: accuracy counts from the next one"
                : "All \(learningQuests) were learning quests: accuracy counts from the next one"
        }
        return "Accuracy from \(CountText.counted(scoredQuests, "quest")); " + (learningQuests == 1 ? "the first was for learning" : "the first \(learningQuests) were for learning")
    }

    /// The card in words, absorbable in 15 seconds (seed 000): counts, never what was missed.
    public var summaryLines: [String] {
        var lines = ["Your week \(weekDates)", "\(CountText.counted(questsCompleted, "quest")) · \(streakContextString)" + (streakWords.map { " · \($0)" } ?? "")]
        if let accuracy = accuracyText {
            lines.append("Average accuracy \(accuracy)" + (accuracyChangeVsPriorWeek.map { change in
                let points = Int(change.rounded())
                return points == 0 ? " (same as the week before)" : " (\(points > 0 ? "+" : "")\(points) vs the week before)"
            } ?? ""))
        }
        if let learning = learningLine { lines.append(learning) }
        if let name = bestEstimateTaskName, let accuracy = bestEstimateAccuracy {
            lines.append("Best estimate: \(name), \(Int(accuracy.rounded()))%")
        }
        if let name = mostImprovedTaskName { lines.append("Most improved: \(name)") }
        if let highlight = patternHighlight { lines.append(highlight) }
        return lines
    }
}

public enum WeeklyReflectionEngine: Sendable {
    public static let mostImprovedMinimumPerWeek = 2
    public static let historyWeeks = 4

    /// The week (start inclusive, end exclusive) containing `date`, from the calendar: its
    /// `firstWeekday` picks Sunday- or Monday-first weeks, its time zone places midnight.
    public static func weekBounds(containing date: Date, calendar: Calendar) -> (start: Date, end: Date)? {
        guard let interval = calendar.dateInterval(of: .weekOfYear, for: date) else { return nil }
        // Calendar arithmetic, not 7·86 400 s: DST weeks are 167 or 169 hours long.
        guard let end = calendar.date(byAdding: .day, value: 7, to: interval.start) else { return nil }
        return (interval.start, calendar.startOfDay(for: end))
    }

    /// The week before the one containing `date`.
    public static func previousWeekBounds(from date: Date, calendar: Calendar) -> (start: Date, end: Date)? {
        guard let current = weekBounds(containing: date, calendar: calendar),
              let prior = calendar.date(byAdding: .day, value: -7, to: current.start)
        else { return nil }
        return weekBounds(containing: prior, calendar: calendar)
    }

    /// ISO 8601 `YYYY-Www` of the day `date` falls on in `timeZone`.
    public static func weekIdentifier(for date: Date, timeZone: TimeZone = .gmt) -> String {
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = timeZone
        let year = iso.component(.yearForWeekOfYear, from: date)
        let week = iso.component(.weekOfYear, from: date)
        return "\(year)-W" + (week < 10 ? "0\(week)" : "\(week)")
    }

    /// A week is named by the ISO week of its fourth day: for Monday-first weeks that is the
    /// ISO week itself; for Sunday-first weeks it is the ISO week holding six of its days.
    public static func weekIdentifier(ofWeekStarting start: Date, calendar: Calendar) -> String {
        let midweek = calendar.date(byAdding: .day, value: 3, to: start) ?? start
        return weekIdentifier(for: midweek, timeZone: calendar.timeZone)
    }

    /// The reflection of the week containing `date`. `snapshots` may be the whole history
    /// (insights for the highlight use what was known by the week's end); `sessions` are the
    /// player's sessions, of which completed non-calibration ones count as quests.
    ///
    /// Pass an `InsightIndex` of the same history when computing several weeks.
    public static func computeReflection(
        snapshots: [EstimationSnapshot], sessions: [GameSession], weekContaining date: Date, calendar: Calendar,
        index: InsightIndex? = nil
    ) -> WeeklyReflection {
        let bounds = weekBounds(containing: date, calendar: calendar) ?? (date, date)
        let prior = previousWeekBounds(from: bounds.start, calendar: calendar) ?? (bounds.start, bounds.start)
        // One pass over the history; only the two weeks' estimations are copied.
        var week: [EstimationSnapshot] = [], priorWeek: [EstimationSnapshot] = []
        var days = Set<Date>()
        for s in snapshots where s.recordedAt >= prior.start && s.recordedAt < bounds.end {
            if s.recordedAt >= bounds.start { days.insert(calendar.startOfDay(for: s.recordedAt)) }
            guard !s.isCalibration else { continue }
            if s.recordedAt >= bounds.start { week.append(s) } else if s.recordedAt < prior.end { priorWeek.append(s) }
        }

        // Quests come from completed sessions, not from estimations (seed 000 pitfall 3); every
        // quest played counts, the learning ones (CAL-1) are left out of the accuracy only.
        let completed = sessions.filter {
            $0.status == .completed && ($0.completedAt.map { $0 >= bounds.start && $0 < bounds.end } ?? false)
        }
        let average = InsightEngine.mean(week.map(\.accuracyPercent))
        let change: Double? =
            (week.isEmpty || priorWeek.isEmpty) ? nil : average - InsightEngine.mean(priorWeek.map(\.accuracyPercent))
        let best = week.enumerated().max { a, b in
            a.element.accuracyPercent < b.element.accuracyPercent
                || (a.element.accuracyPercent == b.element.accuracyPercent && a.offset > b.offset)
        }?.element
        let improved = mostImprovedTask(thisWeek: week, priorWeek: priorWeek)

        for s in completed { if let at = s.completedAt { days.insert(calendar.startOfDay(for: at)) } }

        // Insights from what was known by the week's end, for the tasks played that week.
        let played = Set(week.map(\.taskKey))
        let highlight = patternHighlight(
            insights: (index ?? InsightIndex(snapshots: snapshots, calendar: calendar)).insights(recordedBefore: bounds.end, onlyTasks: played),
            playedTaskKeys: played)

        return WeeklyReflection(
            weekStartDate: bounds.start, weekEndDate: bounds.end,
            weekIdentifier: weekIdentifier(ofWeekStarting: bounds.start, calendar: calendar),
            weekDates: datesText(start: bounds.start, end: bounds.end, calendar: calendar),
            questsCompleted: completed.count, learningQuests: completed.filter(\.isCalibration).count, averageAccuracy: average, accuracyChangeVsPriorWeek: change,
            bestEstimateTaskName: best?.taskDisplayName, bestEstimateAccuracy: best?.accuracyPercent,
            mostImprovedTaskName: improved?.name, mostImprovedDelta: improved?.delta,
            daysPlayedThisWeek: days.count, totalDaysInWeek: 7, patternHighlight: highlight,
            hasGaps: days.count < 7, totalEstimations: week.count)
    }

    /// "Nov 16–22", or "Nov 30 – Dec 6" across a month (and a year: "Dec 28 – Jan 3"); `end`
    /// is the day after the week.
    /// "Nov 16–22": the days from `start` up to `end` (exclusive), as the weekly card says them.
    public static func datesText(start: Date, end: Date, calendar: Calendar) -> String {
        let last = calendar.date(byAdding: .day, value: -1, to: end) ?? start
        let a = calendar.dateComponents([.month, .day], from: start), b = calendar.dateComponents([.month, .day], from: last)
        func month(_ c: DateComponents) -> String { CalendarWords.month(c.month) }
        let from = "\(month(a)) \(a.day ?? 1)"
        return a.month == b.month ? "\(from)–\(b.day ?? 1)" : "\(from) – \(month(b)) \(b.day ?? 1)"
    }

    /// Only tasks with at least two estimations in both weeks compete; the largest positive
    /// gain in average accuracy wins (ties: alphabetical).
    static func mostImprovedTask(thisWeek: [EstimationSnapshot], priorWeek: [EstimationSnapshot]) -> (name: String, delta: Double)? {
        let now = Dictionary(grouping: thisWeek, by: \.taskKey)
        let before = Dictionary(grouping: priorWeek, by: \.taskKey)
        var best: (name: String, delta: Double)?
        for (key, current) in now {
            guard current.count >= mostImprovedMinimumPerWeek, let previous = before[key],
                  previous.count >= mostImprovedMinimumPerWeek
            else { continue }
            let delta = InsightEngine.mean(current.map(\.accuracyPercent)) - InsightEngine.mean(previous.map(\.accuracyPercent))
            let name = (current.max { $0.recordedAt < $1.recordedAt } ?? current[0]).taskDisplayName
            guard delta > 0 else { continue }
            if let b = best, b.delta > delta || (b.delta == delta && b.name < name) { continue }
            best = (name, delta)
        }
        return best
    }

    /// One highlight for a task played that week: improving > bias > very consistent.
    static func patternHighlight(insights: [TaskInsight], playedTaskKeys: Set<TaskKey>) -> String? {
        let relevant = insights.filter { playedTaskKeys.contains($0.taskKey) }
        if let i = relevant.first(where: { $0.trend?.direction == .improving }) {
            return "Your \(i.taskDisplayName) estimates are getting closer over time"
        }
        if let i = relevant.first(where: { $0.bias.direction != .balanced }) {
            return "You tend to \(i.bias.direction == .overestimates ? "overestimate" : "underestimate") \(i.taskDisplayName)"
        }
        if let i = relevant.first(where: { $0.consistency.level == .veryConsistent }) {
            return "You read \(i.taskDisplayName) the same way each time"
        }
        return nil
    }

    /// Lazily, at the player's first interaction of a week: the previous week's reflection,
    /// unless that week was dismissed or had nothing to show.
    public static func pendingReflection(
        snapshots: [EstimationSnapshot], sessions: [GameSession], now: Date, calendar: Calendar, dismissedWeek: String?
    ) -> WeeklyReflection? {
        guard let previous = previousWeekBounds(from: now, calendar: calendar) else { return nil }
        let id = weekIdentifier(ofWeekStarting: previous.start, calendar: calendar)
        guard id != dismissedWeek else { return nil }
        let reflection = computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: previous.start, calendar: calendar)
        return reflection.isMeaningful ? reflection : nil
    }

    /// The last four finished weeks that had quests, newest first (the stats view).
    public static func recentReflections(
        snapshots: [EstimationSnapshot], sessions: [GameSession], now: Date, calendar: Calendar, weeks: Int = historyWeeks,
        index: InsightIndex? = nil
    ) -> [WeeklyReflection] {
        let index = index ?? InsightIndex(snapshots: snapshots, calendar: calendar)
        var result: [WeeklyReflection] = []
        var cursor = now
        for _ in 0..<weeks {
            guard let previous = previousWeekBounds(from: cursor, calendar: calendar) else { break }
            let r = computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: previous.start, calendar: calendar, index: index)
            if r.isMeaningful { result.append(r) }
            cursor = previous.start
        }
        return result
    }
}
