import Foundation
import GRDB
import QuestCore

/// What can go wrong with stored data, as one line a person can act on.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case notTimeQuestDatabase(path: String, reason: String)
    case newerSchema(path: String, found: Int, known: Int)
    case damaged(path: String, reason: String)
    case invalid(String)
    case io(String)
    /// Someone else changed the row since it was read (the edit is not applied).
    case changedElsewhere(String)

    public var description: String {
        switch self {
        case .notTimeQuestDatabase(let path, let reason): "\(path): not a TimeQuest database (\(reason))"
        case .newerSchema(let path, let found, let known): "\(path): made by a newer version (schema \(found) > \(known))"
        case .damaged(let path, let reason): "\(path): file is damaged: \(reason)"
        case .invalid(let message): message
        case .io(let message): message
        case .changedElsewhere(let message): message
        }
    }
}

/// The box's SQLite database: a WAL `DatabasePool` with `synchronous=FULL` (a Pi on an SD card
/// loses power) and foreign keys on, migrated on open. Nothing above this module sees SQL.
public final class QuestDatabase: Sendable {
    /// A WAL `DatabasePool` for reading and writing; a read-only queue for `.readOnly`. The
    /// store's own: every other module asks for what it needs by intent (no SQL above here).
    let pool: any DatabaseWriter
    public let path: String
    /// Opened for reading only (`Access.readOnly`): nothing can be written through it.
    public let isReadOnly: Bool

    /// Reading commands open the store read-only: they work on an SD card the kernel
    /// remounted read-only after errors (where the history is all that is left to show),
    /// and they create nothing when there is no data yet.
    public enum Access: Sendable {
        case readWrite
        case readOnly
    }

    /// Opens (creating when missing) and migrates the database at `path`. Refuses files that
    /// are not TimeQuest databases or were made by a newer version, touching nothing.
    /// How a process uses the database: the daemon keeps few connections and small caches
    /// (a Pi Zero has 512 MB); tools and the stats view read more at once.
    public enum Footprint: Sendable {
        case standard
        case small
    }

    public init(path: String, footprint: Footprint = .standard, access: Access = .readWrite) throws {
        self.path = path
        isReadOnly = access == .readOnly
        try StoreFiles.checkKind(path)
        if access == .readOnly {
            pool = try Self.openReadOnly(path: path)
            return
        }
        // One writer at a time creates, switches to WAL and migrates a store (#31: eight
        // `questbox backup` at once raced in the migrations).
        pool = try StoreFiles.withFolderLock(of: path) { try Self.openForWriting(path: path, footprint: footprint) }
    }

    private static func openForWriting(path: String, footprint: Footprint) throws -> DatabasePool {
        try StoreFiles.createIfMissing(path)
        do {
            var config = configuration()
            // Identity and version only (a full integrity check reads every page: restore and
            // `doctor` do that; opening must stay fast on a Pi), on each connection as it
            // opens: GRDB runs this before it switches the file to WAL, so a foreign or newer
            // file is refused untouched. Checking here rather than through a separate
            // connection matters for the daemon: dropping a GRDB connection disposes a
            // dispatch queue, which starts libdispatch's worker pool and its 1 Hz timer.
            config.prepareDatabase { db in try checkIdentity(db, path: path, acceptBlank: true) }
            if footprint == .small {
                config.maximumReaderCount = 1
                config.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -256") }  // 256 KiB a connection
            }
            let pool = try DatabasePool(path: path, configuration: config)
            // DatabasePool sets synchronous=NORMAL when it enables WAL; every write goes
            // through its one writer connection, so making that FULL covers all writes.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Schema.migrator().migrate(pool)
            StoreFiles.makeStorePrivate(path)
            return pool
        } catch let error as DatabaseError {
            throw Self.describe(error, path: path)
        }
    }

    /// A read-only connection. No file yet: an empty database of the current schema in memory
    /// (nothing is created). On a read-only file system SQLite cannot make the WAL's shared
    /// memory file, so the file is opened as immutable (nothing can change it there anyway).
    static func openReadOnly(path: String) throws -> DatabaseQueue {
        var config = configuration(readonly: true)
        config.prepareDatabase { db in try Self.checkIdentity(db, path: path, acceptBlank: true) }
        do {
            guard FileManager.default.fileExists(atPath: path) else {
                let empty = try DatabaseQueue()
                try Schema.migrator().migrate(empty)
                return empty
            }
            return try readOnlyQueue(path: path, configuration: config)
        } catch let error as DatabaseError {
            throw describe(error, path: path)
        }
    }

