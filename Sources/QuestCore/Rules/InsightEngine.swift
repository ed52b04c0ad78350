public enum BiasDirection: String, Codable, Sendable, Equatable {
    case overestimates
    case underestimates
    case balanced
}

public struct BiasInsight: Codable, Equatable, Sendable {
    public var direction: BiasDirection
    /// Mean of estimated − actual.
    public var meanDifferenceSeconds: Double
    /// meanDifference / meanActual.
    public var relativeBias: Double
}

public enum TrendDirection: String, Codable, Sendable, Equatable {
    case improving
    case declining
    case stable
}

public struct TrendInsight: Codable, Equatable, Sendable {
    public var direction: TrendDirection
    public var recentMeanAbsDifference: Double
    public var priorMeanAbsDifference: Double
}

public enum ConsistencyLevel: String, Codable, Sendable, Equatable {
    case veryConsistent = "very_consistent"
    case consistent
    case variable
}

public struct ConsistencyInsight: Codable, Equatable, Sendable {
    public var level: ConsistencyLevel
    /// Population standard deviation of estimate/actual.
    public var spread: Double
}

public enum TimeOfDay: String, Codable, Sendable, Equatable, CaseIterable {
    case morning, afternoon, evening, night

    var index: Int {
        switch self {
        case .morning: 0
        case .afternoon: 1
        case .evening: 2
        case .night: 3
        }
    }

    public init(hour: Int) {
        switch hour {
        case 5..<12: self = .morning
        case 12..<17: self = .afternoon
        case 17..<22: self = .evening
        default: self = .night
        }
    }
}

public struct TimeOfDayInsight: Codable, Equatable, Sendable {
    public var best: TimeOfDay
    public var averageAccuracy: Double
}

/// Everything INS-1 says about one task.
public struct TaskInsight: Codable, Equatable, Sendable {
    public var taskKey: TaskKey
    public var taskDisplayName: String
    public var estimationCount: Int
    public var bias: BiasInsight
    public var trend: TrendInsight?
    public var consistency: ConsistencyInsight
    public var bestTimeOfDay: TimeOfDayInsight?
    /// Facts, not cheerleading.
    public var texts: [String]
}

/// INS-1: per-task patterns from the player's own history (calibration excluded).
public enum InsightEngine: Sendable {
    public static let minimumSampleSize = 5
    public static let trendSampleSize = 10
    /// Thresholds in whole percent, compared by multiplication so that exactly 10 %, 0.85×
    /// and 1.15× sit on the documented side of the line (1.15·100 is 114.999… in binary).
    public static let biasThresholdPercent = 10.0
    public static let improvingPercent = 85.0
    public static let decliningPercent = 115.0
    public static let veryConsistentSpread = 0.15
    public static let consistentSpread = 0.35
    /// Time-of-day needs this many estimations in at least two parts of the day.
    public static let timeOfDayMinimumPerBucket = 2

    public static func generateInsights(snapshots: [EstimationSnapshot], calendar: Calendar = .current) -> [TaskInsight] {
        InsightIndex(snapshots: snapshots, calendar: calendar).insights()
    }

    static func bias(meanDifference: Double, meanActual: Double) -> BiasInsight {
        let relative = meanActual > 0 ? meanDifference / meanActual : 0
        let direction: BiasDirection
        if meanDifference * 100 > meanActual * biasThresholdPercent {
            direction = .overestimates
        } else if -meanDifference * 100 > meanActual * biasThresholdPercent {
            direction = .underestimates
        } else {
            direction = .balanced
        }
        return BiasInsight(direction: direction, meanDifferenceSeconds: meanDifference, relativeBias: relative)
    }

    /// `absDifferences` oldest first; needs the latest 10.
    static func trend(_ absDifferences: ArraySlice<Double>) -> TrendInsight? {
        guard absDifferences.count >= trendSampleSize else { return nil }
        let recent = mean(Array(absDifferences.suffix(5)))
        let prior = mean(Array(absDifferences.dropLast(5).suffix(5)))
        let direction: TrendDirection
        if recent * 100 < prior * improvingPercent {
            direction = .improving
        } else if recent * 100 > prior * decliningPercent {
            direction = .declining
        } else {
            direction = .stable
        }
        return TrendInsight(direction: direction, recentMeanAbsDifference: recent, priorMeanAbsDifference: prior)
    }

    static func consistency(spread: Double) -> ConsistencyInsight {
        let level: ConsistencyLevel =
            spread < veryConsistentSpread ? .veryConsistent : (spread < consistentSpread ? .consistent : .variable)
        return ConsistencyInsight(level: level, spread: spread)
    }

