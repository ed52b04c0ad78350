public struct PersonalBest: Codable, Equatable, Sendable {
    public var taskKey: TaskKey
    public var taskDisplayName: String
    public var absDifferenceSeconds: Double
    public var recordedAt: Date
}

/// PB-1: a task's personal best is its smallest |difference| ever.
public enum PersonalBestTracker: Sendable {
    /// Beating needs a previous best to beat: the first try sets it without a celebration.
    public static func isNewPersonalBest(absDifference: Double, previousBest: Double?) -> Bool {
        guard let previousBest else { return false }
        return absDifference < previousBest
    }

    /// One entry per task, closest first; ties keep the earliest; named by the latest name.
    /// One pass, no sort of the history (it can be years long).
    public static func personalBests(from snapshots: [EstimationSnapshot]) -> [PersonalBest] {
        var best: [TaskKey: (best: Int, latest: Int)] = [:]
        for i in snapshots.indices {
            let s = snapshots[i]
            guard let current = best[s.taskKey] else {
                best[s.taskKey] = (i, i)
                continue
            }
            let b = snapshots[current.best], l = snapshots[current.latest]
            let closer = s.absDifferenceSeconds < b.absDifferenceSeconds
                || (s.absDifferenceSeconds == b.absDifferenceSeconds && s.recordedAt < b.recordedAt)
            best[s.taskKey] = (closer ? i : current.best, s.recordedAt >= l.recordedAt ? i : current.latest)
        }
        return best.map { key, v in
            PersonalBest(
                taskKey: key, taskDisplayName: snapshots[v.latest].taskDisplayName,
                absDifferenceSeconds: snapshots[v.best].absDifferenceSeconds, recordedAt: snapshots[v.best].recordedAt)
        }
        .sorted { ($0.absDifferenceSeconds, $0.taskDisplayName) < ($1.absDifferenceSeconds, $1.taskDisplayName) }
    }
}
