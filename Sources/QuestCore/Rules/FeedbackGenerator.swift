/// What the reveal says (FEED-1): curiosity, never judgement.
public struct Feedback: Codable, Equatable, Sendable {
    public var headline: String
    public var detail: String
}

public enum FeedbackGenerator: Sendable {
    public static let calibrationHeadline = "Just learning your patterns…"

    public static func headline(for rating: AccuracyRating) -> String {
        switch rating {
        case .spotOn: "Nailed it!"
        case .close: "Getting dialed in."
        case .off: "Interesting — that one felt different than it was."
        case .wayOff: "Big discovery! This one's tricky to feel."
        }
    }

    /// CAL-1: calibration reveals only say the box is learning; the numbers still show.
    public static func feedback(for result: EstimationResult, isCalibration: Bool) -> Feedback {
        Feedback(
            headline: isCalibration ? calibrationHeadline : headline(for: result.rating),
            detail: DurationText.difference(result.differenceSeconds))
    }
}

/// CAL-1: the first completed sessions teach the box the player's patterns.
public enum CalibrationTracker: Sendable {
    public static func isCalibrationSession(completedSessionsBefore: Int, rules: GameRules = .standard) -> Bool {
        completedSessionsBefore < rules.calibrationSessions
    }

    /// How many calibration sessions are still to come (for the idle screen).
    public static func remainingCalibrationSessions(completedSessions: Int, rules: GameRules = .standard) -> Int {
        max(0, rules.calibrationSessions - completedSessions)
    }

    /// Analyses (insights, hints, reflections) see only what is not calibration.
    public static func excludingCalibration(_ snapshots: [EstimationSnapshot]) -> [EstimationSnapshot] {
        snapshots.filter { !$0.isCalibration }
    }
}
