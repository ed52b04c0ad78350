import Foundation
import Testing
@testable import QuestCore

@Suite("INS-1 index: fast answers equal direct ones")
struct IndexTests {
    /// A long, shuffled, mixed history with calibration, renames and several zones' hours.
    func history(seed: UInt64, count: Int, cal: Calendar) -> [EstimationSnapshot] {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let tasks = (0..<5).map { uuid(0x50 + $0) }
        let start = at(2025, 1, 1, 0, 0, cal)
        return (0..<count).map { i in
            let t = Int(next() * 5)
            let actual = 30 + next() * 900
            return EstimationSnapshot(
                taskID: t == 4 ? nil : tasks[t], taskDisplayName: t == 0 && i > count / 2 ? "Renamed" : "Task \(t)",
                estimatedSeconds: (actual * (0.5 + next())).rounded(), actualSeconds: actual,
                recordedAt: start.addingTimeInterval(next() * 400 * 86_400), isCalibration: next() < 0.05)
        }
    }

    @Test("insights as of any date equal a fresh computation on the history up to that date")
    func asOfEqualsDirect() {
        let cal = calendar("America/New_York")
        let all = history(seed: 7, count: 2_000, cal: cal)
        let index = InsightIndex(snapshots: all, calendar: cal)
        for cutoffDay in stride(from: 20, through: 420, by: 50) {
            let cutoff = at(2025, 1, 1, 0, 0, cal).addingTimeInterval(Double(cutoffDay) * 86_400)
            let direct = InsightIndex(snapshots: all.filter { $0.recordedAt < cutoff }, calendar: cal).insights()
            let fast = index.insights(recordedBefore: cutoff)
            #expect(fast.count == direct.count)
            for (a, b) in zip(fast, direct) {
                #expect(a.taskKey == b.taskKey && a.taskDisplayName == b.taskDisplayName && a.estimationCount == b.estimationCount)
                #expect(a.bias == b.bias && a.trend == b.trend && a.bestTimeOfDay == b.bestTimeOfDay)
                #expect(abs(a.consistency.spread - b.consistency.spread) < 1e-9 && a.consistency.level == b.consistency.level)
                #expect(a.texts == b.texts)
            }
        }
        // The order of the input does not matter.
        let reversed = InsightIndex(snapshots: all.reversed(), calendar: cal).insights()
        #expect(reversed.map(\.bias) == index.insights().map(\.bias))
        #expect(reversed.map(\.taskDisplayName) == index.insights().map(\.taskDisplayName))
    }

    @Test("only the requested tasks, and nothing before five estimations")
    func filters() {
        let cal = calendar()
        let all = history(seed: 3, count: 500, cal: cal)
        let index = InsightIndex(snapshots: all, calendar: cal)
        let one = Set([TaskKey.id(uuid(0x51))])
        #expect(index.insights(onlyTasks: one).map(\.taskKey) == [.id(uuid(0x51))])
        #expect(index.insights(recordedBefore: at(2024, 1, 1, 0, 0, cal)).isEmpty)
    }

    @Test("the cached local hour agrees with the calendar, DST days and odd offsets included")
    func localHours() {
        for zone in ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/St_Johns", "UTC"] {
            let cal = calendar(zone)
            var resolver = LocalHourResolver(timeZone: cal.timeZone)
            var t = at(2026, 1, 1, 0, 0, calendar()).timeIntervalSince1970
            while t < at(2027, 1, 1, 0, 0, calendar()).timeIntervalSince1970 {
                let d = Date(timeIntervalSince1970: t)
                #expect(resolver.hour(of: d) == cal.component(.hour, from: d), "\(zone) \(d)")
                t += 1_799  // every ~30 minutes, drifting through every minute offset
            }
        }
    }
}
