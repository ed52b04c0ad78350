import Foundation
import GRDB
import QuestCore

extension QuestDatabase {
    /// Everything the quest machine needs from storage, as one value: routines, profile,
    /// per-task memory, completed plays and settings, in the box's calendar.
    /// `taskMemory: false` leaves out what only estimating needs (last estimates, recent
    /// times: three scans of the whole history, most of the load's time), for a reader that
    /// only shows what is offered, as the web's home does.
    public func loadWorld(calendar: Calendar, bootID: String, taskMemory: Bool = true) throws -> QuestWorld {
        let settings = try self.settings.current()
        let cal = settings.calendar(from: calendar)
        // Aggregates in SQL: the daemon never holds years of history in memory. XP and the
        // plays come from one read, so the profile agrees with the plays it was derived from.
        let (xp, plays) = try pool.read { db in (try Self.totalXP(db), try Self.questPlays(db)) }
        return QuestWorld(
            routines: try routines.all(), profile: .derived(totalXP: xp, plays: plays, calendar: cal), taskMemory: taskMemory ? try taskMemories() : [:],
            plays: plays, settings: settings.game, calendar: cal, bootID: bootID, reminders: try lastReminders(),
            pausedQuests: try pausedQuests())
    }

    /// REM-1: when each routine's reminder last sounded.
    /// Every reminder that sounded (REM-1), oldest first: what a family's month is checked
    /// against (each one at most once a day, never for a quest already played).
    public func remindersSounded() throws -> [(routineID: UUID, at: Date)] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT routineId, soundedAt FROM reminderLog WHERE \(RowRules.valid("reminderLog")) ORDER BY soundedAt")
                .map { (routineID: $0[0], at: Date(timeIntervalSince1970: $0[1])) }
        }
    }

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

extension QuestDatabase {
    /// REFL-1: last week's reflection if it had quests and was not dismissed, in `calendar`
    /// (the world's, with the first weekday applied). Read when the world is loaded and when
    /// a new week begins, never on a button press.
    public func pendingReflection(now: Date, calendar: Calendar) throws -> WeeklyReflection? {
        let dismissed = try reflectionTracking().dismissedWeek
        return WeeklyReflectionEngine.pendingReflection(
            snapshots: try snapshots(), sessions: try sessions(), now: now, calendar: calendar, dismissedWeek: dismissed)
    }
}
