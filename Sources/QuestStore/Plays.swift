import Foundation
import GRDB
import GRDBSQLite
import QuestCore

extension QuestDatabase {
    /// The plays: quests, their estimations, the task being timed, the reminders sounded.
    public var plays: PlayStore { PlayStore(pool: pool) }
}

/// GAME-5, SCORE-1, §5: the append-only history of plays and the task being timed: an area of
/// the store (#49) with its own records, over the one writer.
public struct PlayStore: Sendable {
    let pool: any DatabaseWriter

    /// Writes what the quest machine asked to persist, each request in its own transaction.
    /// `wallClockTrusted` marks wall times taken before the clock was synchronized, to be
    /// corrected later (`correctUntrustedWallTimes`).
    public func apply(_ request: PersistRequest, wallClockTrusted: Bool) throws {
        try Self.checkWallTimes(request)
        try pool.write { db in
            switch request {
            case .sessionStarted(let s):
                try Self.insertSession(db, s, trusted: wallClockTrusted)
            case .taskStarted(let t):
                try db.execute(
                    sql: """
                        INSERT INTO inProgressTask (id, sessionId, taskIndex, taskId, estimatedSeconds, lockMonotonicNanos, bootId, lockedAt, lockedAtTrusted)
                        VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET sessionId = excluded.sessionId, taskIndex = excluded.taskIndex,
                          taskId = excluded.taskId, estimatedSeconds = excluded.estimatedSeconds,
                          lockMonotonicNanos = excluded.lockMonotonicNanos, bootId = excluded.bootId,
                          lockedAt = excluded.lockedAt, lockedAtTrusted = excluded.lockedAtTrusted
                        """,
                    arguments: [t.session.id, t.taskIndex, t.taskID, t.estimatedSeconds, t.lockMonotonicNanos, t.bootID,
                                t.lockedAt.timeIntervalSince1970, t.lockedAtTrusted])
                // The session row exists from sessionStarted; after a restore it may not (a
                // database restored mid-quest), so make sure it does.
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM session WHERE id = ?", arguments: [t.session.id]) != true {
                    try Self.insertSession(db, t.session, trusted: t.lockedAtTrusted)
                }
            case .estimationCompleted(let e):
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM session WHERE id = ?", arguments: [e.sessionID]) != true {
                    throw StoreError.invalid("estimation \(e.id) names unknown session \(e.sessionID)")
                }
                try Self.insertEstimation(db, e, trusted: wallClockTrusted)
                try db.execute(sql: "DELETE FROM inProgressTask")
            case .sessionCompleted(let s):
                try Self.updateSession(db, s)
            case .sessionAbandoned(let s), .sessionPaused(let s):
                try Self.updateSession(db, s)
                try db.execute(sql: "DELETE FROM inProgressTask")
            case .sessionResumed(let s):
                try Self.updateSession(db, s)
            case .inProgressCleared:
                try db.execute(sql: "DELETE FROM inProgressTask")
            case .reminderSounded(let routineID, _, let at):
                try db.execute(
                    sql: "INSERT INTO reminderLog (routineId, soundedAt) VALUES (?, ?)", arguments: [routineID, at.timeIntervalSince1970])
            case .soundMuted(let muted):
                // The box's own switch (#32); refused in SQL when a parent locked it meanwhile.
                try SettingsRecords.ensureSettingsRow(db)
                try db.execute(sql: "UPDATE settings SET soundEnabled = ? WHERE id = 1 AND lockSoundMute = 0", arguments: [!muted])
            case .reflectionDismissed(let week):
                try db.execute(
                    sql: "INSERT INTO reflectionTracking (id, dismissedWeek) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET dismissedWeek = excluded.dismissedWeek",
                    arguments: [week])
            }
        }
    }

    /// Whether `error` from `apply` is a refusal that no retry will change (a constraint, an
    /// estimation naming an unknown session), as opposed to the disk (full, read-only, I/O).
    /// A wall time the store could not read back (#31: `simulate --now 99999-…` stored rows
    /// that emptied the history) is refused before anything is written.
    static func checkWallTimes(_ request: PersistRequest) throws {
        let times: [(String, Date)] = switch request {
        case .sessionStarted(let s): [("startedAt", s.startedAt)]
        case .taskStarted(let t): [("lockedAt", t.lockedAt)]
        case .estimationCompleted(let e): [("recordedAt", e.recordedAt)]
        case .sessionCompleted(let s), .sessionAbandoned(let s), .sessionPaused(let s), .sessionResumed(let s): [("startedAt", s.startedAt)] + (s.completedAt.map { [("completedAt", $0)] } ?? [])
        case .reminderSounded(_, _, let at): [("soundedAt", at)]
        case .inProgressCleared, .reflectionDismissed, .soundMuted: []
        }
        for (field, date) in times where !RowRules.isStorableWallTime(date) {
            throw StoreError.invalid("\(request.kind): \(field) \(date.timeIntervalSince1970) s since 1970 is outside the years the store keeps (1653–5138)")
        }
    }

    public static func isRefusal(_ error: Error) -> Bool {
        if case StoreError.invalid = error { return true }
        if let e = error as? DatabaseError { return e.resultCode == .SQLITE_CONSTRAINT || e.resultCode == .SQLITE_MISMATCH }
        return false
    }

    /// Quests left `in_progress` with no task being timed (the box stopped between tasks, or
    /// a save failed before shutdown) become abandoned, keeping their estimations' XP.
    /// Returns how many were closed.
    @discardableResult
    public func abandonUnfinishedSessions() throws -> Int {
        try pool.write { db in
            try db.execute(sql: """
                UPDATE session SET status = 'abandoned',
                  xpEarned = COALESCE((SELECT SUM(e.xpEarned) FROM estimation e WHERE e.sessionId = session.id), 0)
                WHERE status = 'in_progress' AND id NOT IN (SELECT sessionId FROM inProgressTask)
                """)
            return db.changesCount
        }
    }

    static func insertSession(_ db: Database, _ s: GameSession, trusted: Bool) throws {
        try db.execute(
            sql: """
                INSERT INTO session (id, routineId, routineDisplayName, startedAt, startedMonotonicNanos, bootId, wallClockTrusted,
                  completedAt, status, isCalibration, xpEarned) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [s.id, s.routineID, s.routineDisplayName, s.startedAt.timeIntervalSince1970, s.startedMonotonicNanos, s.bootID,
                        trusted, s.completedAt?.timeIntervalSince1970, s.status.rawValue, s.isCalibration, s.xpEarned])
    }

    static func updateSession(_ db: Database, _ s: GameSession) throws {
        try db.execute(
            sql: "UPDATE session SET completedAt = ?, status = ?, xpEarned = ? WHERE id = ?",
            arguments: [s.completedAt?.timeIntervalSince1970, s.status.rawValue, s.xpEarned, s.id])
        if db.changesCount == 0 { try insertSession(db, s, trusted: false) }
    }

    static func insertEstimation(_ db: Database, _ e: TaskEstimation, trusted: Bool) throws {
        try db.execute(
            sql: """
                INSERT INTO estimation (id, sessionId, taskId, taskDisplayName, routineDisplayName, orderIndex, estimatedSeconds,
                  actualSeconds, differenceSeconds, accuracyPercent, rating, xpEarned, isCalibration, recordedAt,
                  lockMonotonicNanos, stopMonotonicNanos, bootId, wallClockTrusted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [e.id, e.sessionID, e.taskID, e.taskDisplayName, e.routineDisplayName, e.orderIndex, e.estimatedSeconds,
                        e.actualSeconds, e.differenceSeconds, e.accuracyPercent, e.rating.rawValue, e.xpEarned, e.isCalibration,
                        e.recordedAt.timeIntervalSince1970, e.lockMonotonicNanos, e.stopMonotonicNanos, e.bootID, trusted])
    }

    // MARK: reading

    static func session(_ row: Row) -> GameSession {
        GameSession(
            id: row["id"], routineID: row["routineId"], routineDisplayName: row["routineDisplayName"],
            startedAt: Date(timeIntervalSince1970: row["startedAt"]), startedMonotonicNanos: row["startedMonotonicNanos"],
            bootID: row["bootId"], completedAt: (row["completedAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
            status: SessionStatus(rawValue: row["status"]) ?? .abandoned, isCalibration: row["isCalibration"], xpEarned: row["xpEarned"])
    }

    static func estimation(_ row: Row) -> TaskEstimation {
        let estimated: Double = row["estimatedSeconds"], actual: Double = row["actualSeconds"]
        var result = TimeEstimationScorer.score(estimated: estimated, actual: actual)
        result.accuracyPercent = row["accuracyPercent"]
        result.rating = AccuracyRating(rawValue: row["rating"]) ?? result.rating
        return TaskEstimation(
            id: row["id"], sessionID: row["sessionId"], taskID: row["taskId"], taskDisplayName: row["taskDisplayName"],
            routineDisplayName: row["routineDisplayName"], orderIndex: row["orderIndex"], result: result, xpEarned: row["xpEarned"],
            isCalibration: row["isCalibration"], recordedAt: Date(timeIntervalSince1970: row["recordedAt"]),
            lockMonotonicNanos: row["lockMonotonicNanos"], stopMonotonicNanos: row["stopMonotonicNanos"], bootID: row["bootId"])
    }

    /// Every estimation, oldest first.
    /// When a task was last played (its stop), for the parent's health page; nil before any.
    public func lastPlayedAt() throws -> Date? {
        try pool.read { db in
            try Double.fetchOne(db, sql: "SELECT MAX(recordedAt) FROM estimation WHERE \(RowRules.valid("estimation"))")
                .map(Date.init(timeIntervalSince1970:))
        }
    }

    /// The estimations of these sessions (a day's quests on her stats), in the order played.
    public func estimations(ofSessions ids: [UUID]) throws -> [TaskEstimation] {
        guard !ids.isEmpty else { return [] }
        return try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM estimation WHERE sessionId IN (\(databaseQuestionMarks(count: ids.count))) AND \(RowRules.valid("estimation")) ORDER BY recordedAt, rowid",
                arguments: StatementArguments(ids)).map(Self.estimation)
        }
    }

    public func estimations() throws -> [TaskEstimation] {
        try pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM estimation WHERE \(RowRules.valid("estimation")) ORDER BY recordedAt, rowid").map(Self.estimation) }
    }

    /// Every estimation as the analysis engines take it, oldest first. The hot path for
    /// years of history (the stats view, the weekly card): rows in table order (plays are
    /// appended in time order, so this is a sequential read), stepped directly on the
    /// statement GRDB prepared and owns, and sorted only if a corrected wall time moved one.
    public func snapshots() throws -> [EstimationSnapshot] {
        var result: [EstimationSnapshot] = try pool.read { db in
            var result: [EstimationSnapshot] = []
            result.reserveCapacity(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM estimation") ?? 0)
            let statement = try db.makeStatement(sql: """
                SELECT taskId, taskDisplayName, routineDisplayName, estimatedSeconds, actualSeconds, differenceSeconds,
                  accuracyPercent, rating, recordedAt, isCalibration, sessionId FROM estimation ORDER BY rowid
                """)
            let s = statement.sqliteStatement
            defer { sqlite3_reset(s) }
            while true {
                let code = sqlite3_step(s)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage) }
                // A row that breaks `RowRules` in a number the engines compute with (NULL, text,
                // infinite, out of range) is skipped here, in Swift: an SQL filter over every
                // column costs more than the whole read on years of history.
                guard Self.isSeconds(s, 3), Self.isSeconds(s, 4), Self.isNumber(s, 5, within: -RowRules.maxSeconds...RowRules.maxSeconds),
                      Self.isNumber(s, 6, within: 0...100), Self.isNumber(s, 8, within: RowRules.wallRange.0...RowRules.wallRange.1)
                else { continue }
                let estimated = sqlite3_column_double(s, 3), actual = sqlite3_column_double(s, 4)
                let rating = AccuracyRating(rawValue: Self.text(s, 7))
                    ?? TimeEstimationScorer.score(estimated: estimated, actual: actual).rating
                result.append(EstimationSnapshot(
                    taskID: Self.uuid(s, 0), taskDisplayName: Self.text(s, 1), routineDisplayName: Self.text(s, 2),
                    estimatedSeconds: estimated, actualSeconds: actual, differenceSeconds: sqlite3_column_double(s, 5),
                    accuracyPercent: sqlite3_column_double(s, 6), rating: rating,
                    recordedAt: Date(timeIntervalSince1970: sqlite3_column_double(s, 8)), isCalibration: sqlite3_column_int(s, 9) != 0,
                    sessionID: Self.uuid(s, 10)))
            }
            return result
        }
        if !Self.isInOrder(result, by: \.recordedAt) {
            result = result.enumerated().sorted { ($0.element.recordedAt, $0.offset) < ($1.element.recordedAt, $1.offset) }.map(\.element)
        }
        return result
    }

    /// Compares neighbours by index: no element (and its strings) is copied.
    static func isInOrder<T>(_ items: [T], by key: KeyPath<T, Date>) -> Bool {
        guard items.count > 1 else { return true }
        for i in 1..<items.count where items[i - 1][keyPath: key] > items[i][keyPath: key] { return false }
        return true
    }

    /// A REAL or INTEGER column whose value lies in `range` (never NaN or infinite).
    static func isNumber(_ s: SQLiteStatement, _ column: Int32, within range: ClosedRange<Double>) -> Bool {
        let type = sqlite3_column_type(s, column)
        return (type == SQLITE_FLOAT || type == SQLITE_INTEGER) && range.contains(sqlite3_column_double(s, column))
    }

    static func isSeconds(_ s: SQLiteStatement, _ column: Int32) -> Bool { isNumber(s, column, within: 0...RowRules.maxSeconds) }

    /// A text column ("" for NULL).
    static func text(_ s: SQLiteStatement, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(s, column) else { return "" }
        return String(cString: bytes)
    }

    /// A UUID stored as a 16-byte blob (nil for anything else).
    static func uuid(_ s: SQLiteStatement, _ column: Int32) -> UUID? {
        guard sqlite3_column_bytes(s, column) == 16, let blob = sqlite3_column_blob(s, column) else { return nil }
        return UUID(uuid: UnsafeRawPointer(blob).loadUnaligned(as: uuid_t.self))
    }

    public func sessions() throws -> [GameSession] {
        try sessions(startedIn: nil)
    }

    /// The sessions started in `range` (wall time, half open: a day's, for what the house is
    /// told after each press), read with the index on their start instead of the whole history.
    public func sessions(startedIn range: Range<Date>?) throws -> [GameSession] {
        try pool.read { db in
            var result: [GameSession] = []
            let within = range == nil ? "" : "startedAt >= ? AND startedAt < ? AND "
            let arguments: StatementArguments = range.map { [$0.lowerBound.timeIntervalSince1970, $0.upperBound.timeIntervalSince1970] } ?? []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, routineId, routineDisplayName, startedAt, startedMonotonicNanos, bootId, completedAt, status,
                  isCalibration, xpEarned FROM session WHERE \(within)\(RowRules.valid("session")) ORDER BY rowid
                """, arguments: arguments)
            while let row = try rows.next() {
                let completed: Double? = row[6]
                result.append(GameSession(
                    id: row[0], routineID: row[1], routineDisplayName: row[2], startedAt: Date(timeIntervalSince1970: row[3]),
                    startedMonotonicNanos: row[4], bootID: row[5], completedAt: completed.map(Date.init(timeIntervalSince1970:)),
                    status: SessionStatus(rawValue: row[7]) ?? .abandoned, isCalibration: row[8], xpEarned: row[9]))
            }
            // Sessions are appended in time order; keep the promise if a correction moved one.
            if !Self.isInOrder(result, by: \.startedAt) {
                result = result.enumerated().sorted { ($0.element.startedAt, $0.offset) < ($1.element.startedAt, $1.offset) }.map(\.element)
            }
            return result
        }
    }

    /// Completed quests with their measured task time (STREAK-2's good-day test).
    public func questPlays() throws -> [QuestPlay] {
        try pool.read { db in try Self.questPlays(db) }
    }

    static func questPlays(_ db: Database) throws -> [QuestPlay] {
        try Row.fetchAll(db, sql: """
            SELECT s.routineId, s.completedAt, COALESCE(SUM(e.actualSeconds), 0) AS measured
            FROM session s LEFT JOIN estimation e
              ON e.sessionId = s.id AND \(RowRules.valid("estimation", prefix: "e.", columns: ["actualSeconds"]))
            WHERE s.status = 'completed' AND \(RowRules.valid("session", prefix: "s.", columns: ["routineId", "completedAt"]))
              AND s.completedAt IS NOT NULL
            GROUP BY s.id ORDER BY s.completedAt
            """).map { row in
            QuestPlay(routineID: row[0], completedAt: Date(timeIntervalSince1970: row[1]), measuredTaskSeconds: row[2])
        }
    }

    /// GAME-7: each routine's latest quest when it is paused, with the tasks it played (in
    /// order). The machine picks one up only on the day it started.
    public func pausedQuests() throws -> [PausedQuest] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.* FROM session s
                JOIN (SELECT routineId, MAX(startedAt) AS latest FROM session GROUP BY routineId) l
                  ON s.routineId = l.routineId AND s.startedAt = l.latest
                WHERE s.status = 'paused' AND \(RowRules.valid("session", prefix: "s."))
                ORDER BY s.startedAt
                """)
            .map(Self.session)
            .map { PausedQuest(session: $0, estimations: try Self.estimations(ofSession: $0.id, db)) }
        }
    }

    /// GAME-5: the task being timed and the estimations its session already has.
    public func inProgress() throws -> (task: InProgressTask, completed: [TaskEstimation])? {
        try pool.read { db in
            guard let t = try Row.fetchOne(db, sql: "SELECT * FROM inProgressTask WHERE id = 1 AND \(RowRules.valid("inProgressTask"))"),
                  let s = try Row.fetchOne(
                      db, sql: "SELECT * FROM session WHERE id = ? AND \(RowRules.valid("session"))", arguments: [t["sessionId"] as UUID])
            else { return nil }
            let task = InProgressTask(
                session: Self.session(s), taskIndex: t["taskIndex"], taskID: t["taskId"], estimatedSeconds: t["estimatedSeconds"],
                lockMonotonicNanos: t["lockMonotonicNanos"], bootID: t["bootId"], lockedAt: Date(timeIntervalSince1970: t["lockedAt"]),
                lockedAtTrusted: t["lockedAtTrusted"])
            return (task, try Self.estimations(ofSession: task.session.id, db))
        }
    }

    /// A session's estimations, in task order (the readable ones).
    static func estimations(ofSession id: UUID, _ db: Database) throws -> [TaskEstimation] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM estimation WHERE sessionId = ? AND \(RowRules.valid("estimation")) ORDER BY orderIndex", arguments: [id]
        ).map(Self.estimation)
    }

    /// §5: once the wall clock is trusted, wall times recorded in this boot before it was are
    /// recomputed from their monotonic timestamps (durations never change). Returns how many
    /// records were corrected. Untrusted times from earlier boots cannot be bridged and stay
    /// marked as such.
    @discardableResult
    public func correctUntrustedWallTimes(bootID: String, wallNow: Date, monotonicNow: Int64) throws -> Int {
        let now = wallNow.timeIntervalSince1970
        return try pool.write { db in
            var corrected = 0
            try db.execute(
                sql: "UPDATE estimation SET recordedAt = ? - (? - stopMonotonicNanos) / 1e9, wallClockTrusted = 1 WHERE bootId = ? AND NOT wallClockTrusted",
                arguments: [now, monotonicNow, bootID])
            corrected += db.changesCount
            // A session's completion moves by the same amount as its start (one clock step).
            try db.execute(
                sql: """
                    UPDATE session SET
                      completedAt = completedAt + ((? - (? - startedMonotonicNanos) / 1e9) - startedAt),
                      startedAt = ? - (? - startedMonotonicNanos) / 1e9,
                      wallClockTrusted = 1
                    WHERE bootId = ? AND NOT wallClockTrusted
                    """,
                arguments: [now, monotonicNow, now, monotonicNow, bootID])
            corrected += db.changesCount
            try db.execute(
                sql: "UPDATE inProgressTask SET lockedAt = ? - (? - lockMonotonicNanos) / 1e9, lockedAtTrusted = 1 WHERE bootId = ? AND NOT lockedAtTrusted",
                arguments: [now, monotonicNow, bootID])
            corrected += db.changesCount
            return corrected
        }
    }

    /// Imports finished plays in one transaction (old data, benchmarks). Sessions first, so
    /// every estimation finds its session.
    public func recordHistory(sessions: [GameSession], estimations: [TaskEstimation], wallClockTrusted: Bool) throws {
        try pool.write { db in
            for s in sessions { try Self.insertSession(db, s, trusted: wallClockTrusted) }
            for e in estimations { try Self.insertEstimation(db, e, trusted: wallClockTrusted) }
        }
    }
}
