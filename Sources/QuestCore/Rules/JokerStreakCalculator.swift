public enum DayOutcome: String, Codable, Sendable, Equatable {
    case good
    case bad
}

public struct JokerStreakResult: Codable, Equatable, Sendable {
    public var currentStreak: Int
    public var availableJokers: Int
    public var jokersEarned: Int
    public var jokersConsumed: Int
    /// The positions in the evaluated days of the missed days a joker covered (#33: the
    /// calendar marks them).
    public var jokerDayIndices: [Int] = []
}

/// STREAK-2, the optional *joker* policy (seed 002).
public enum JokerStreakCalculator: Sendable {
    /// Iterates forward, oldest day first. On each day the joker for reaching a multiple of
    /// seven is earned before the day is judged (the day-7 case); a bad day then spends a
    /// joker if there is one, else the streak ends.
    /// `startingStreak` and `startingJokers`: where an earlier policy left the streak
    /// (STREAK-3); the day count goes on from it, so milestones of seven stay where they fall.
    public static func evaluate(
        _ days: [DayOutcome], startingStreak: Int = 0, startingJokers: Int = 0, rules: GameRules = .standard
    ) -> JokerStreakResult {
        var streak = startingStreak, jokers = startingJokers, earned = 0, consumed = 0
        var covered: [Int] = []
        for (index, day) in days.enumerated() {
            let candidate = streak + 1
            if candidate % rules.jokerEveryGoodDays == 0 {
                earned += 1
                jokers = min(rules.maxJokers, jokers + 1)  // one earned at the cap is forfeited
            }
            switch day {
            case .good:
                streak = candidate
            case .bad where jokers > 0:
                jokers -= 1
                consumed += 1
                covered.append(index)
                streak = candidate  // a healed day counts toward the next milestone
            case .bad:
                streak = 0
            }
        }
        return JokerStreakResult(
            currentStreak: streak, availableJokers: jokers, jokersEarned: earned, jokersConsumed: consumed, jokerDayIndices: covered)
    }

    /// A day is good with at least one completed quest whose measured task time, rounded to
    /// the nearest minute, reaches the minimum (2 min by default).
    public static func isGoodQuest(_ play: QuestPlay, rules: GameRules = .standard) -> Bool {
        (play.measuredTaskSeconds / 60).rounded(.toNearestOrAwayFromZero) >= Double(rules.goodDayMinimumMinutes)
    }

    /// Every calendar day from the first play day through yesterday — gaps included as bad
    /// days — plus today only once today is good (today's grace).
    public static func dayOutcomes(
        plays: [QuestPlay], today: Date, calendar: Calendar, rules: GameRules = .standard
    ) -> [DayOutcome] {
        // Local calendar-day numbers from cached UTC offsets: years of history cost no
        // calendar arithmetic per day, and a DST day is still exactly one day.
        var days = LocalHourResolver(timeZone: calendar.timeZone)
        guard let first = plays.map({ days.dayNumber(of: $0.completedAt) }).min() else { return [] }
        let todayNumber = days.dayNumber(of: today)
        var good = Set<Int>()
        for play in plays where isGoodQuest(play, rules: rules) { good.insert(days.dayNumber(of: play.completedAt)) }
        return outcomes(goodDays: good, from: first, through: todayNumber)
    }

    /// The outcome of each day number from `first` through `last`, gaps as bad days, except
    /// that `last` (today, or the day of a policy switch) counts only once it is good.
    public static func outcomes(goodDays good: Set<Int>, from first: Int, through last: Int) -> [DayOutcome] {
        var outcomes: [DayOutcome] = []
        if first < last {
            outcomes.reserveCapacity(last - first + 1)
            for day in first..<last { outcomes.append(good.contains(day) ? .good : .bad) }
        }
        if first <= last, good.contains(last) { outcomes.append(.good) }
        return outcomes
    }

    public static func evaluate(
        plays: [QuestPlay], today: Date, calendar: Calendar, rules: GameRules = .standard
    ) -> JokerStreakResult {
        evaluate(dayOutcomes(plays: plays, today: today, calendar: calendar, rules: rules), rules: rules)
    }
}
