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
