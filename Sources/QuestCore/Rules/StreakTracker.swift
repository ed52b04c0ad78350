public struct StreakUpdate: Codable, Equatable, Sendable {
    public var currentStreak: Int
    public var lastPlayedDate: Date
    /// True when this play added a day (so a milestone may be celebrated).
    public var increased: Bool
}

/// STREAK-1, the default *pause* policy: a gap pauses the streak, it never resets.
public enum StreakTracker: Sendable {
    public static func updatedStreak(
        currentStreak: Int, lastPlayedDate: Date?, today: Date, calendar: Calendar = .current
    ) -> StreakUpdate {
        guard let lastPlayedDate else {
            return StreakUpdate(currentStreak: 1, lastPlayedDate: today, increased: true)
        }
        let days = calendarDays(from: lastPlayedDate, to: today, calendar: calendar)
        switch days {
        case 1:
            return StreakUpdate(currentStreak: currentStreak + 1, lastPlayedDate: today, increased: true)
        case ...0:
            // Same day, or the wall clock went backwards: nothing changes.
            return StreakUpdate(currentStreak: currentStreak, lastPlayedDate: max(lastPlayedDate, today), increased: false)
        default:
            // A gap: the streak resumes where it paused.
            return StreakUpdate(currentStreak: max(currentStreak, 1), lastPlayedDate: today, increased: currentStreak == 0)
        }
    }

    /// STREAK-1 over a whole history: the streak and last play day that `updatedStreak` gives
    /// when applied to every completed quest in time order, computed on local day numbers (years
    /// of plays cost no calendar arithmetic per play). The store derives the profile with it,
    /// so the streak is a fact of the history and not of any process's memory.
    public static func replay(playedAt dates: [Date], calendar: Calendar) -> (currentStreak: Int, lastPlayedDate: Date?) {
        var days = LocalHourResolver(timeZone: calendar.timeZone)
        var streak = 0
        var lastDay: Int?
        var lastDate: Date?
        for date in dates.sorted() {
            let day = days.dayNumber(of: date)
            if let previous = lastDay {
                if day - previous == 1 { streak += 1 } else if day - previous > 1 { streak = max(streak, 1) }
                lastDay = max(previous, day)
            } else {
                streak = 1
                lastDay = day
            }
            lastDate = date
        }
        return (streak, lastDate)
    }

    /// Whole calendar days between two instants (DST-safe: counts midnights, not 86 400 s).
    public static func calendarDays(from start: Date, to end: Date, calendar: Calendar) -> Int {
        calendar.dateComponents([.day], from: calendar.startOfDay(for: start), to: calendar.startOfDay(for: end)).day ?? 0
    }

    /// Streak lengths worth a celebration (§6 streak milestone sound).
    public static let milestones: Set<Int> = [3, 7, 14, 21, 30, 50, 75, 100, 150, 200, 250, 300, 365, 500, 730, 1000]

    public static func isMilestone(_ streak: Int) -> Bool { milestones.contains(streak) }
}

public enum DayOutcome: String, Codable, Sendable, Equatable {
    case good
    case bad
}

public struct JokerStreakResult: Codable, Equatable, Sendable {
    public var currentStreak: Int
    public var availableJokers: Int
    public var jokersEarned: Int
    public var jokersConsumed: Int
}

/// STREAK-2, the optional *joker* policy (seed 002).
public enum JokerStreakCalculator: Sendable {
    /// Iterates forward, oldest day first. On each day the joker for reaching a multiple of
    /// seven is earned before the day is judged (the day-7 case); a bad day then spends a
    /// joker if there is one, else the streak ends.
    public static func evaluate(_ days: [DayOutcome], rules: GameRules = .standard) -> JokerStreakResult {
        var streak = 0, jokers = 0, earned = 0, consumed = 0
        for day in days {
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
                streak = candidate  // a healed day counts toward the next milestone
            case .bad:
                streak = 0
            }
        }
        return JokerStreakResult(currentStreak: streak, availableJokers: jokers, jokersEarned: earned, jokersConsumed: consumed)
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
        var outcomes: [DayOutcome] = []
        if first < todayNumber {
            outcomes.reserveCapacity(todayNumber - first + 1)
            for day in first..<todayNumber { outcomes.append(good.contains(day) ? .good : .bad) }
        }
        if good.contains(todayNumber) { outcomes.append(.good) }
        return outcomes
    }

    public static func evaluate(
        plays: [QuestPlay], today: Date, calendar: Calendar, rules: GameRules = .standard
    ) -> JokerStreakResult {
        evaluate(dayOutcomes(plays: plays, today: today, calendar: calendar, rules: rules), rules: rules)
    }
}
