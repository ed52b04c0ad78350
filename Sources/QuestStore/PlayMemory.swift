import Foundation
import GRDB
import QuestCore

/// What the box remembers of the plays: each task's memory for estimating, and the reminders
/// that sounded. Read at start and after every change elsewhere.
extension PlayStore {
    /// Every reminder that sounded (REM-1), oldest first: what a family's month is checked
    /// against (each one at most once a day, never for a quest already played).
    public func remindersSounded() throws -> [(routineID: UUID, at: Date)] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT routineId, soundedAt FROM reminderLog WHERE \(RowRules.valid("reminderLog")) ORDER BY soundedAt")
                .map { (routineID: $0[0], at: Date(timeIntervalSince1970: $0[1])) }
        }
    }

    /// REM-1: when each routine's reminder last sounded.
    func lastReminders() throws -> [UUID: Date] {
        try pool.read { db in
            var last: [UUID: Date] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT routineId, MAX(soundedAt) FROM reminderLog WHERE \(RowRules.valid("reminderLog")) GROUP BY routineId
                """) {
                last[row[0]] = Date(timeIntervalSince1970: row[1])
            }
            return last
        }
    }

    /// Each task's memory (last estimate, closest miss, the last five non-calibration actual
    /// durations, the bias sums) computed by SQLite; equal to replaying `TaskMemory.record` over the history
    /// (a test pins it). The box reads it at start and after every change elsewhere, so the
    /// newest rows are found by walking the (taskId, recordedAt) index backwards from each
    /// task's end rather than by numbering the whole history (112 → about 20 ms over five years).
    public func taskMemories() throws -> [UUID: TaskMemory] {
        // The distinct task ids, one index seek each (a skip scan), valid ids only.
        let tasks = """
            WITH RECURSIVE t(taskId) AS (
              SELECT MIN(taskId) FROM estimation
              UNION ALL SELECT (SELECT MIN(taskId) FROM estimation WHERE taskId > t.taskId) FROM t WHERE t.taskId IS NOT NULL)
            """
        let validTask = "t.taskId IS NOT NULL AND \(RowRules.valid("estimation", prefix: "t.", columns: ["taskId"]))"
        let newestFirst = "ORDER BY recordedAt DESC, rowid DESC"
        return try pool.read { db in
            var memory: [UUID: TaskMemory] = [:]
            for row in try Row.fetchAll(db, sql: """
                \(tasks)
                SELECT t.taskId, (SELECT estimatedSeconds FROM estimation
                                  WHERE taskId = t.taskId AND \(RowRules.valid("estimation", columns: ["estimatedSeconds", "recordedAt"]))
                                  \(newestFirst) LIMIT 1)
                FROM t WHERE \(validTask)
                """) {
                guard let estimate: Double = row[1] else { continue }
                let id: UUID = row[0]
                memory[id, default: TaskMemory()].lastEstimateSeconds = Int(estimate.rounded())
            }
            // The closest miss of every play, and INS-1's bias sums over the non-calibration
            // plays (the reveal's pattern line), in one scan of the history: two scans were
            // half of the box's start on five years (#49, start to ready). NOT INDEXED: walking
            // the (taskId, recordedAt) index for the grouping fetches each row on its own, which
            // took half again as long as reading the table in order and sorting (sqlite3, 29,216 rows).
            let biasRows = "NOT isCalibration AND \(RowRules.valid("estimation", columns: ["differenceSeconds", "actualSeconds"]))"
            for row in try Row.fetchAll(db, sql: """
                SELECT taskId, MIN(ABS(differenceSeconds)) FILTER (WHERE \(RowRules.valid("estimation", columns: ["differenceSeconds"]))),
                  COUNT(*) FILTER (WHERE \(biasRows)), SUM(differenceSeconds) FILTER (WHERE \(biasRows)),
                  SUM(actualSeconds) FILTER (WHERE \(biasRows))
                FROM estimation NOT INDEXED WHERE \(RowRules.valid("estimation", columns: ["taskId"])) GROUP BY taskId
                """) {
                let id: UUID = row[0]
                if let best = row[1] as Double? { memory[id, default: TaskMemory()].bestAbsDifferenceSeconds = best }
                let count: Int = row[2]
                if count > 0 { memory[id, default: TaskMemory()].bias = BiasSums(count: count, differenceSum: row[3], actualSum: row[4]) }
            }
            // The last few, oldest of them first (as TaskMemory.record appends them).
            for row in try Row.fetchAll(db, sql: """
                \(tasks)
                SELECT t.taskId, e.actualSeconds FROM t JOIN estimation e ON e.rowid IN (
                  SELECT rowid FROM estimation
                  WHERE taskId = t.taskId AND NOT isCalibration AND \(RowRules.valid("estimation", columns: ["actualSeconds", "recordedAt"]))
                  \(newestFirst) LIMIT \(ContextualHint.requiredHistory))
                WHERE \(validTask)
                ORDER BY t.taskId, e.recordedAt, e.rowid
                """) {
                let id: UUID = row[0]
                memory[id, default: TaskMemory()].recentActuals.append(row[1])
            }
            return memory
        }
    }
}
