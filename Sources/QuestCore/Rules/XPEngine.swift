/// XP-1: XP rewards accuracy only, never speed.
public enum XPEngine: Sendable {
    public static func xpForEstimation(rating: AccuracyRating, rules: GameRules = .standard) -> Int {
        switch rating {
        case .spotOn: rules.xpSpotOn
        case .close: rules.xpClose
        case .off: rules.xpOff
        case .wayOff: rules.xpWayOff
        }
    }

    public static var sessionCompletionBonus: Int { GameRules.standard.xpSessionCompletionBonus }

    /// A completed session: every estimation's XP plus the completion bonus.
    public static func xpForSession(ratings: [AccuracyRating], rules: GameRules = .standard) -> Int {
        ratings.reduce(rules.xpSessionCompletionBonus) { $0 + xpForEstimation(rating: $1, rules: rules) }
    }
}
