import Foundation
import GRDB
import InputFiles
import QuestCore
#if canImport(Glibc)
import Glibc
#endif

/// What a copy to a stick came to.
public enum OffCardOutcome: Equatable, Sendable {
    /// The newest backup was written to the stick (fsynced, under its own name).
    case copied(OffCardCopy)
    /// The stick already holds it: nothing was written.
    case alreadyThere(OffCardCopy)
}

/// A backup on a stick, in its folder `TimeQuest backups`.
public struct OffCardCopy: Equatable, Sendable {
    public var label: String
    public var path: String
    public var fileName: String { (path as NSString).lastPathComponent }
    public var sizeBytes: Int
    public var createdAt: Date

    public init(label: String, path: String, sizeBytes: Int, createdAt: Date) {
        self.label = label
        self.path = path
        self.sizeBytes = sizeBytes
        self.createdAt = createdAt
    }
}

/// What the store remembers of a stick: its last copy, or why the last try failed.
public struct OffCardStatus: Equatable, Sendable {
    public var label: String
    public var fileName: String?
    public var sizeBytes: Int?
    public var copiedAt: Date?
    public var problem: String?
    public var problemAt: Date?
}

/// BACK-1, off the card: the newest backup copied to every stick the box finds, into a folder
/// it makes (`TimeQuest backups`), the newest `offCardCopiesKept` kept there. A stick is
/// hostile input too: its folder must be a folder (never a link), a copy goes to a temporary
/// name, is fsynced and renamed, so a stick pulled mid-write holds the old copies and at most
/// a `.partial` file; a full, read-only or vanished stick is one line naming it.
extension BackupStore {
    public static let offCardFolderName = "TimeQuest backups"
    public static let offCardCopiesKept = 10
    /// Sticks the store remembers (the most recently used first).
    static let offCardStatusesKept = 8

    /// Copies the newest backup in `backups/` to `volume` (nothing when it is there already).
    public func copyNewest(to volume: RemovableVolume, now: Date) throws -> OffCardOutcome {
        do {
            let outcome = try Self.copyNewest(try all().first, to: volume)
            if case .copied(let copy) = outcome { try recordOffCard(label: volume.label, copy: copy, problem: nil, now: now) }
            return outcome
        } catch let error as StoreError {
            try? recordOffCard(label: volume.label, copy: nil, problem: error.description, now: now)
            throw error
        }
    }

    static func copyNewest(_ newest: BackupInfo?, to volume: RemovableVolume) throws -> OffCardOutcome {
        let name = "USB stick “\(volume.label)” (\(DisplayText.escaped(volume.mountPoint)))"
        func fail(_ problem: String) -> StoreError { .io("\(name): \(problem)") }
        guard let newest else { throw fail("no backup on the box yet to copy") }
        guard !volume.readOnly else { throw fail("it is read-only (its switch, or a damaged file system); nothing was written") }
        let folder = (volume.mountPoint as NSString).appendingPathComponent(offCardFolderName)
        let folderFD = try openFolder(folder, fail: fail)
        defer { _ = Glibc.close(folderFD) }
        var existing = stat()
        if fstatat(folderFD, newest.fileName, &existing, AT_SYMLINK_NOFOLLOW) == 0,
           existing.st_mode & S_IFMT == S_IFREG, Int(existing.st_size) == newest.sizeBytes {
            return .alreadyThere(OffCardCopy(label: volume.label, path: folder + "/" + newest.fileName, sizeBytes: newest.sizeBytes, createdAt: newest.createdAt))
        }
        var space = statvfs()
        if fstatvfs(folderFD, &space) == 0 {
            let free = Int(space.f_bavail) &* Int(space.f_frsize)
            if free < newest.sizeBytes + 64 * 1024 {
                throw fail("it is full (\(ByteText.format(free)) free, the backup needs \(ByteText.format(newest.sizeBytes))); nothing was written")
            }
        }
        let temporary = ".\(newest.fileName).\(getpid()).\(UInt32.random(in: .min ... .max)).partial"
        do {
            try write(newest.path, into: folderFD, as: temporary, fail: fail)
            guard renameat(folderFD, temporary, folderFD, newest.fileName) == 0 else { throw fail(problem(errno, doing: "cannot name the copy")) }
            _ = Glibc.fsync(folderFD)
        } catch {
            _ = unlinkat(folderFD, temporary, 0)
            throw error
        }
        pruneOffCard(folderFD, folder: folder)
        return .copied(OffCardCopy(label: volume.label, path: folder + "/" + newest.fileName, sizeBytes: newest.sizeBytes, createdAt: newest.createdAt))
    }