    static func texts(
        name: String, bias: BiasInsight, trend: TrendInsight?, consistency: ConsistencyInsight, timeOfDay: TimeOfDayInsight?
    ) -> [String] {
        var texts = [biasText(name: name, bias: bias)]
        var changing = false
        if let trend {
            let recent = DurationText.approximate(seconds: trend.recentMeanAbsDifference)
            let prior = DurationText.approximate(seconds: trend.priorMeanAbsDifference)
            // #48: a change the rounded amounts cannot show ("off by about 5s, 5s before") is
            // not told as one: the words say steady.
            switch recent == prior ? .stable : trend.direction {
            case .improving:
                changing = true
                texts.append("Your \(name) estimates are getting closer: off by about \(recent) lately, \(prior) before")
            case .declining:
                changing = true
                texts.append("\(name) has been harder to read lately: off by about \(recent), \(prior) before")
            case .stable:
                // #48: never "steady" beside "feels different from day to day".
                if consistency.level != .variable { texts.append("Your \(name) estimates are steady: off by about \(recent)") }
            }
        }
        switch consistency.level {
        // #48: never "the same way each time" beside a change lately.
        case .veryConsistent: if !changing { texts.append("You read \(name) the same way each time") }
        case .consistent:
            // Name the pattern: a share the guess is off by most times, or a small swing.
            let share = Int((abs(bias.relativeBias) * 100).rounded())
            let swing = max(1, Int((consistency.spread * 100).rounded()))
            switch bias.direction {
            case .underestimates: texts.append("Most times your \(name) guess comes out about \(share)% short")
            case .overestimates: texts.append("Most times your \(name) guess comes out about \(share)% long")
            case .balanced: texts.append("Your \(name) guesses swing a little either way, about \(swing)%")
            }
        case .variable: texts.append("\(name) feels different from day to day")
        }
        if let timeOfDay {
            texts.append("Your \(name) estimates are closest in the \(timeOfDay.best.rawValue)")
        }
        return texts
    }

    /// The bias line, the pattern's first words: on the stats page and, for the task just
    /// played, at the reveal (GAME-6, seed 003), so both always say the same.
    public static func biasText(name: String, bias: BiasInsight) -> String {
        let amount = DurationText.approximate(seconds: abs(bias.meanDifferenceSeconds))
        switch bias.direction {
        case .underestimates: return "\(name) usually takes \(amount) longer than you think"
        case .overestimates: return "\(name) usually takes \(amount) less than you think"
        case .balanced: return "Your \(name) estimates land on both sides about evenly"
        }
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

}

/// HINT-1: a data point before estimating, never a correction.
public enum ContextualHint: Sendable {
    public static let requiredHistory = 5

    /// The median of the last five actual durations, when the task has five or more
    /// non-calibration estimations (`recentActuals` is oldest first).
    public static func medianOfRecent(_ recentActuals: [Double]) -> Double? {
        guard recentActuals.count >= requiredHistory else { return nil }
        let lastFive = recentActuals.suffix(requiredHistory).sorted()
        return lastFive[lastFive.count / 2]
    }

    public static func text(recentActuals: [Double], enabled: Bool) -> String? {
        guard enabled, let median = medianOfRecent(recentActuals) else { return nil }
        return "Last 5 times this took about \(DurationText.approximateClock(seconds: median))"
    }

    /// Convenience over full history: the hint for one task.
    public static func hint(forTaskKey key: TaskKey, snapshots: [EstimationSnapshot], enabled: Bool = true) -> String? {
        let actuals = snapshots.filter { !$0.isCalibration && $0.taskKey == key }
            .sorted { $0.recordedAt < $1.recordedAt }.map(\.actualSeconds)
        return text(recentActuals: actuals, enabled: enabled)
    }
}

/// The local hour of many instants without a calendar computation each: a zone's UTC offset
/// is looked up at both ends of each UTC day and reused for the whole day unless it changes
/// within it (a DST day), where it is looked up exactly.
struct LocalHourResolver: Sendable {
    let timeZone: TimeZone
    private var offsets: [Int: (start: Int, end: Int)] = [:]

    init(timeZone: TimeZone) { self.timeZone = timeZone }

    mutating func hour(of date: Date) -> Int {
        let local = localSeconds(of: date)
        return ((local % 86_400) + 86_400) % 86_400 / 3_600
    }

    /// The local calendar date as a day number (days since 1970-01-01 in local time): two
    /// instants share a number exactly when they fall on the same local date.
    mutating func dayNumber(of date: Date) -> Int {
        let local = localSeconds(of: date)
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// Seconds since 1970 on the local wall clock.
    mutating func localSeconds(of date: Date) -> Int {
        let t = date.timeIntervalSince1970
        let day = Int((t / 86_400).rounded(.down))
        let pair: (start: Int, end: Int)
        if let cached = offsets[day] {
            pair = cached
        } else {
            let start = Date(timeIntervalSince1970: Double(day) * 86_400)
            pair = (timeZone.secondsFromGMT(for: start), timeZone.secondsFromGMT(for: start.addingTimeInterval(86_399)))
            offsets[day] = pair
        }
        let offset = pair.start == pair.end ? pair.start : timeZone.secondsFromGMT(for: date)
        return Int((t + Double(offset)).rounded(.down))
    }
}
