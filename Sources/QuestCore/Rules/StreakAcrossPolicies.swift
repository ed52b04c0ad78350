/// STREAK-3: the streak when the parent has switched the policy. Each policy judges only the
/// days it was in force: the days up to a switch are judged by the policy before it, the day
/// of the switch is never a missed day (the streak shown at the switch stays), and the days
/// after it by the new policy, which goes on from the streak reached. A joker policy starts
/// with no jokers; the pause policy goes on from the last day played.
public enum StreakAcrossPolicies: Sendable {
    public struct Result: Equatable, Sendable {
        public var streak: Int
        /// Jokers held when the policy now in force is the joker one.
        public var jokers: Int?
    }

    public static func evaluate(
        plays: [QuestPlay], changes: [StreakPolicyChange], today: Date, calendar: Calendar, rules: GameRules = .standard
    ) -> Result {
        var days = LocalHourResolver(timeZone: calendar.timeZone)
        let todayNumber = days.dayNumber(of: today)
        // Switches in the future (a clock set back since) are not yet in force.
        let switches = changes.filter { days.dayNumber(of: $0.at) <= todayNumber }.sorted { $0.at < $1.at }
        var playDays = Set<Int>(), goodDays = Set<Int>()
        for play in plays {
            let day = days.dayNumber(of: play.completedAt)
            guard day <= todayNumber else { continue }
            playDays.insert(day)
            if JokerStreakCalculator.isGoodQuest(play, rules: rules) { goodDays.insert(day) }
        }
        guard let firstPlay = playDays.min() else { return Result(streak: 0, jokers: (switches.last?.to ?? .pause) == .joker ? 0 : nil) }

        var streak = 0, jokers = 0
        var lastPlayed: Int?
        var policy = switches.first?.from ?? .pause
        var start = firstPlay
        for (index, segmentEnd) in (switches.map { days.dayNumber(of: $0.at) } + [todayNumber]).enumerated() {
            let isLast = index == switches.count
            if start <= segmentEnd {
                switch policy {
                case .pause:
                    for day in start...segmentEnd where playDays.contains(day) {
                        if let last = lastPlayed, day - last == 1 { streak += 1 } else { streak = max(streak, 1) }
                        lastPlayed = day
                    }
                case .joker:
                    // Every day of the segment, except that its last one (today, or the day of
                    // a switch) counts only once it is good.
                    var outcomes: [DayOutcome] = []
                    for day in start...segmentEnd {
                        if goodDays.contains(day) { outcomes.append(.good) } else if day < segmentEnd { outcomes.append(.bad) }
                        if playDays.contains(day) { lastPlayed = day }
                    }
                    let result = JokerStreakCalculator.evaluate(outcomes, startingStreak: streak, startingJokers: jokers, rules: rules)
                    streak = result.currentStreak
                    jokers = result.availableJokers
                }
            }
            if !isLast {
                policy = switches[index].to
                if policy == .joker { jokers = 0 }
                start = max(start, segmentEnd + 1)
            }
        }
        return Result(streak: streak, jokers: policy == .joker ? jokers : nil)
    }
}
