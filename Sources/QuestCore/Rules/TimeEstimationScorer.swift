/// The outcome of comparing an estimate with the measured duration (SCORE-1).
public struct EstimationResult: Codable, Equatable, Sendable {
    public var estimatedSeconds: Double
    public var actualSeconds: Double
    /// estimated − actual: positive means the player overestimated.
    public var differenceSeconds: Double
    public var absDifferenceSeconds: Double
    public var accuracyPercent: Double
    public var rating: AccuracyRating
}

/// SCORE-1.
public enum TimeEstimationScorer: Sendable {
    public static func score(estimated: Double, actual: Double) -> EstimationResult {
        let difference = estimated - actual
        let absDifference = abs(difference)
        // Under a minute, an error is judged against a full minute so tiny tasks are not harsh.
        let base = actual < 60 ? 60 : actual
        let accuracy = max(0, 100 - absDifference / base * 100)
        return EstimationResult(
            estimatedSeconds: estimated, actualSeconds: actual, differenceSeconds: difference,
            absDifferenceSeconds: absDifference, accuracyPercent: accuracy,
            rating: rating(absDifference: absDifference, actual: actual))
    }

    /// Bands compared by multiplication, so exact boundaries (10 %, 25 %, 50 %) are not lost
    /// to floating-point rounding of 0.1·actual.
    static func rating(absDifference d: Double, actual: Double) -> AccuracyRating {
        if d <= 15 || d * 10 <= actual { return .spotOn }
        if d * 4 <= actual { return .close }
        if d * 2 <= actual { return .off }
        return .wayOff
    }
}
