/// The four accuracy bands of SCORE-1. Raw values are the stored/exported form.
public enum AccuracyRating: String, Codable, Sendable, Equatable, CaseIterable {
    case spotOn = "spot_on"
    case close
    case off
    case wayOff = "way_off"

    /// The band in words, for lists (`questbox history`): "spot on", "way off".
    public var words: String {
        switch self {
        case .spotOn: "spot on"
        case .close: "close"
        case .off: "off"
        case .wayOff: "way off"
        }
    }
}

public enum SessionStatus: String, Codable, Sendable, Equatable {
    case inProgress = "in_progress"
    case completed
    case abandoned
    /// GAME-7: left waiting (or stopped with a 3 s hold); picked up at the next lock the same
    /// day, else it stays incomplete.
    case paused
}

/// One play of a routine. Wall times are calendar facts; durations come from the
/// monotonic timestamps in the estimations (§5).
public struct GameSession: Codable, Equatable, Sendable, Identifiable {
    public var id: UUID
    public var routineID: UUID
    public var routineDisplayName: String
    public var startedAt: Date
    public var startedMonotonicNanos: MonotonicNanos
    public var bootID: String
    public var completedAt: Date?
    public var status: SessionStatus
    public var isCalibration: Bool
    public var xpEarned: Int

    public init(
        id: UUID, routineID: UUID, routineDisplayName: String, startedAt: Date,
        startedMonotonicNanos: MonotonicNanos, bootID: String, completedAt: Date? = nil,
        status: SessionStatus = .inProgress, isCalibration: Bool, xpEarned: Int = 0
    ) {
        self.id = id
        self.routineID = routineID
        self.routineDisplayName = routineDisplayName
        self.startedAt = startedAt
        self.startedMonotonicNanos = startedMonotonicNanos
        self.bootID = bootID
        self.completedAt = completedAt
        self.status = status
        self.isCalibration = isCalibration
        self.xpEarned = xpEarned
    }
}

/// One scored estimate (append-only once recorded).
public struct TaskEstimation: Codable, Equatable, Sendable, Identifiable {
    public var id: UUID
    public var sessionID: UUID
    public var taskID: UUID
    public var taskDisplayName: String
    public var routineDisplayName: String
    public var orderIndex: Int
    public var estimatedSeconds: Double
    public var actualSeconds: Double
    public var differenceSeconds: Double
    public var accuracyPercent: Double
    public var rating: AccuracyRating
    public var xpEarned: Int
    public var isCalibration: Bool
    /// Wall time of the stop press (calendar fact only).
    public var recordedAt: Date
    public var lockMonotonicNanos: MonotonicNanos
    public var stopMonotonicNanos: MonotonicNanos
    public var bootID: String

    public init(
        id: UUID, sessionID: UUID, taskID: UUID, taskDisplayName: String, routineDisplayName: String,
        orderIndex: Int, result: EstimationResult, xpEarned: Int, isCalibration: Bool, recordedAt: Date,
        lockMonotonicNanos: MonotonicNanos, stopMonotonicNanos: MonotonicNanos, bootID: String
    ) {
        self.id = id
        self.sessionID = sessionID
        self.taskID = taskID
        self.taskDisplayName = taskDisplayName
        self.routineDisplayName = routineDisplayName
        self.orderIndex = orderIndex
        self.estimatedSeconds = result.estimatedSeconds
        self.actualSeconds = result.actualSeconds
        self.differenceSeconds = result.differenceSeconds
        self.accuracyPercent = result.accuracyPercent
        self.rating = result.rating
        self.xpEarned = xpEarned
        self.isCalibration = isCalibration
        self.recordedAt = recordedAt
        self.lockMonotonicNanos = lockMonotonicNanos
        self.stopMonotonicNanos = stopMonotonicNanos
        self.bootID = bootID
    }

    public var snapshot: EstimationSnapshot {
        EstimationSnapshot(
            taskID: taskID, taskDisplayName: taskDisplayName, routineDisplayName: routineDisplayName,
            estimatedSeconds: estimatedSeconds, actualSeconds: actualSeconds,
            differenceSeconds: differenceSeconds, accuracyPercent: accuracyPercent, rating: rating,
            recordedAt: recordedAt, isCalibration: isCalibration, sessionID: sessionID)
    }
}

/// The value the analysis engines (insights, reflection, trend, personal bests) consume.
public struct EstimationSnapshot: Codable, Equatable, Sendable {
    public var taskID: UUID?
    public var taskDisplayName: String
    public var routineDisplayName: String
    public var estimatedSeconds: Double
    public var actualSeconds: Double
    public var differenceSeconds: Double
    public var accuracyPercent: Double
    public var rating: AccuracyRating
    public var recordedAt: Date
    public var isCalibration: Bool
    public var sessionID: UUID?

    public init(
        taskID: UUID? = nil, taskDisplayName: String, routineDisplayName: String = "",
        estimatedSeconds: Double, actualSeconds: Double, differenceSeconds: Double,
        accuracyPercent: Double, rating: AccuracyRating, recordedAt: Date, isCalibration: Bool = false,
        sessionID: UUID? = nil
    ) {
        self.taskID = taskID
        self.taskDisplayName = taskDisplayName
        self.routineDisplayName = routineDisplayName
        self.estimatedSeconds = estimatedSeconds
        self.actualSeconds = actualSeconds
        self.differenceSeconds = differenceSeconds
        self.accuracyPercent = accuracyPercent
        self.rating = rating
        self.recordedAt = recordedAt
        self.isCalibration = isCalibration
        self.sessionID = sessionID
    }

    /// Builds a snapshot by scoring an estimate (handy for tests, imports and benchmarks).
    public init(
        taskID: UUID? = nil, taskDisplayName: String, routineDisplayName: String = "",
        estimatedSeconds: Double, actualSeconds: Double, recordedAt: Date, isCalibration: Bool = false,
        sessionID: UUID? = nil
    ) {
        let result = TimeEstimationScorer.score(estimated: estimatedSeconds, actual: actualSeconds)
        self.init(
            taskID: taskID, taskDisplayName: taskDisplayName, routineDisplayName: routineDisplayName,
            estimatedSeconds: result.estimatedSeconds, actualSeconds: result.actualSeconds,
            differenceSeconds: result.differenceSeconds, accuracyPercent: result.accuracyPercent,
            rating: result.rating, recordedAt: recordedAt, isCalibration: isCalibration, sessionID: sessionID)
    }

    /// Tasks are grouped by id when known (survives renames), else by display name.
    public var taskKey: TaskKey { taskID.map(TaskKey.id) ?? .name(taskDisplayName) }
    public var absDifferenceSeconds: Double { abs(differenceSeconds) }
}

/// How history is grouped per task.
public enum TaskKey: Hashable, Codable, Sendable, Comparable {
    case id(UUID)
    case name(String)

    /// Hashes a UUID as two words rather than byte by byte: grouping years of history
    /// hashes one key per estimation.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .id(let id):
            withUnsafeBytes(of: id.uuid) { raw in
                hasher.combine(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
        case .name(let name):
            hasher.combine(name)
        }
    }

    public static func < (a: TaskKey, b: TaskKey) -> Bool {
        switch (a, b) {
        case (.id(let x), .id(let y)): x.uuidString < y.uuidString
        case (.name(let x), .name(let y)): x < y
        case (.id, .name): true
        case (.name, .id): false
        }
    }
}