    /// The stick's folder, made if missing; a link or a file in its place is refused.
    static func openFolder(_ folder: String, fail: (String) -> StoreError) throws -> Int32 {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { throw fail(problem(errno, doing: "cannot make its folder “\(offCardFolderName)”")) }
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw fail(code == ELOOP || code == ENOTDIR ? "“\(offCardFolderName)” on it is not a folder; nothing was written" : problem(code, doing: "cannot open its folder"))
        }
        return fd
    }

    /// The backup copied to `name` in the folder, fsynced: a write error or a failed fsync
    /// (where a pulled stick shows) is thrown.
    static func write(_ source: String, into folderFD: Int32, as name: String, fail: (String) -> StoreError) throws {
        let input: InputFile.Regular
        do { input = try InputFile.openRegular(source, maximumBytes: maximumRestoreBytes) } catch { throw StoreError.io(error.description) }
        let output = openat(folderFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw fail(problem(errno, doing: "cannot write")) }
        defer { _ = Glibc.close(output) }
        var failure: Int32 = 0
        do {
            try InputFile.copy(input) { (chunk) throws(InputFileError) in
                failure = writeAll(chunk, to: output)
                if failure != 0 { throw InputFileError(path: name, problem: "write") }
            }
        } catch {
            throw failure != 0 ? fail(problem(failure, doing: "cannot write")) : StoreError.io(error.description)
        }
        guard Glibc.fsync(output) == 0 else { throw fail(problem(errno, doing: "cannot write")) }
    }

    /// A stick's errors in the words a parent acts on.
    static func problem(_ code: Int32, doing what: String) -> String {
        switch code {
        case ENOSPC, EDQUOT: "it is full; nothing was kept of this copy"
        case EROFS: "it is read-only (its switch, or a damaged file system); nothing was written"
        case EIO, ENODEV, ENXIO, ENOENT, ESTALE: "it went away or failed during the copy (\(String(cString: strerror(code)))); its older copies are as they were"
        case EACCES, EPERM: "\(what): the box may not write there (\(String(cString: strerror(code))))"
        default: "\(what) (\(String(cString: strerror(code))))"
        }
    }

    /// The newest `offCardCopiesKept` of the box's backups in the folder stay; files that
    /// are not the box's backups are never touched.
    static func pruneOffCard(_ folderFD: Int32, folder: String) {
        for old in copies(inFolder: folder, label: "").dropFirst(offCardCopiesKept) { _ = unlinkat(folderFD, old.fileName, 0) }
    }

    /// The box's backups on a stick, newest first (for a restore from it).
    public static func offCardCopies(on volume: RemovableVolume) -> [OffCardCopy] {
        let folder = (volume.mountPoint as NSString).appendingPathComponent(offCardFolderName)
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return [] }
        return copies(inFolder: folder, label: volume.label)
    }

    /// The regular files of `folder` named as the box names its backups, newest first.
    static func copies(inFolder folder: String, label: String) -> [OffCardCopy] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") && !$0.hasPrefix(".") }.compactMap { name -> OffCardCopy? in
            let path = folder + "/" + name
            var file = stat()
            guard let parsed = parseBackupName(name), lstat(path, &file) == 0, file.st_mode & S_IFMT == S_IFREG else { return nil }
            return OffCardCopy(label: label, path: path, sizeBytes: Int(file.st_size), createdAt: parsed.date)
        }
        .sorted { ($0.createdAt, $0.fileName) > ($1.createdAt, $1.fileName) }
    }

    // MARK: what the store remembers

    func recordOffCard(label: String, copy: OffCardCopy?, problem: String?, now: Date) throws {
        guard !isReadOnly else { return }
        let label = QuestDatabase.storable(label, bytes: 200)
        let line = problem.map { QuestDatabase.storable($0, bytes: 512) }
        try pool.write { db in
            try db.execute(sql: "INSERT INTO offCardCopy (label, lastUsedAt) VALUES (?, ?) ON CONFLICT(label) DO UPDATE SET lastUsedAt = excluded.lastUsedAt",
                           arguments: [label, now.timeIntervalSince1970])
            if let copy {
                try db.execute(sql: "UPDATE offCardCopy SET fileName = ?, sizeBytes = ?, copiedAt = ?, problem = NULL, problemAt = NULL WHERE label = ?",
                               arguments: [copy.fileName, copy.sizeBytes, now.timeIntervalSince1970, label])
            } else {
                try db.execute(sql: "UPDATE offCardCopy SET problem = ?, problemAt = ? WHERE label = ?", arguments: [line, now.timeIntervalSince1970, label])
            }
            try db.execute(sql: "DELETE FROM offCardCopy WHERE label NOT IN (SELECT label FROM offCardCopy ORDER BY lastUsedAt DESC LIMIT ?)",
                           arguments: [Self.offCardStatusesKept])
        }
    }

    /// The sticks the box used, the most recent first.
    public func offCardStatuses() throws -> [OffCardStatus] {
        try pool.read { db in
            guard try db.tableExists("offCardCopy") else { return [] }
            return try Row.fetchAll(db, sql: "SELECT * FROM offCardCopy WHERE \(RowRules.valid("offCardCopy")) ORDER BY lastUsedAt DESC").map { row in
                OffCardStatus(
                    label: row["label"], fileName: row["fileName"], sizeBytes: row["sizeBytes"],
                    copiedAt: (row["copiedAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    problem: row["problem"], problemAt: (row["problemAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }
}
