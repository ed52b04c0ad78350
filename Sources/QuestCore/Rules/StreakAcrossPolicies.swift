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
        /// The local day numbers of the missed days a joker covered.
        var jokerDays: Set<Int> = []
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
        // The policy before the first switch, also when every switch is yet to come.
        let first = changes.min { $0.at < $1.at }?.from ?? .pause
        guard let firstPlay = playDays.min() else { return Result(streak: 0, jokers: (switches.last?.to ?? first) == .joker ? 0 : nil) }

        var streak = 0, jokers = 0
        var covered = Set<Int>()
        var lastPlayed: Int?
        var policy = first
        var start = firstPlay
        for (index, segmentEnd) in (switches.map { days.dayNumber(of: $0.at) } + [todayNumber]).enumerated() {
            let isLast = index == switches.count
            if start <= segmentEnd {
                switch policy {
                case .pause:
                    for day in start...segmentEnd where playDays.contains(day) {
                        streak = StreakTracker.advanced(streak, lastPlayedDay: lastPlayed, playedOn: day)
                        lastPlayed = day
                    }
                case .joker:
                    // Its last day (today, or the day of a switch) counts only once it is good.
                    let outcomes = JokerStreakCalculator.outcomes(goodDays: goodDays, from: start, through: segmentEnd)
                    if let played = playDays.filter({ (start...segmentEnd).contains($0) }).max() { lastPlayed = played }
                    let result = JokerStreakCalculator.evaluate(outcomes, startingStreak: streak, startingJokers: jokers, rules: rules)
                    streak = result.currentStreak
                    jokers = result.availableJokers
                    for index in result.jokerDayIndices { covered.insert(start + index) }
                }
            }
            if !isLast {
                policy = switches[index].to
                if policy == .joker { jokers = 0 }
                start = max(start, segmentEnd + 1)
            }
        }
        return Result(streak: streak, jokers: policy == .joker ? jokers : nil, jokerDays: covered)
    }
}
