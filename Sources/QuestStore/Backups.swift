import Foundation
import GRDB
import InputFiles
import QuestCore
#if canImport(Glibc)
import Glibc
#endif

public enum BackupKind: String, Sendable, CaseIterable {
    case automatic
    case manual
    case beforeRestore = "before-restore"
}

public struct BackupInfo: Equatable, Sendable {
    public var path: String
    public var fileName: String { (path as NSString).lastPathComponent }
    public var createdAt: Date
    public var sizeBytes: Int
    public var kind: BackupKind?

    public init(path: String, createdAt: Date, sizeBytes: Int, kind: BackupKind?) {
        self.path = path
        self.createdAt = createdAt
        self.sizeBytes = sizeBytes
        self.kind = kind
    }
}

extension QuestDatabase {
    /// The backups and their copies off the box, over the store's one writer.
    public var backups: BackupStore {
        BackupStore(pool: pool, directory: ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("backups"),
                    isReadOnly: isReadOnly)
    }
}

/// BACK-1: online backups (SQLite's backup API, so the box keeps running), one automatic
/// backup a day (the newest 14 kept), manual ones, and restore after validation: an area of
/// the store (#49) with the backups folder beside the database, over the one writer.
public struct BackupStore: Sendable {
    let pool: any DatabaseWriter
    /// `backups/` beside the database.
    public let directory: String
    let isReadOnly: Bool

    public static let automaticKept = 14

    /// Writes a backup into `backups/` (or to `destination`): to a temporary file first,
    /// fsynced, then renamed into place, so a power cut leaves either no file or a whole one.
    @discardableResult
    public func make(to destination: String? = nil, kind: BackupKind = .manual, now: Date) throws -> BackupInfo {
        let info = try destination.map { Self.info(path: try writeBackup(to: $0), kind: kind, now: now) } ?? makeFile(kind: kind, now: now)
        try log(info)
        return info
    }

    /// A backup's file in `backups/` (automatic ones beyond the newest `automaticKept`
    /// removed), not yet in the log (`log` it): the daemon writes the file off its loop and
    /// the log on it (#49).
    public func makeFile(kind: BackupKind, now: Date) throws -> BackupInfo {
        try PrivateDirectory.make(directory)
        removeStaleStagingFiles()
        let info = Self.info(path: try writeBackup(to: firstBackupPath(now: now, kind: kind), unique: true), kind: kind, now: now)
        if kind == .automatic { try pruneAutomaticBackups() }
        return info
    }

