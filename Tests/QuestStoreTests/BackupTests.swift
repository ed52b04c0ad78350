import Foundation
import GRDB
import QuestCore
import Testing
@testable import QuestStore

@Suite("BACK-1 backups and restore")
struct BackupTests {
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    func populated() throws -> (QuestDatabase, String) {
        let (db, dir) = try freshDatabase()
        try db.saveRoutine(morningRoutine)
        try recordQuest(db, at: now, durations: [(120, 118), (300, 340), (240, 200)])
        return (db, dir)
    }

    /// What must survive a refused restore untouched.
    func fingerprint(_ db: QuestDatabase) throws -> String {
        "\(try db.estimations().map(\.id))|\(try db.routines())|\(try db.profile())"
    }

    @Test("a backup is a whole, valid TimeQuest database with the same data; no temporary file is left")
    func backupIsComplete() throws {
        let (db, _) = try populated()
        let info = try db.backup(now: now)
        #expect(info.fileName == "questbox-20260528T202640Z-manual.sqlite")
        #expect(info.sizeBytes > 0)
        // One self-contained file: rollback-journal mode in the header, no -wal beside it.
        let header = try Data(contentsOf: URL(fileURLWithPath: info.path)).prefix(20)
        #expect(header[18] == 1 && header[19] == 1)
        #expect(!FileManager.default.fileExists(atPath: info.path + "-wal"))
        try QuestDatabase.validate(path: info.path)
        let copy = try QuestDatabase(path: info.path)
        #expect(try copy.estimations() == db.estimations())
        #expect(try copy.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")  // reopened by the store
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: db.backupsDirectory).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
        #expect(try db.backups().map(\.kind) == [.manual])
        #expect(try db.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM backupLog") } == 1)
    }

    @Test("automatic: once a day, the newest 14 kept")
    func daily() throws {
        let (db, _) = try populated()
        #expect(try db.backupIfDue(now: now) != nil)
        #expect(try db.backupIfDue(now: now.addingTimeInterval(3600)) == nil)
        #expect(try db.backupIfDue(now: now.addingTimeInterval(86_400)) != nil)
        for day in 2..<20 { try db.backupIfDue(now: now.addingTimeInterval(Double(day) * 86_400)) }
        try db.backup(now: now.addingTimeInterval(25 * 86_400))  // manual ones are not pruned
        let all = try db.backups()
        #expect(all.filter { $0.kind == .automatic }.count == 14)
        #expect(all.filter { $0.kind == .automatic }.map(\.createdAt).min() == now.addingTimeInterval(6 * 86_400))
        #expect(all.first?.kind == .manual)
        // A clock that jumped back does not stop backups.
        #expect(try db.backupIfDue(now: now.addingTimeInterval(-86_400)) != nil)
    }

    @Test("restore brings the backup's data back and saves what it replaced")
    func restoreWorks() throws {
        let (db, _) = try populated()
        let backup = try db.backup(now: now)
        let before = try fingerprint(db)
        try recordQuest(db, at: now.addingTimeInterval(86_400), durations: [(60, 61)])
        try db.removeRoutine(named: "School Morning")
        let safety = try db.restore(from: backup.path, now: now.addingTimeInterval(90_000))
        #expect(try fingerprint(db) == before)
        #expect(safety.kind == .beforeRestore)
        let saved = try QuestDatabase(path: safety.path)
        #expect(try saved.estimations().count == 4)
        #expect(try db.integrityCheck() == "ok")
        // The box keeps writing afterwards.
        try recordQuest(db, at: now.addingTimeInterval(100_000), durations: [(60, 61)])
        #expect(try db.estimations().count == 4)
    }

    func expectRefused(_ db: QuestDatabase, file: String, message: String) throws {
        let before = try fingerprint(db)
        let dbFile = try Data(contentsOf: URL(fileURLWithPath: db.path))
        var thrown: StoreError?
        do { try db.restore(from: file, now: now) } catch let e as StoreError { thrown = e }
        #expect(thrown?.description.contains(message) == true, "got \(String(describing: thrown))")
        #expect(thrown?.description.hasPrefix(file) == true)
        #expect(try fingerprint(db) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db.path)).count == dbFile.count)
        #expect(try db.backups().allSatisfy { $0.kind != .beforeRestore })  // refused before anything was done
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
        let backup = try db.backup(now: now)
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
        let backup = try db.backup(now: now)
        let file = (dir as NSString).appendingPathComponent("future.sqlite")
        try FileManager.default.copyItem(atPath: backup.path, toPath: file)
        let future = try DatabaseQueue(path: file)
        try future.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-telepathy')")
            try db.execute(sql: "PRAGMA user_version = 9")
        }
        try future.close()
        try expectRefused(db, file: file, message: "made by a newer version (schema 9 > \(Schema.currentVersion))")
        // Opening such a file as the live database is refused too.
        #expect(throws: StoreError.newerSchema(path: file, found: 9, known: Schema.currentVersion)) { _ = try QuestDatabase(path: file) }
    }

    @Test("restore of a missing file says so")
    func refusesMissing() throws {
        let (db, dir) = try populated()
        let file = (dir as NSString).appendingPathComponent("nope.sqlite")
        #expect(throws: StoreError.io("\(file): no such file")) { try db.restore(from: file, now: now) }
    }
}
