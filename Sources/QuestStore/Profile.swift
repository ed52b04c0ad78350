import Foundation
import GRDB
import QuestCore

extension QuestDatabase {
    /// The player's totals, derived from the history in one read transaction: XP from the
    /// sessions and estimations, the quest count, streak and last play day from the completed
    /// quests (in `calendar`'s time zone). Nothing is cached, so no writer's memory can ever
    /// overwrite another's plays (the CLI, the daemon and the web app write at once).
    public func profile(calendar: Calendar = .current) throws -> PlayerProfile {
        let (xp, plays) = try pool.read { db in (try Self.totalXP(db), try PlayStore.questPlays(db)) }
        return PlayerProfile.derived(totalXP: xp, plays: plays, calendar: calendar)
    }

    /// The same profile from history a view has already loaded (the stats view reads every
    /// session): completed quests' XP from `sessions`, only the unfinished quests' XP from SQL.
    public func profile(sessions: [GameSession], plays: [QuestPlay], calendar: Calendar) throws -> PlayerProfile {
        let completedXP = sessions.reduce(0) { $0 + ($1.status == .completed ? $1.xpEarned : 0) }
        let unfinishedXP = try pool.read { db in try Self.unfinishedXP(db) }
        return PlayerProfile.derived(totalXP: completedXP + unfinishedXP, plays: plays, calendar: calendar)
    }

    /// CROSS JOIN keeps the sessions as the outer loop: the few unfinished ones find their
    /// estimations through the index (0.2 ms on five years) instead of a scan of every estimation.
    static func unfinishedXP(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT COALESCE(SUM(e.xpEarned), 0) FROM session s CROSS JOIN estimation e ON e.sessionId = s.id
            WHERE s.status <> 'completed' AND \(RowRules.valid("estimation", prefix: "e.", columns: ["xpEarned"]))
            """) ?? 0
    }

    /// XP-1 over the history: a completed quest counts with the XP stored at its completion (its
    /// estimations' and the completion bonus); any other quest (in progress, abandoned) with its
    /// estimations' XP, which the player was shown at each reveal.
    static func totalXP(_ db: Database) throws -> Int {
        let completed = try Int.fetchOne(db, sql: """
            SELECT COALESCE(SUM(xpEarned), 0) FROM session WHERE status = 'completed' AND \(RowRules.valid("session", columns: ["xpEarned"]))
            """) ?? 0
        return completed + (try unfinishedXP(db))
    }

    /// Completed sessions whose stored XP is not their estimations' XP plus the completion
    /// bonus (`doctor`): the one total the history keeps per row. Only a foreign writer or an
    /// edited file can make one.
    public func inconsistentSessionXP(rules: GameRules = .standard) throws -> [UUID] {
        try pool.read { db in
            try UUID.fetchAll(db, sql: """
                SELECT id FROM session
                WHERE status = 'completed' AND \(RowRules.valid("session", columns: ["id", "xpEarned"])) AND xpEarned <> \(Self.expectedSessionXP)
                """, arguments: [rules.xpSessionCompletionBonus])
        }
    }

    /// What a completed session's XP must be: the bonus (the one argument) plus its
    /// estimations' XP. `doctor` checks and `repair` writes the same expression.
    static let expectedSessionXP = """
        (? + COALESCE((SELECT SUM(e.xpEarned) FROM estimation e
                       WHERE e.sessionId = session.id AND \(RowRules.valid("estimation", prefix: "e.", columns: ["xpEarned"]))), 0))
        """

    /// Sets every completed session's XP to its estimations' plus the completion bonus (what
    /// the machine stored at completion); returns how many rows changed. Estimations, the
    /// append-only record, are never touched.
    @discardableResult
    public func repairSessionXP(rules: GameRules = .standard) throws -> Int {
        try pool.write { db in
            try db.execute(sql: """
                UPDATE session SET xpEarned = \(Self.expectedSessionXP)
                WHERE status = 'completed' AND xpEarned <> \(Self.expectedSessionXP)
                """, arguments: [rules.xpSessionCompletionBonus, rules.xpSessionCompletionBonus])
            return db.changesCount
        }
    }

    /// REFL-1 tracking: the last ISO week whose reflection was shown, and the last dismissed.
    func reflectionTracking() throws -> (lastShownWeek: String?, dismissedWeek: String?) {
        try pool.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT lastShownWeek, dismissedWeek FROM reflectionTracking WHERE id = 1 AND \(RowRules.valid("reflectionTracking"))")
            return (row?[0], row?[1])
        }
    }
}
