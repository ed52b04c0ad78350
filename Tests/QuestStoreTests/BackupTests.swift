import Foundation
import GRDB
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

@Suite("BACK-1 backups and restore")
struct BackupTests {
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    func populated() throws -> (QuestDatabase, String) {
        let (db, dir) = try freshDatabase()
        try db.routines.save(morningRoutine)
        try recordQuest(db, at: now, durations: [(120, 118), (300, 340), (240, 200)])
        return (db, dir)
    }

    /// What must survive a refused restore untouched.
    func fingerprint(_ db: QuestDatabase) throws -> String {
        "\(try db.plays.estimations().map(\.id))|\(try db.routines.all())|\(try db.profile())"
    }

    @Test("a backup is a whole, valid TimeQuest database with the same data; no temporary file is left")
    func backupIsComplete() throws {
        let (db, _) = try populated()
        let info = try db.backups.make(now: now)
        #expect(info.fileName == "questbox-20260528T202640Z-manual.sqlite")
        #expect(info.sizeBytes > 0)
        // One self-contained file: rollback-journal mode in the header, no -wal beside it.
        let header = try Data(contentsOf: URL(fileURLWithPath: info.path)).prefix(20)
        #expect(header[18] == 1 && header[19] == 1)
        #expect(!FileManager.default.fileExists(atPath: info.path + "-wal"))
        try QuestDatabase.validate(path: info.path)
        let copy = try QuestDatabase(path: info.path)
        #expect(try copy.plays.estimations() == db.plays.estimations())
        #expect(try copy.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")  // reopened by the store
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: db.backups.directory).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
        #expect(try db.backups.all().map(\.kind) == [.manual])
        #expect(try db.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM backupLog") } == 1)
    }

    @Test("automatic: once a day, the newest 14 kept")
    func daily() throws {
        let (db, _) = try populated()
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        #expect(try db.backups.makeIfDue(now: now, calendar: utc) != nil)
        #expect(try db.backups.makeIfDue(now: now.addingTimeInterval(3600), calendar: utc) == nil)
        #expect(try db.backups.makeIfDue(now: now.addingTimeInterval(86_400), calendar: utc) != nil)
        for day in 2..<20 { try db.backups.makeIfDue(now: now.addingTimeInterval(Double(day) * 86_400), calendar: utc) }
        try db.backups.make(now: now.addingTimeInterval(25 * 86_400))  // manual ones are not pruned
        let all = try db.backups.all()
        #expect(all.filter { $0.kind == .automatic }.count == 14)
        #expect(all.filter { $0.kind == .automatic }.map(\.createdAt).min() == now.addingTimeInterval(6 * 86_400))
        #expect(all.first?.kind == .manual)
        // A clock that jumped back does not stop backups.
        #expect(try db.backups.makeIfDue(now: now.addingTimeInterval(-86_400), calendar: utc) != nil)
    }

    @Test("BACK-1, #49: the daemon's way: the day's file written first (due until then), logged after; the automatic ones beyond 14 removed with the file")
    func fileThenLog() throws {
        let (db, _) = try populated()
        func logged() throws -> Int { try db.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM backupLog") } ?? -1 }
        #expect(try db.backups.isDue(now: now))
        let made = try db.backups.makeFile(kind: .automatic, now: now)
        #expect(FileManager.default.fileExists(atPath: made.path))
        #expect(made.kind == .automatic && made.sizeBytes > 0)
        #expect(try logged() == 0, "the file alone is not in the log")
        #expect(try !db.backups.isDue(now: now.addingTimeInterval(60)), "today's file counts")
        try db.backups.log(made)
        #expect(try db.pool.read { try Row.fetchOne($0, sql: "SELECT createdAt, fileName, sizeBytes, kind FROM backupLog") }
            == ["createdAt": now.timeIntervalSince1970, "fileName": made.fileName, "sizeBytes": made.sizeBytes, "kind": "automatic"])
        for day in 1...15 { _ = try db.backups.makeFile(kind: .automatic, now: now.addingTimeInterval(Double(day) * 86_400)) }
        #expect(try db.backups.all().filter { $0.kind == .automatic }.count == BackupStore.automaticKept)
    }

    @Test("automatic: once per calendar day — the 23-hour DST day and a start after yesterday evening's backup get theirs")
    func dailyByCalendarDay() throws {
        let (db, _) = try populated()
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let at = { (d: Int, h: Int, m: Int) in berlin.date(from: DateComponents(year: 2026, month: 3, day: d, hour: h, minute: m))! }
        // Saturday 23:30, then Sunday 29 March (23 hours long) at 22:40: 22 h 10 min later, a new day.
        #expect(try db.backups.makeIfDue(now: at(28, 23, 30), calendar: berlin) != nil)
        #expect(try db.backups.makeIfDue(now: at(29, 22, 40), calendar: berlin) != nil)
        // Backed up Monday 21:00; the box starts Tuesday 08:00 (11 h later): Tuesday's is due.
        #expect(try db.backups.makeIfDue(now: at(30, 21, 0), calendar: berlin) != nil)
        #expect(try db.backups.makeIfDue(now: at(31, 8, 0), calendar: berlin) != nil)
        #expect(try db.backups.makeIfDue(now: at(31, 23, 59), calendar: berlin) == nil)
    }

    @Test("restore brings the backup's data back and saves what it replaced")
    func restoreWorks() throws {
        let (db, _) = try populated()
        let backup = try db.backups.make(now: now)
        let before = try fingerprint(db)
        try recordQuest(db, at: now.addingTimeInterval(86_400), durations: [(60, 61)])
        try db.routines.remove(named: "School Morning")
        let safety = try db.backups.restore(from: backup.path, now: now.addingTimeInterval(90_000))
        #expect(try fingerprint(db) == before)
        #expect(safety.kind == .beforeRestore)
        let saved = try QuestDatabase(path: safety.path)
        #expect(try saved.plays.estimations().count == 4)
        #expect(try db.integrityCheck() == "ok")
        // The box keeps writing afterwards.
        try recordQuest(db, at: now.addingTimeInterval(100_000), durations: [(60, 61)])
        #expect(try db.plays.estimations().count == 4)
    }

    func expectRefused(_ db: QuestDatabase, file: String, message: String) throws {
        let before = try fingerprint(db)
        let dbFile = try Data(contentsOf: URL(fileURLWithPath: db.path))
        var thrown: StoreError?
        do { try db.backups.restore(from: file, now: now) } catch let e as StoreError { thrown = e }
        #expect(thrown?.description.contains(message) == true, "got \(String(describing: thrown))")
        #expect(thrown?.description.hasPrefix(file) == true)
        #expect(try fingerprint(db) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db.path)).count == dbFile.count)
        #expect(try db.backups.all().allSatisfy { $0.kind != .beforeRestore })  // refused before anything was done
    }

    @Test("restore refuses random bytes")
    func refusesRandomBytes() throws {
        let (db, dir) = try populated()
        let file = (dir as NSString).appendingPathComponent("random.sqlite")
        var rng = SystemRandomNumberGenerator()
        #expect(FileManager.default.createFile(atPath: file, contents: Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) })))
        try expectRefused(db, file: file, message: "not a TimeQuest database")
    }

    @Test("restore refuses a truncated database")
    func refusesTruncated() throws {
        let (db, dir) = try populated()
        for day in 0..<30 { try recordQuest(db, at: now.addingTimeInterval(Double(day) * 86_400), durations: [(60, 61), (60, 70), (90, 80)]) }
        let backup = try db.backups.make(now: now)
        let data = try Data(contentsOf: URL(fileURLWithPath: backup.path))
        let file = (dir as NSString).appendingPathComponent("truncated.sqlite")
        #expect(FileManager.default.createFile(atPath: file, contents: data.prefix(data.count / 2)))
        try expectRefused(db, file: file, message: "file is damaged")
    }

    @Test("restore refuses another application's SQLite database")
    func refusesForeign() throws {
        let (db, dir) = try populated()
        let file = (dir as NSString).appendingPathComponent("photos.sqlite")
        let other = try DatabaseQueue(path: file)
        try other.write { try $0.execute(sql: "CREATE TABLE photo (id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photo (path) VALUES ('a.jpg')") }
        try other.close()
        try expectRefused(db, file: file, message: "not a TimeQuest database")
        // Opened as the live database it is refused untouched: still in rollback-journal
        // mode (the check runs before WAL is switched on), no -wal file, same bytes.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(throws: StoreError.notTimeQuestDatabase(path: file, reason: "application id 0")) { _ = try QuestDatabase(path: file) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes)
        #expect(bytes[18] == 1 && bytes[19] == 1, "rollback journal")
        #expect(!FileManager.default.fileExists(atPath: file + "-wal"))
    }

    @Test("restore refuses a database made by a newer version")
    func refusesNewer() throws {
        let (db, dir) = try populated()
        let backup = try db.backups.make(now: now)
        let file = (dir as NSString).appendingPathComponent("future.sqlite")
        try FileManager.default.copyItem(atPath: backup.path, toPath: file)
        let future = try DatabaseQueue(path: file)
        try future.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v\(Schema.currentVersion + 1)-telepathy')")
            try db.execute(sql: "PRAGMA user_version = \(Schema.currentVersion + 1)")
        }
        try future.close()
        try expectRefused(db, file: file, message: "made by a newer version (schema \(Schema.currentVersion + 1) > \(Schema.currentVersion))")
        // Opening such a file as the live database is refused too.
        #expect(throws: StoreError.newerSchema(path: file, found: Schema.currentVersion + 1, known: Schema.currentVersion)) { _ = try QuestDatabase(path: file) }
    }

    /// A copy of a fresh backup, changed by `edit` through SQL (a file a person or a tool edited).
    func editedBackup(_ db: QuestDatabase, _ dir: String, _ name: String, _ edit: (Database) throws -> Void) throws -> String {
        let backup = try db.backups.make(now: now)
        let file = (dir as NSString).appendingPathComponent(name)
        try FileManager.default.copyItem(atPath: backup.path, toPath: file)
        try FileManager.default.removeItem(atPath: backup.path)
        let queue = try DatabaseQueue(path: file)
        try queue.writeWithoutTransaction { try edit($0) }
        try queue.close()
        return file
    }

    /// Replaces the 8-byte big-endian IEEE double `value` in a file's bytes (SQLite's REAL on disk).
    func patchDouble(_ file: String, _ value: Double, with replacement: UInt64) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let needle = withUnsafeBytes(of: value.bitPattern.bigEndian) { [UInt8]($0) }
        let patch = withUnsafeBytes(of: replacement.bigEndian) { [UInt8]($0) }
        var found = 0
        for i in 0...(bytes.count - 8) where Array(bytes[i..<(i + 8)]) == needle {
            bytes.replaceSubrange(i..<(i + 8), with: patch)
            found += 1
        }
        #expect(found == 1, "the value to patch must occur once")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
    }

    @Test("restore refuses a weekday 9 in a routine, naming table, row and field")
    func refusesBadWeekday() throws {
        let (db, dir) = try populated()
        let file = try editedBackup(db, dir, "weekday.sqlite") { try $0.execute(sql: "UPDATE routine SET activeDays = '2,3,9'") }
        try expectRefused(db, file: file, message: "file is damaged: routine row 1: activeDays is '2,3,9', expected weekdays 1–7 separated by commas (1 = Sunday)")
    }

    @Test("restore refuses a UUID that does not decode")
    func refusesBadUUID() throws {
        let (db, dir) = try populated()
        let file = try editedBackup(db, dir, "uuid.sqlite") { try $0.execute(sql: "UPDATE routineTask SET id = x'0102' WHERE position = 1") }
        try expectRefused(db, file: file, message: "routineTask row 2: id is X'0102', expected a 16-byte UUID")
    }

    @Test("restore refuses a NaN and an infinite duration (bytes changed on disk)")
    func refusesNonFinite() throws {
        let (db, dir) = try freshDatabaseWithOddDurations()
        let backup = try db.backups.make(now: now)
        let nan = (dir as NSString).appendingPathComponent("nan.sqlite"), inf = (dir as NSString).appendingPathComponent("inf.sqlite")
        try FileManager.default.copyItem(atPath: backup.path, toPath: nan)
        try FileManager.default.copyItem(atPath: backup.path, toPath: inf)
        try FileManager.default.removeItem(atPath: backup.path)
        try patchDouble(nan, 123.456, with: 0x7FF8_0000_0000_0000)  // SQLite reads a NaN as NULL
        try patchDouble(inf, 123.456, with: 0x7FF0_0000_0000_0000)
        try expectRefused(db, file: nan, message: "actualSeconds")
        try expectRefused(db, file: inf, message: "estimation row 1: actualSeconds is Inf, expected seconds 0–604800")
    }

    func freshDatabaseWithOddDurations() throws -> (QuestDatabase, String) {
        let (db, dir) = try freshDatabase()
        try recordQuest(db, at: now, durations: [(120, 123.456)])
        return (db, dir)
    }

    @Test("restore refuses a file with the right id and version but foreign tables")
    func refusesForeignTables() throws {
        let (db, dir) = try populated()
        let file = (dir as NSString).appendingPathComponent("lookalike.sqlite")
        let queue = try DatabaseQueue(path: file)
        try queue.write { db in
            try db.execute(sql: "PRAGMA application_id = \(Schema.applicationID)")
            try db.execute(sql: "PRAGMA user_version = \(Schema.currentVersion)")
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for m in Schema.migrations { try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [m.identifier]) }
            try db.execute(sql: "CREATE TABLE photo (id INTEGER PRIMARY KEY, path TEXT)")
        }
        try queue.close()
        try expectRefused(db, file: file, message: "not a TimeQuest database (extra table photo (and ")
    }

    @Test("restore refuses a file whose append-only triggers were removed")
    func refusesMissingTriggers() throws {
        let (db, dir) = try populated()
        let file = try editedBackup(db, dir, "open.sqlite") { try $0.execute(sql: "DROP TRIGGER estimation_no_delete") }
        try expectRefused(db, file: file, message: "missing trigger estimation_no_delete; this version's migrations make another schema")
    }

    @Test("restore refuses a FIFO, a folder and a device at once, without reading them", .timeLimit(.minutes(1)))
    func refusesSpecialFiles() throws {
        let (db, dir) = try populated()
        let fifo = (dir as NSString).appendingPathComponent("pipe.sqlite")
        #expect(mkfifo(fifo, 0o600) == 0)
        try expectRefused(db, file: fifo, message: "not a regular file")
        try expectRefused(db, file: dir, message: "not a regular file")
        try expectRefused(db, file: "/dev/zero", message: "not a regular file")
    }

    @Test("restore removes what a killed restore left behind, and leaves nothing itself")
    func cleansStaging() throws {
        let (db, _) = try populated()
        let backup = try db.backups.make(now: now)
        let stale = (db.backups.directory as NSString).appendingPathComponent(".restore-0000.sqlite")
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: stale)
        try db.backups.restore(from: backup.path, now: now)
        let hidden = try FileManager.default.contentsOfDirectory(atPath: db.backups.directory).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty)
    }

    @Test("a backup removes the half-written file of one killed an hour ago, not one being written")
    func sweepsKilledBackups() throws {
        let (db, _) = try populated()
        _ = try db.backups.make(now: now)
        let folder = db.backups.directory as NSString
        let killed = folder.appendingPathComponent(".questbox-20240101T000000Z-automatic.sqlite.41.7.partial")
        let writing = folder.appendingPathComponent(".questbox-20240101T000000Z-manual.sqlite.42.8.partial")
        for path in [killed, writing] { #expect(FileManager.default.createFile(atPath: path, contents: Data("half".utf8))) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: killed)
        _ = try db.backups.make(now: now.addingTimeInterval(60))
        #expect(!FileManager.default.fileExists(atPath: killed), "an hour old: its writer is gone")
        #expect(FileManager.default.fileExists(atPath: writing), "another program's backup still being written")
        #expect(try db.backups.all().count == 2, "the sweep takes no backup with it")
    }

    @Test("a backup of this version and of schema 1 both pass the full check")
    func acceptsOwnAndOlder() throws {
        let (db, dir) = try populated()
        let backup = try db.backups.make(now: now)
        let queue = try DatabaseQueue(path: backup.path, configuration: QuestDatabase.configuration(readonly: true))
        #expect(try queue.read { try QuestDatabase.contentReport($0) }.isClean)
        try queue.close()
        let v1 = (dir as NSString).appendingPathComponent("v1.sqlite")
        try FileManager.default.copyItem(atPath: "\(packageRoot)/Tests/QuestStoreTests/Fixtures/schema-v1.sqlite", toPath: v1)
        let old = try DatabaseQueue(path: v1, configuration: QuestDatabase.configuration(readonly: true))
        #expect(try old.read { try QuestDatabase.contentReport($0) } == ContentReport(schema: [], rows: [], rowTotal: 0))
        try old.close()
        try db.backups.restore(from: v1, now: now)
    }

    @Test("restore of a missing file says so")
    func refusesMissing() throws {
        let (db, dir) = try populated()
        let file = (dir as NSString).appendingPathComponent("nope.sqlite")
        #expect(throws: StoreError.io("\(file): no such file")) { try db.backups.restore(from: file, now: now) }
    }
}

