import Foundation
import GRDB
import QuestCore

extension QuestDatabase {
    /// Every routine with its ordered tasks, in the parent's order.
    public func routines() throws -> [Routine] {
        try pool.read { db in try Self.fetchRoutines(db, sql: "SELECT * FROM routine WHERE \(RowRules.valid("routine")) ORDER BY position, name") }
    }

    public func routine(named name: String) throws -> Routine? {
        try pool.read { db in try Self.fetchRoutines(db, sql: "SELECT * FROM routine WHERE name = ? AND \(RowRules.valid("routine"))", arguments: [name]).first }
    }

    /// Only rows that keep `RowRules` are selected, so every decode below succeeds.
    static func fetchRoutines(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [Routine] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            let id: UUID = row["id"]
            let tasks = try Row.fetchAll(db, sql: "SELECT * FROM routineTask WHERE routineId = ? AND \(RowRules.valid("routineTask")) ORDER BY position", arguments: [id])
                .map { t in
                    RoutineTask(id: t["id"], name: t["name"], displayName: t["displayName"], referenceDurationSeconds: t["referenceDurationSeconds"])
                }
            let days = (row["activeDays"] as String).split(separator: ",").compactMap { Int($0) }
            return Routine(
                id: id, name: row["name"], displayName: row["displayName"], activeDays: days, isActive: row["isActive"],
                createdBy: RoutineCreator(rawValue: row["createdBy"]) ?? .parent, tasks: tasks,
                reminder: (row["reminder"] as String?).flatMap(ReminderChoice.init))
        }
    }

    /// The stored form of a reminder: NULL for the box's time, "off", or "HH:MM".
    static func stored(_ reminder: ReminderChoice) -> String? {
        reminder == .standard ? nil : reminder.description
    }

    /// REM-1: sets when one routine's reminder sounds. False when no routine has that name.
    @discardableResult
    public func setReminder(_ reminder: ReminderChoice, forRoutineNamed name: String) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "UPDATE routine SET reminder = ? WHERE name = ?", arguments: [Self.stored(reminder), name])
            return db.changesCount > 0
        }
    }

    /// Inserts or replaces a routine (matched by id) and its tasks, in one transaction.
    /// Names are unique: another routine with the same name is an error. A routine whose
    /// `reminder` is nil keeps the stored reminder (a re-imported file does not reset it).
    public func saveRoutine(_ routine: Routine) throws {
        try pool.write { db in
            if let clash = try Row.fetchOne(db, sql: "SELECT id FROM routine WHERE name = ? AND id != ?", arguments: [routine.name, routine.id]) {
                _ = clash
                throw StoreError.invalid("a routine named \"\(routine.name)\" already exists")
            }
            let days = routine.activeDays.map(String.init).joined(separator: ",")
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM routine WHERE id = ?", arguments: [routine.id]) == true {
                try db.execute(
                    sql: "UPDATE routine SET name = ?, displayName = ?, activeDays = ?, isActive = ?, createdBy = ? WHERE id = ?",
                    arguments: [routine.name, routine.displayName, days, routine.isActive, routine.createdBy.rawValue, routine.id])
                if let reminder = routine.reminder {
                    try db.execute(sql: "UPDATE routine SET reminder = ? WHERE id = ?", arguments: [Self.stored(reminder), routine.id])
                }
            } else {
                let position = (try Int.fetchOne(db, sql: "SELECT MAX(position) FROM routine") ?? -1) + 1
                try db.execute(
                    sql: "INSERT INTO routine (id, name, displayName, activeDays, isActive, createdBy, position, reminder) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: [routine.id, routine.name, routine.displayName, days, routine.isActive, routine.createdBy.rawValue, position,
                                routine.reminder.flatMap(Self.stored)])
            }
            try db.execute(sql: "DELETE FROM routineTask WHERE routineId = ?", arguments: [routine.id])
            for (position, task) in routine.tasks.enumerated() {
                try db.execute(
                    sql: "INSERT INTO routineTask (id, routineId, position, name, displayName, referenceDurationSeconds) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [task.id, routine.id, position, task.name, task.displayName, task.referenceDurationSeconds])
            }
        }
    }

    /// Removes a routine and its tasks; its plays stay in the history. False when unknown.
    @discardableResult
    public func removeRoutine(named name: String) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM routine WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }
}

extension QuestDatabase {
    /// PAR-1's aggregate for the parent: how many times each routine was played to the end
    /// since `since` (by routine id), and nothing about its tasks or estimates.
    public func completedPlayCounts(since: Date) throws -> [UUID: Int] {
        try pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT routineId, COUNT(*) FROM session
                WHERE status = 'completed' AND startedAt >= ? AND \(RowRules.valid("session", columns: ["routineId", "startedAt"]))
                GROUP BY routineId
                """, arguments: [since.timeIntervalSince1970])
            var counts: [UUID: Int] = [:]
            for row in rows {
                if let id = row[0] as UUID? { counts[id] = row[1] }
            }
            return counts
        }
    }
}
