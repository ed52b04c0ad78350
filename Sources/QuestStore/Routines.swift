import Foundation
import GRDB
import QuestCore

extension QuestDatabase {
    /// The family's routines and their tasks, over the store's one writer.
    public var routines: RoutineStore { RoutineStore(pool: pool) }
}

/// PAR-1, REM-1: the routines, their tasks and reminders: an area of the store (#49) with its
/// own records, over the one writer.
public struct RoutineStore: Sendable {
    let pool: any DatabaseWriter

    /// Every routine with its ordered tasks, in the parent's order.
    public func all() throws -> [Routine] {
        try pool.read { db in try Self.fetchRoutines(db, sql: "SELECT * FROM routine WHERE \(RowRules.valid("routine")) ORDER BY position, name") }
    }

    public func named(_ name: String) throws -> Routine? {
        try pool.read { db in try Self.fetchRoutines(db, sql: "SELECT * FROM routine WHERE name = ? AND \(RowRules.valid("routine"))", arguments: [name]).first }
    }

    public func withID(_ id: UUID) throws -> Routine? {
        try pool.read { db in try Self.fetchRoutines(db, sql: "SELECT * FROM routine WHERE id = ? AND \(RowRules.valid("routine"))", arguments: [id]).first }
    }

    /// A short fingerprint of a routine as stored (names, days, tasks and their ids, reminder):
    /// an editor sends it back so a save can tell whether someone else changed the routine.
    public static func revision(of routine: Routine) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // FNV-1a over the canonical JSON: a change detector, not a secret.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (try? encoder.encode(routine)) ?? Data() {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
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
        try pool.write { db in try Self.writeReminder(db, reminder, forRoutineNamed: name) }
    }

    static func writeReminder(_ db: Database, _ reminder: ReminderChoice, forRoutineNamed name: String) throws -> Bool {
        try db.execute(sql: "UPDATE routine SET reminder = ? WHERE name = ?", arguments: [stored(reminder), name])
        return db.changesCount > 0
    }

    /// Inserts or replaces a routine (matched by id) and its tasks, in one transaction.
    /// Names are unique: another routine with the same name is an error. A routine whose
    /// `reminder` is nil keeps the stored reminder (a re-imported file does not reset it).
    /// With `revision` (from `revision(of:)` when the editor read it), the save happens only
    /// if the stored routine is still that one (checked in the same transaction); otherwise
    /// `StoreError.changedElsewhere` and nothing is written.
    public func save(_ routine: Routine, ifStillAt revision: String? = nil) throws {
        try pool.write { db in
            if let revision {
                let stored = try Self.fetchRoutines(db, sql: "SELECT * FROM routine WHERE id = ? AND \(RowRules.valid("routine"))", arguments: [routine.id]).first
                guard let stored else { throw StoreError.changedElsewhere("this routine was removed meanwhile") }
                guard Self.revision(of: stored) == revision else {
                    throw StoreError.changedElsewhere("this routine was changed meanwhile (on the box, with the command line or on another page)")
                }
            }
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

    /// PAR-1: pauses or resumes a routine, in SQL (nothing else about it is rewritten).
    /// False when no routine has that id.
    @discardableResult
    public func setActive(_ isActive: Bool, id: UUID) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "UPDATE routine SET isActive = ? WHERE id = ?", arguments: [isActive, id])
            return db.changesCount > 0
        }
    }

    /// Removes a routine by id; its plays stay in the history. False when unknown.
    @discardableResult
    public func remove(id: UUID) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM routine WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Removes a routine and its tasks; its plays stay in the history. False when unknown.
    @discardableResult
    public func remove(named name: String) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM routine WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }
}

extension RoutineStore {
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
