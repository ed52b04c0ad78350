public struct StreakUpdate: Codable, Equatable, Sendable {
    public var currentStreak: Int
    public var lastPlayedDate: Date
    /// True when this play added a day (so a milestone may be celebrated).
    public var increased: Bool
}

/// STREAK-1, the default *pause* policy: a gap pauses the streak, it never resets.
public enum StreakTracker: Sendable {
    /// STREAK-1 for one quest completed `today`: `advanced` on the calendar days since the
    /// last play (#49: one rule, not a second copy kept equal by a test).
    public static func updatedStreak(
        currentStreak: Int, lastPlayedDate: Date?, today: Date, calendar: Calendar = .current
    ) -> StreakUpdate {
        guard let lastPlayedDate else {
            let streak = advanced(currentStreak, lastPlayedDay: nil, playedOn: 0)
            return StreakUpdate(currentStreak: streak, lastPlayedDate: today, increased: streak > currentStreak)
        }
        let days = calendarDays(from: lastPlayedDate, to: today, calendar: calendar)
        let streak = advanced(currentStreak, lastPlayedDay: 0, playedOn: days)
        // Same day, or the wall clock went backwards: the last play stays the latest.
        return StreakUpdate(currentStreak: streak, lastPlayedDate: days <= 0 ? max(lastPlayedDate, today) : today,
                            increased: streak > currentStreak)
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
            streak = advanced(streak, lastPlayedDay: lastDay, playedOn: day)
            lastDay = max(lastDay ?? day, day)
            lastDate = date
        }
        return (streak, lastDate)
    }

    /// STREAK-1 for one more day played (local day numbers): the next day adds one, the same
    /// day nothing, a day after a gap resumes where the streak paused (at least 1).
    public static func advanced(_ streak: Int, lastPlayedDay: Int?, playedOn day: Int) -> Int {
        guard let last = lastPlayedDay else { return max(streak, 1) }
        switch day - last {
        case 1: return streak + 1
        case ...0: return streak
        default: return max(streak, 1)
        }
    }

    /// Whole calendar days between two instants (DST-safe: counts midnights, not 86 400 s).
    public static func calendarDays(from start: Date, to end: Date, calendar: Calendar) -> Int {
        calendar.dateComponents([.day], from: calendar.startOfDay(for: start), to: calendar.startOfDay(for: end)).day ?? 0
    }

    /// Streak lengths worth a celebration (§6 streak milestone sound).
    public static let milestones: Set<Int> = [3, 7, 14, 21, 30, 50, 75, 100, 150, 200, 250, 300, 365, 500, 730, 1000]

    public static func isMilestone(_ streak: Int) -> Bool { milestones.contains(streak) }
}
