import Foundation
import GRDB
import GRDBSQLite
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// #36: the daemon waits holding only what it keeps; SQLite's page caches are handed back
/// once the world is read.
@Suite("The store's memory (#36)")
struct StoreMemoryTests {
    /// Bytes of page cache a connection holds (SQLITE_DBSTATUS_CACHE_USED).
    static func cacheUsed(_ db: Database) -> Int32 {
        var current: Int32 = 0, highest: Int32 = 0
        _ = sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
        return current
    }

    @Test("releaseCachedPages empties the writer's and the reader's page caches; the store reads and writes on as before")
    func releasesCaches() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try QuestDatabase(path: dir + "/questbox.sqlite", footprint: .small)
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        for day in 0..<40 {
            try recordQuest(db, at: start.addingTimeInterval(Double(day) * 86_400), durations: [(60, 75), (120, 100), (200, 260)])
        }
        let before = try db.profile()
        let writerFull = db.pool.writeWithoutTransaction { Self.cacheUsed($0) }
        let readerFull = try db.pool.read { db -> Int32 in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM estimation")
            return Self.cacheUsed(db)
        }
        #expect(writerFull > 0 && readerFull > 0)

        db.releaseCachedPages()
        #expect(db.pool.writeWithoutTransaction { Self.cacheUsed($0) } < writerFull / 4)
        #expect(try db.pool.read { Self.cacheUsed($0) } < readerFull / 4)
        #expect(try db.profile() == before)
        try db.close()
    }
}