    /// A backup written down in the store's log (BACK-1's reminder counts from it).
    public func log(_ info: BackupInfo) throws {
        // From a read-only card the copy is what matters; there is no log to write to.
        if isReadOnly { return }
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO backupLog (createdAt, fileName, sizeBytes, kind) VALUES (?, ?, ?, ?)",
                arguments: [info.createdAt.timeIntervalSince1970, info.fileName, info.sizeBytes, (info.kind ?? .manual).rawValue])
        }
    }

    static func info(path: String, kind: BackupKind, now: Date) -> BackupInfo {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return BackupInfo(path: path, createdAt: now, sizeBytes: size, kind: kind)
    }

    /// The daily automatic backup: once per calendar day in `calendar` (a 23-hour DST day or a
    /// box started in the afternoon after yesterday evening's backup still gets today's), and
    /// again whenever the newest one is from the future (a clock that was wrong must not stop
    /// backups). Returns the new backup, if one was made.
    @discardableResult
    public func makeIfDue(now: Date, calendar: Calendar = .current) throws -> BackupInfo? {
        guard try isDue(now: now, calendar: calendar) else { return nil }
        return try make(kind: .automatic, now: now)
    }

    /// Whether the day's automatic backup is still to be made (`makeIfDue`'s rule).
    public func isDue(now: Date, calendar: Calendar = .current) throws -> Bool {
        let latest = try all().filter { $0.kind == .automatic }.map(\.createdAt).max()
        return !(latest.map { $0 <= now && calendar.isDate($0, inSameDayAs: now) } ?? false)
    }

    /// The backups in `backups/`, newest first.
    public func all() throws -> [BackupInfo] {
        let dir = directory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        return names.filter { $0.hasSuffix(".sqlite") && !$0.hasPrefix(".") }.compactMap { name -> BackupInfo? in
            let path = (dir as NSString).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            let parsed = Self.parseBackupName(name)
            return BackupInfo(
                path: path, createdAt: parsed?.date ?? (attributes[.modificationDate] as? Date) ?? .distantPast,
                sizeBytes: (attributes[.size] as? Int) ?? 0, kind: parsed?.kind)
        }
        .sorted { ($0.createdAt, $0.fileName) > ($1.createdAt, $1.fileName) }
    }

    /// The newest backup of any kind (for `doctor` and the parent area).
    public func newest() throws -> BackupInfo? { try all().first }

    /// The largest file `restore` reads (five years of play take about 3 MiB).
    public static let maximumRestoreBytes = 256 << 20

    /// Replaces the live data with a backup. The file is checked first: a regular file of at
    /// most `maximumRestoreBytes`, intact, a TimeQuest database with a schema this version
    /// knows and made exactly as its migrations make it, and every row readable by the box
    /// (`RowRules`). On any failure the live database is untouched and the refusal is one line
    /// naming the table, row and field. The current data is backed up before it is replaced.
    /// Returns that safety backup.
    @discardableResult
    public func restore(from file: String, now: Date) throws -> BackupInfo {
        // Work on a private copy: the original may be read-only or on removable media.
        try PrivateDirectory.make(directory)
        removeStaleStagingFiles()
        let staging = (directory as NSString).appendingPathComponent(".restore-\(UUID().uuidString).sqlite")
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: staging + suffix) }
        }
        try Self.copyRegularFile(from: file, to: staging, maximumBytes: Self.maximumRestoreBytes)
        do {
            try QuestDatabase.validate(path: staging)
            let queue = try DatabaseQueue(path: staging, configuration: QuestDatabase.configuration(readonly: true))
            defer { try? queue.close() }
            let report = try queue.read { db in try QuestDatabase.contentReport(db, limit: 1) }
            if let first = report.schema.first {
                let more = report.schema.count > 1 ? " (and \(report.schema.count - 1) more difference\(report.schema.count == 2 ? "" : "s"))" : ""
                throw StoreError.notTimeQuestDatabase(path: staging, reason: "\(first)\(more); this version's migrations make another schema")
            }
            if let first = report.rows.first {
                let more = report.rowTotal > 1 ? " (and \(report.rowTotal - 1) more)" : ""
                throw StoreError.damaged(path: staging, reason: "\(first)\(more)")
            }
            // One name rule for every way in (#31): a restored name is checked as an
            // imported one is.
            if let problem = try queue.read({ db in try Self.nameProblem(db) }) {
                throw StoreError.invalid("\(staging): \(problem); nothing was restored")
            }
        } catch let error as StoreError {
            throw error.renamed(from: staging, to: file)
        } catch let error as DatabaseError {
            throw QuestDatabase.describe(error, path: file)
        }
        let safety = try make(kind: .beforeRestore, now: now)
        do {
            let source = try DatabaseQueue(path: staging, configuration: QuestDatabase.configuration(readonly: true))
            // One backup step copies every page inside one write transaction on the live
            // database: other connections see the old data or the new, never a mix.
            try source.backup(to: pool)
            try source.close()
            (pool as? DatabasePool)?.invalidateReadOnlyConnections()
            try Schema.migrator().migrate(pool)
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO backupLog (createdAt, fileName, sizeBytes, kind) VALUES (?, ?, ?, 'restored')",
                    arguments: [now.timeIntervalSince1970, (file as NSString).lastPathComponent,
                                (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0])
            }
        } catch let error as DatabaseError {
            throw StoreError.io("\(file): restore failed (\(error.message ?? "\(error.resultCode)")); the previous data is kept and saved as \(safety.fileName)")
        }
        return safety
    }

    /// The first routine or task name that breaks the name rule, as "routine …: name …".
    static func nameProblem(_ db: Database) throws -> String? {
        for table in ["routine", "routineTask"] {
            for row in try Row.fetchAll(db, sql: "SELECT name, displayName FROM \(table)") {
                for column in ["name", "displayName"] {
                    let text: String = (row[column] as String?) ?? ""
                    if let problem = DisplayText.nameProblem(text) {
                        let what = table == "routine" ? "a routine" : "a task"
                        return "\(what)'s \(column) \"\(DisplayText.escaped(String(text.prefix(40))))\" \(problem)"
                    }
                }
            }
        }
        return nil
    }

    // MARK: files

    /// Copies `source` to a new file `target` (created, never replaced), refusing anything
    /// but a regular file of at most `maximumBytes` (`InputFile`: a FIFO or a device is one
    /// line, never a hang).
    static func copyRegularFile(from source: String, to target: String, maximumBytes: Int) throws {
        do throws(InputFileError) {
            let input = try InputFile.openRegular(source, maximumBytes: maximumBytes)
            let output = Glibc.open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard output >= 0 else { throw InputFileError(path: target, problem: "cannot create (\(String(cString: strerror(errno))))") }
            defer { _ = Glibc.close(output) }
            try InputFile.copy(input) { (chunk) throws(InputFileError) in
                let failure = writeAll(chunk, to: output)
                if failure != 0 { throw InputFileError(path: target, problem: "cannot write (\(String(cString: strerror(failure))))") }
            }
        } catch {
            throw StoreError.io(error.description)
        }
    }

    /// Writes all of `chunk` to `fd` (again after EINTR and short writes): 0, or the errno.
    static func writeAll(_ chunk: ArraySlice<UInt8>, to fd: Int32) -> Int32 {
        var offset = chunk.startIndex
        while offset < chunk.endIndex {
            let w = chunk[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if w < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += w
        }
        return 0
    }

    /// Private copies a killed restore left behind (files or folders named `.restore-*`) and
    /// the half-written snapshot of a backup whose program was killed (`.….partial`), once
    /// they are an hour old: a restore or a backup takes seconds, so one still running keeps
    /// its file.
    func removeStaleStagingFiles(now: Date = Date()) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(".restore-") || (name.hasPrefix(".") && name.hasSuffix(".partial")) {
            let path = (directory as NSString).appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            if now.timeIntervalSince(modified) > 3_600 { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// Writes the snapshot to `target`, or, with `unique`, to the first free name of its
    /// series (`…-2.sqlite`, `…-3.sqlite`): backups made in the same second by several
    /// programs each get their own file. Returns the path written. The file is private
    /// (0600) from its first byte.
    @discardableResult
    func writeBackup(to target: String, unique: Bool = false) throws -> String {
        let directory = (target as NSString).deletingLastPathComponent
        // Each writer its own temporary file: another's cannot remove or overwrite it.
        let temporary = (directory as NSString).appendingPathComponent(
            ".\((target as NSString).lastPathComponent).\(getpid()).\(UInt32.random(in: .min ... .max)).partial")
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        do {
            guard StoreFiles.createPrivateEmpty(temporary) else {
                throw StoreError.io("\(target): cannot write backup (\(String(cString: strerror(errno))))")
            }
            // VACUUM INTO writes a consistent snapshot as one self-contained file (rollback
            // journal, no -wal) on the live connection. No second connection is opened and
            // dropped: dropping one disposes a dispatch queue, which starts libdispatch's
            // worker pool and its monitor timer, one wake-up a second for the daemon's life.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [temporary])
            }
            try Self.fsync(path: temporary)
            let written = unique ? try Self.linkToFreeName(temporary, first: target) : try Self.rename(temporary, to: target)
            try Self.fsync(path: directory)
            return written
        } catch let error as DatabaseError {
            throw StoreError.io("\(target): cannot write backup (\(error.message ?? "\(error.resultCode)"))")
        }
    }

    static func rename(_ temporary: String, to target: String) throws -> String {
        guard Glibc.rename(temporary, target) == 0 else {
            throw StoreError.io("\(target): cannot write backup (\(String(cString: strerror(errno))))")
        }
        return target
    }

    /// A hard link never replaces a file: the first name of the series no one has yet.
    static func linkToFreeName(_ temporary: String, first target: String) throws -> String {
        let base = (target as NSString).deletingPathExtension
        for n in 1...1_000 {
            let candidate = n == 1 ? target : "\(base)-\(n).sqlite"
            if Glibc.link(temporary, candidate) == 0 { return candidate }
            guard errno == EEXIST else { throw StoreError.io("\(candidate): cannot write backup (\(String(cString: strerror(errno))))") }
        }
        throw StoreError.io("\(target): cannot write backup (a thousand of that second exist)")
    }

    static func fsync(path: String) throws {
        let fd = Glibc.open(path, O_RDONLY)
        guard fd >= 0 else { throw StoreError.io("\(path): cannot open to sync (\(String(cString: strerror(errno))))") }
        defer { _ = Glibc.close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw StoreError.io("\(path): fsync failed (\(String(cString: strerror(errno))))") }
    }

    func pruneAutomaticBackups() throws {
        for old in try all().filter({ $0.kind == .automatic }).dropFirst(Self.automaticKept) {
            try? FileManager.default.removeItem(atPath: old.path)
        }
    }

    /// The first name of this second's series; `linkToFreeName` takes the next free one
    /// (`…-2.sqlite`, …) without replacing a file, so no name is looked up beforehand.
    func firstBackupPath(now: Date, kind: BackupKind) -> String {
        (directory as NSString).appendingPathComponent("questbox-\(Self.stamp(now))-\(kind.rawValue).sqlite")
    }

    /// "20261121T170412Z" (UTC, no separators: safe on every file system).
    static func stamp(_ date: Date) -> String {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let c = cal.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ v: Int?) -> String { let v = v ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 0)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    static func parseBackupName(_ name: String) -> (date: Date, kind: BackupKind?)? {
        // questbox-20261121T170412Z-automatic(-2).sqlite
        let parts = name.dropLast(".sqlite".count).split(separator: "-", maxSplits: 2).map(String.init)
        guard parts.count >= 2, parts[0] == "questbox", parts[1].count == 16 else { return nil }
        let s = Array(parts[1])
        func int(_ r: Range<Int>) -> Int? { Int(String(s[r])) }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        guard let date = cal.date(from: DateComponents(
            year: int(0..<4), month: int(4..<6), day: int(6..<8), hour: int(9..<11), minute: int(11..<13), second: int(13..<15)))
        else { return nil }
        let rest = parts.count > 2 ? parts[2] : ""
        let kind = BackupKind.allCases.sorted { $0.rawValue.count > $1.rawValue.count }.first { rest.hasPrefix($0.rawValue) }
        return (date, kind)
    }
}

extension StoreError {
    /// Errors about a private copy name the file the person gave.
    func renamed(from staging: String, to original: String) -> StoreError {
        switch self {
        case .notTimeQuestDatabase(_, let reason): .notTimeQuestDatabase(path: original, reason: reason)
        case .newerSchema(_, let found, let known): .newerSchema(path: original, found: found, known: known)
        case .damaged(_, let reason): .damaged(path: original, reason: reason)
        case .invalid(let m): .invalid(m.replacingOccurrences(of: staging, with: original))
        case .io(let m): .io(m.replacingOccurrences(of: staging, with: original))
        case .changedElsewhere: self
        }
    }
}
