import Foundation
import QuestStore

/// What the web app needs of the backups (#49: a store protocol per area, as the routines and
/// the paired browsers have): the store itself in the running app, a fake in the tests.
protocol BackupShelf: Sendable {
    /// A copy of the whole store made now, in the backups folder.
    @discardableResult func make(kind: BackupKind, now: Date) throws -> BackupInfo
    func all() throws -> [BackupInfo]
    /// BACK-2: the store replaced by `file` (checked first), a safety copy made before.
    func restore(from file: String, now: Date) throws -> BackupInfo
    func recordDownload(_ backup: BackupInfo, now: Date) throws
    /// BACK-1: the copies on the sticks seen so far.
    func offCardStatuses() throws -> [OffCardStatus]
    /// Where an upload is written before it is checked.
    func incomingFile() throws -> IncomingFile
}

extension BackupStore: BackupShelf {
    @discardableResult
    func make(kind: BackupKind, now: Date) throws -> BackupInfo { try make(to: nil, kind: kind, now: now) }
}
