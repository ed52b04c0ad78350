import Foundation
@testable import QuestCore

/// Gregorian calendar in a named zone (full Foundation supplies the zone data).
func calendar(_ zone: String = "UTC", firstWeekday: Int = 2) -> Calendar {
    var c = Calendar(identifier: .gregorian)
    c.timeZone = TimeZone(identifier: zone)!
    c.firstWeekday = firstWeekday
    return c
}

/// A wall time in `cal`'s zone.
func at(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 12, _ min: Int = 0, _ cal: Calendar = calendar()) -> Date {
    cal.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min))!
}

func snap(
    _ task: String, est: Double, act: Double, on date: Date, calibration: Bool = false, taskID: UUID? = nil
) -> EstimationSnapshot {
    EstimationSnapshot(
        taskID: taskID, taskDisplayName: task, routineDisplayName: "Morning", estimatedSeconds: est, actualSeconds: act,
        recordedAt: date, isCalibration: calibration)
}

/// Deterministic ids for tests: 00000000-0000-0000-0000-0000000000NN.
func uuid(_ n: Int) -> UUID {
    let hex = String(n, radix: 16)
    return UUID(uuidString: "00000000-0000-0000-0000-" + String(repeating: "0", count: 12 - hex.count) + hex)!
}

let second: Int64 = 1_000_000_000
let milli: Int64 = 1_000_000