@Suite("BACK-1: an upload on its way to a restore is the store's own private file")
struct IncomingFileTests {
    @Test("private (0600) in the backups folder, never listed as a backup, gone when released; one a killed process left is swept after an hour")
    func incoming() throws {
        let (db, _) = try freshDatabase()
        var file: IncomingFile? = try db.backups.incomingFile()
        let path = try #require(file?.path)
        #expect((path as NSString).deletingLastPathComponent == db.backups.directory)
        #expect((path as NSString).lastPathComponent.hasPrefix(".restore-upload-"))
        try Array("SQLite format 3\0".utf8).withUnsafeBytes { try file?.write($0) }
        file?.finish()
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o600)
        #expect(try FileManager.default.sizeOfFile(path) == 16)
        #expect(try db.backups.all().isEmpty, "not a backup")
        file = nil
        #expect(!FileManager.default.fileExists(atPath: path), "released: removed")

        let left = try db.backups.incomingFile()
        left.finish()
        db.backups.removeStaleStagingFiles(now: Date())
        #expect(FileManager.default.fileExists(atPath: left.path), "a restore still running keeps its file")
        db.backups.removeStaleStagingFiles(now: Date().addingTimeInterval(3_601))
        #expect(!FileManager.default.fileExists(atPath: left.path), "swept once an hour old")
    }
}

private extension FileManager {
    func sizeOfFile(_ path: String) throws -> Int { (try attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }
}
