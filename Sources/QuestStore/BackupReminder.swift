import Foundation
import GRDB

/// BACK-1: the parent is reminded to take a backup off the box (the card is what dies) once a
/// week while none has left it: no stick got a copy and no backup was downloaded for 7 days.
/// The first comes a week after the box's first backup, never on the day it is set up.
public struct BackupReminder: Equatable, Sendable {
    /// The backup to download.
    public var newest: BackupInfo
    /// When a copy last left the box (a stick's copy or a download), if ever.
    public var lastOffTheBox: Date?

    public static let interval: TimeInterval = 7 * 86_400
}

extension BackupStore {
    /// A download from the parent area counts as a copy off the box.
    public func recordDownload(_ backup: BackupInfo, now: Date) throws {
        guard !isReadOnly else { return }
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO backupLog (createdAt, fileName, sizeBytes, kind) VALUES (?, ?, ?, 'downloaded')",
                arguments: [now.timeIntervalSince1970, backup.fileName, backup.sizeBytes])
        }
    }

    /// The reminder due now, or nil (a copy left the box this week, one was sent this week,
    /// the box is new, or there is no backup to take).
    /// The link asks after every change of the store: the store's own rows decide first, and
    /// the backups folder is listed only when a reminder is due.
    public func reminderDue(now: Date) throws -> BackupReminder? {
        let due = try pool.read { db -> (lastOff: Double?, due: Bool) in
            let first = try Double.fetchOne(db, sql: "SELECT MIN(createdAt) FROM backupLog WHERE kind IN ('automatic', 'manual') AND \(RowRules.valid("backupLog"))")
            let downloaded = try Double.fetchOne(db, sql: "SELECT MAX(createdAt) FROM backupLog WHERE kind = 'downloaded' AND \(RowRules.valid("backupLog"))")
            let copied = try db.tableExists("offCardCopy") ? try Double.fetchOne(db, sql: "SELECT MAX(copiedAt) FROM offCardCopy") : nil
            let reminded = try db.tableExists("linkStatus")
                ? try Double.fetchOne(db, sql: "SELECT backupReminderAt FROM linkStatus WHERE id = 1 AND \(RowRules.valid("linkStatus", columns: ["backupReminderAt"]))")
                : nil
            let lastOff = [downloaded, copied].compactMap { $0 }.max()
            // A time in the future (a clock set back since) puts nothing off.
            func withinAWeek(_ at: Double?) -> Bool {
                guard let at else { return false }
                return at <= now.timeIntervalSince1970 && now.timeIntervalSince1970 - at < BackupReminder.interval
            }
            guard let first, now.timeIntervalSince1970 - first >= BackupReminder.interval else { return (lastOff, false) }
            return (lastOff, !withinAWeek(lastOff) && !withinAWeek(reminded))
        }
        guard due.due, let newest = try self.newest() else { return nil }
        return BackupReminder(newest: newest, lastOffTheBox: due.lastOff.map(Date.init(timeIntervalSince1970:)))
    }

    /// The reminder went out (kept, so a restarted link does not send it again this week).
    public func markReminder(at date: Date) throws {
        try pool.write { db in
            try db.execute(sql: "INSERT INTO linkStatus (id) VALUES (1) ON CONFLICT(id) DO NOTHING")
            try db.execute(sql: "UPDATE linkStatus SET backupReminderAt = ? WHERE id = 1", arguments: [date.timeIntervalSince1970])
        }
    }
}
