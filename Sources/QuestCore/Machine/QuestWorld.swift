/// What the box remembers about one task, enough for the loop to run without reading the
/// whole history: the first suggestion (§2), the personal best (PB-1) and the hint (HINT-1).
public struct TaskMemory: Codable, Equatable, Sendable {
    public var lastEstimateSeconds: Int?
    public var bestAbsDifferenceSeconds: Double?
    /// Actual durations of the latest non-calibration estimations, oldest first (at most 5).
    public var recentActuals: [Double]
    /// INS-1's bias over every non-calibration estimation, for the reveal's pattern line.
    public var bias: BiasSums

    public init(
        lastEstimateSeconds: Int? = nil, bestAbsDifferenceSeconds: Double? = nil, recentActuals: [Double] = [], bias: BiasSums = BiasSums()
    ) {
        self.lastEstimateSeconds = lastEstimateSeconds
        self.bestAbsDifferenceSeconds = bestAbsDifferenceSeconds
        self.recentActuals = recentActuals
        self.bias = bias
    }

    /// One estimation played: the machine's own update after a reveal (the store derives the
    /// whole history's memory in SQL, `QuestDatabase.taskMemories`; a test replays this over
    /// the history to pin that both agree).
    public mutating func record(estimatedSeconds: Double, actualSeconds: Double, absDifference: Double, isCalibration: Bool) {
        lastEstimateSeconds = Int(estimatedSeconds.rounded())
        bestAbsDifferenceSeconds = min(bestAbsDifferenceSeconds ?? absDifference, absDifference)
        if !isCalibration {
            bias.add(differenceSeconds: estimatedSeconds - actualSeconds, actualSeconds: actualSeconds)
            recentActuals.append(actualSeconds)
            if recentActuals.count > ContextualHint.requiredHistory { recentActuals.removeFirst(recentActuals.count - ContextualHint.requiredHistory) }
        }
    }
}

/// A task's running sums for INS-1's bias (the store sums the same rows in SQL), so the
/// reveal can say the task's pattern without reading its history.
public struct BiasSums: Codable, Equatable, Sendable {
    public var count: Int
    /// Sum of estimated − actual.
    public var differenceSum: Double
    public var actualSum: Double

    public init(count: Int = 0, differenceSum: Double = 0, actualSum: Double = 0) {
        self.count = count
        self.differenceSum = differenceSum
        self.actualSum = actualSum
    }

    mutating func add(differenceSeconds: Double, actualSeconds: Double) {
        count += 1
        differenceSum += differenceSeconds
        actualSum += actualSeconds
    }

    /// INS-1's bias once there are enough estimations (the stats page's own rule).
    public var insight: BiasInsight? {
        guard count >= InsightEngine.minimumSampleSize, differenceSum.isFinite, actualSum.isFinite else { return nil }
        let n = Double(count)
        return InsightEngine.bias(meanDifference: differenceSum / n, meanActual: actualSum / n)
    }
}

/// Everything outside the quest loop that the loop needs, as the shell loaded it.
public struct QuestWorld: Codable, Equatable, Sendable {
    public var routines: [Routine]
    public var profile: PlayerProfile
    public var taskMemory: [UUID: TaskMemory]
    /// Completed quests (STREAK-2 and "played today").
    public var plays: [QuestPlay]
    public var settings: GameSettings
    /// The calendar of the box: time zone and first weekday.
    public var calendar: Calendar
    /// `/proc/sys/kernel/random/boot_id` of this boot.
    public var bootID: String
    /// REFL-1: the previous week's reflection once the shell has computed it (lazily).
    public var pendingReflection: WeeklyReflection?
    /// REM-1: when each routine's reminder last sounded.
    public var reminders: [UUID: Date]
    /// GAME-7: each routine's latest quest when it is paused (the store's `pausedQuests`); the
    /// machine picks one up only on the day it started.
    public var pausedQuests: [PausedQuest]

    public init(
        routines: [Routine] = [], profile: PlayerProfile = PlayerProfile(), taskMemory: [UUID: TaskMemory] = [:],
        plays: [QuestPlay] = [], settings: GameSettings = GameSettings(), calendar: Calendar, bootID: String,
        pendingReflection: WeeklyReflection? = nil, reminders: [UUID: Date] = [:], pausedQuests: [PausedQuest] = []
    ) {
        self.reminders = reminders
        self.pausedQuests = pausedQuests
        self.routines = routines
        self.profile = profile
        self.taskMemory = taskMemory
        self.plays = plays
        self.settings = settings
        self.calendar = calendar
        self.bootID = bootID
        self.pendingReflection = pendingReflection
    }
}

/// GAME-7: a quest paused part-way, with the tasks it has played (in order).
public struct PausedQuest: Codable, Equatable, Sendable {
    public var session: GameSession
    public var estimations: [TaskEstimation]

    public init(session: GameSession, estimations: [TaskEstimation]) {
        self.session = session
        self.estimations = estimations
    }

    /// The index of the task the next lock picks `routine` up at, on the day of `now`; nil
    /// when it starts afresh instead: paused another day, all played, or the routine no longer
    /// begins with the tasks it played.
    public func resumeIndex(for routine: Routine, now: Date, calendar: Calendar) -> Int? {
        guard session.routineID == routine.id, calendar.isDate(session.startedAt, inSameDayAs: now),
              estimations.count < routine.tasks.count,
              zip(estimations, routine.tasks).allSatisfy({ $0.taskID == $1.id })
        else { return nil }
        return estimations.count
    }
}

/// GAME-5: the task being timed, persisted at lock-in so a crash or restart loses nothing.
public struct InProgressTask: Codable, Equatable, Sendable {
    public var session: GameSession
    public var taskIndex: Int
    public var taskID: UUID
    public var estimatedSeconds: Int
    public var lockMonotonicNanos: MonotonicNanos
    public var bootID: String
    public var lockedAt: Date
    /// Whether the wall clock was trusted (synchronized) when `lockedAt` was taken.
    public var lockedAtTrusted: Bool

    public init(
        session: GameSession, taskIndex: Int, taskID: UUID, estimatedSeconds: Int, lockMonotonicNanos: MonotonicNanos,
        bootID: String, lockedAt: Date, lockedAtTrusted: Bool
    ) {
        self.session = session
        self.taskIndex = taskIndex
        self.taskID = taskID
        self.estimatedSeconds = estimatedSeconds
        self.lockMonotonicNanos = lockMonotonicNanos
        self.bootID = bootID
        self.lockedAt = lockedAt
        self.lockedAtTrusted = lockedAtTrusted
    }
}
