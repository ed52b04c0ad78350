/// One task's non-calibration history, oldest first, with running sums so that "the
/// insight as of date X" is a binary search, not another pass over years of history.
/// Every prefix sum adds in the same order as a direct mean would, so results are identical.
struct TaskSeries: Sendable {
    var key: TaskKey
    var times: [Date] = []
    var names: [String] = []
    var absDifferences: [Double] = []
    /// Element k is the sum over the first k estimations (so each array is one longer).
    var sumDifference: [Double] = [0]
    var sumActual: [Double] = [0]
    var sumRatio: [Double] = [0]
    var sumRatioSquared: [Double] = [0]
    var ratioCount: [Int] = [0]
    /// Per part of the day, flattened with stride 4 (element 4k + TimeOfDay.index): running
    /// counts and accuracy sums.
    var partCount: [Int32] = [0, 0, 0, 0]
    var partAccuracy: [Double] = [0, 0, 0, 0]

    init(key: TaskKey, capacity: Int) {
        self.key = key
        times.reserveCapacity(capacity)
        names.reserveCapacity(capacity)
        absDifferences.reserveCapacity(capacity)
        for keyPath in [\TaskSeries.sumDifference, \.sumActual, \.sumRatio, \.sumRatioSquared] {
            self[keyPath: keyPath].reserveCapacity(capacity + 1)
        }
        ratioCount.reserveCapacity(capacity + 1)
        partCount.reserveCapacity(4 * (capacity + 1))
        partAccuracy.reserveCapacity(4 * (capacity + 1))
    }

    mutating func append(_ s: EstimationSnapshot, part: Int) {
        times.append(s.recordedAt)
        names.append(s.taskDisplayName)
        absDifferences.append(s.absDifferenceSeconds)
        sumDifference.append(sumDifference[sumDifference.count - 1] + s.differenceSeconds)
        sumActual.append(sumActual[sumActual.count - 1] + s.actualSeconds)
        let ratio = s.actualSeconds > 0 ? s.estimatedSeconds / s.actualSeconds : nil
        sumRatio.append(sumRatio[sumRatio.count - 1] + (ratio ?? 0))
        sumRatioSquared.append(sumRatioSquared[sumRatioSquared.count - 1] + (ratio.map { $0 * $0 } ?? 0))
        ratioCount.append(ratioCount[ratioCount.count - 1] + (ratio == nil ? 0 : 1))
        let base = partCount.count - 4
        for p in 0..<4 {
            partCount.append(partCount[base + p] + (p == part ? 1 : 0))
            partAccuracy.append(partAccuracy[base + p] + (p == part ? s.accuracyPercent : 0))
        }
    }

    /// How many estimations were recorded before `cutoff`.
    func count(before cutoff: Date?) -> Int {
        guard let cutoff else { return times.count }
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] < cutoff { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func insight(firstCount n: Int) -> TaskInsight? {
        guard n >= InsightEngine.minimumSampleSize else { return nil }
        let count = Double(n)
        let bias = InsightEngine.bias(meanDifference: sumDifference[n] / count, meanActual: sumActual[n] / count)
        let trend = InsightEngine.trend(absDifferences[..<n])
        var spread = 0.0
        if ratioCount[n] > 1 {
            let m = sumRatio[n] / Double(ratioCount[n])
            spread = max(0, sumRatioSquared[n] / Double(ratioCount[n]) - m * m).squareRoot()
        }
        let consistency = InsightEngine.consistency(spread: spread)
        let eligible = TimeOfDay.allCases.compactMap { part -> (TimeOfDay, Double)? in
            let c = Int(partCount[4 * n + part.index])
            return c >= InsightEngine.timeOfDayMinimumPerBucket ? (part, partAccuracy[4 * n + part.index] / Double(c)) : nil
        }
        var timeOfDay: TimeOfDayInsight?
        if eligible.count >= 2, let best = eligible.max(by: { $0.1 < $1.1 }) {
            timeOfDay = TimeOfDayInsight(best: best.0, averageAccuracy: best.1)
        }
        let name = names[n - 1]
        return TaskInsight(
            taskKey: key, taskDisplayName: name, estimationCount: n, bias: bias, trend: trend, consistency: consistency,
            bestTimeOfDay: timeOfDay,
            texts: InsightEngine.texts(name: name, bias: bias, trend: trend, consistency: consistency, timeOfDay: timeOfDay))
    }
}

/// INS-1 over a whole history, prepared once: the stats view asks for today's insights and
/// for the insights as of the end of each of the last weeks (REFL-1 highlights).
public struct InsightIndex: Sendable {
    let series: [TaskSeries]

    public init(snapshots: [EstimationSnapshot], calendar: Calendar) {
        // Group indices by task with one hash lookup each, then append in time order.
        var slots: [TaskKey: Int] = [:]
        var keys: [TaskKey] = [], members: [[Int]] = []
        for i in snapshots.indices where !snapshots[i].isCalibration {
            let key = snapshots[i].taskKey
            if let slot = slots[key] {
                members[slot].append(i)
            } else {
                slots[key] = keys.count
                keys.append(key)
                members.append([i])
            }
        }
        var hours = LocalHourResolver(timeZone: calendar.timeZone)
        series = keys.indices.map { slot in
            var order = members[slot]
            // History from the store arrives in time order; sort only when it does not.
            if !zip(order, order.dropFirst()).allSatisfy({ snapshots[$0].recordedAt <= snapshots[$1].recordedAt }) {
                order.sort { (snapshots[$0].recordedAt, $0) < (snapshots[$1].recordedAt, $1) }
            }
            var s = TaskSeries(key: keys[slot], capacity: order.count)
            for i in order {
                s.append(snapshots[i], part: TimeOfDay(hour: hours.hour(of: snapshots[i].recordedAt)).index)
            }
            return s
        }
    }

    /// The insights of every task with enough history recorded before `cutoff` (all history
    /// when nil), optionally only for some tasks; sorted by task name.
    public func insights(recordedBefore cutoff: Date? = nil, onlyTasks: Set<TaskKey>? = nil) -> [TaskInsight] {
        series.compactMap { s -> TaskInsight? in
            if let onlyTasks, !onlyTasks.contains(s.key) { return nil }
            return s.insight(firstCount: s.count(before: cutoff))
        }
        .sorted { ($0.taskDisplayName, $0.taskKey) < ($1.taskDisplayName, $1.taskKey) }
    }
}