    /// An existing file opened for reading; immutable on a read-only file system.
    static func readOnlyQueue(path: String, configuration: Configuration) throws -> DatabaseQueue {
        guard isOnReadOnlyFileSystem(path) else { return try DatabaseQueue(path: path, configuration: configuration) }
        let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3F")
            .replacingOccurrences(of: "#", with: "%23")
        return try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration)
    }

    /// Whether the file system holding `path` is mounted read-only (statvfs ST_RDONLY).
    public static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(FileManager.default.fileExists(atPath: path) ? path : directory, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    static func configuration(readonly: Bool = false) -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.readonly = readonly
        config.busyMode = .timeout(5)
        return config
    }

    /// Checks a file without changing it: SQLite, intact (unless `checkIntegrity` is false),
    /// ours, and a schema we know. `acceptBlank` lets an SQLite file with no schema at all
    /// pass: the state a power cut leaves between creating the file and the first migration.
    public static func validate(path: String, checkIntegrity: Bool = true, acceptBlank: Bool = false) throws {
        do {
            let queue = try readOnlyQueue(path: path, configuration: configuration(readonly: true))
            defer { try? queue.close() }
            try queue.read { db in
                if checkIntegrity {
                    let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                    guard integrity == ["ok"] else {
                        throw StoreError.damaged(path: path, reason: integrity.prefix(3).joined(separator: "; "))
                    }
                }
                try checkIdentity(db, path: path, acceptBlank: acceptBlank)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw describe(error, path: path)
        }
    }

    /// Ours (application id) and a schema we know (user version, applied migrations).
    static func checkIdentity(_ db: Database, path: String, acceptBlank: Bool) throws {
        let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        if acceptBlank, application == 0, try isBlank(db) { return }
        guard application == Schema.applicationID else {
            throw StoreError.notTimeQuestDatabase(path: path, reason: "application id \(application)")
        }
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard version <= Schema.currentVersion else {
            throw StoreError.newerSchema(path: path, found: version, known: Schema.currentVersion)
        }
        let known = Set(Schema.migrations.map(\.identifier))
        if try db.tableExists("grdb_migrations") {
            let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            if applied.contains(where: { !known.contains($0) }) {
                throw StoreError.newerSchema(path: path, found: max(version, applied.count), known: Schema.currentVersion)
            }
        }
    }

    /// No schema yet: nothing at all, or only the migrator's empty bookkeeping table (GRDB
    /// creates it before the first migration; a kill between the two left exactly that).
    static func isBlank(_ db: Database) throws -> Bool {
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex_%'")
        if names.isEmpty { return true }
        guard names == ["grdb_migrations"] else { return false }
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") == 0
    }

    static func describe(_ error: DatabaseError, path: String) -> StoreError {
        switch error.resultCode {
        case .SQLITE_NOTADB: .notTimeQuestDatabase(path: path, reason: "not an SQLite database")
        case .SQLITE_CORRUPT: .damaged(path: path, reason: error.message ?? "corrupt")
        case .SQLITE_CANTOPEN: .io("\(path): cannot open (\(error.message ?? "permission or path"))")
        case .SQLITE_FULL: .io("\(path): the disk is full; nothing was written (free some space on it)")
        case .SQLITE_READONLY: .io("\(path): the database cannot be written (a read-only file, folder or file system; an SD card with errors is remounted read-only: see `dmesg`)")
        case .SQLITE_IOERR: .io("\(path): the disk reported an I/O error (\(error.message ?? "I/O")); see `dmesg`")
        case .SQLITE_BUSY, .SQLITE_LOCKED: .io("\(path): the database stayed busy (another program holds it); try again")
        default: .io("\(path): \(error.message ?? "\(error.resultCode)")")
        }
    }

    /// A database error as one line a person can act on (nil for other errors). The path is
    /// the database the error came from when GRDB knows it.
    public static func explain(_ error: Error, path: String?) -> StoreError? {
        guard let e = error as? DatabaseError else { return nil }
        return describe(e, path: path ?? "database")
    }

    /// PRAGMA integrity_check of the live database ("ok" when healthy).
    func integrityCheck() throws -> String {
        try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    public func schemaVersion() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
    }

    public func close() throws { try pool.close() }

    /// Hands back the pages SQLite keeps cached on this process's connections (up to 256 KiB
    /// each for the daemon): the next read takes them from the kernel's page cache again.
    /// The daemon calls it once its world is read, so its cache costs nothing while it waits.
    public func releaseCachedPages() {
        try? pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA shrink_memory") }
        try? pool.read { db in try db.execute(sql: "PRAGMA shrink_memory") }
    }

    /// SQLite's `PRAGMA data_version` on the writing connection: it changes when another
    /// connection (another process: the CLI, the web app, a restore) commits, never for this
    /// one's own writes. The daemon compares it to know when to re-read the store.
    public func dataVersion() throws -> Int {
        try pool.writeWithoutTransaction(Self.dataVersion(in:))
    }

    /// `data_version` as the connection `db` sees it (0 if SQLite returned no row).
    private static func dataVersion(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }

    /// What moves whenever anything commits to the store: another connection's commit moves
    /// `data_version`, this process's own writes the writer's change count. A reader that
    /// keeps what it read (the link's facts) reads again only when the stamp has moved.
    public struct ChangeStamp: Equatable, Sendable {
        let others: Int
        let own: Int
    }

    public func changeStamp() throws -> ChangeStamp {
        try pool.writeWithoutTransaction { db in
            ChangeStamp(others: try Self.dataVersion(in: db), own: db.totalChangesCount)
        }
    }
}
