import Foundation
import GRDB
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// PRIV-1 (#48): a new box's pages are the player's alone; a box in use keeps its choice
/// through the migration; and (seed 004) a parent's lock on her reminders switch is lifted.
@Suite("PRIV-1: her pages private on a new box, through the migration")
struct PrivateByDefaultStoreTests {
    /// A store made as the box before PRIV-1 made it (schema 14), changed by `prepare`,
    /// then opened by today's box.
    static func upgraded(_ prepare: (Database) throws -> Void) throws -> StoredSettings {
        let dir = NSTemporaryDirectory() + "questbox-tests-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/questbox.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator().migrate(queue, upTo: "v14-voice")
            try queue.write(prepare)
        }
        return try QuestDatabase(path: path).settings.current()
    }

    @Test("PRIV-1: a store never used (no routine, play or PIN) turns paired-only; a fresh one is")
    func unusedTurnsPaired() throws {
        #expect(try Self.upgraded { _ in }.playerPagesPaired)
        #expect(try Self.upgraded { db in try db.execute(sql: "INSERT INTO settings (id) VALUES (1)") }.playerPagesPaired)
        let (fresh, _) = try freshDatabase()
        #expect(try fresh.settings.current().playerPagesPaired)
    }

    @Test("PRIV-1: a box in use (a routine, a play or a PIN) keeps its pages as they were, open or paired")
    func usedKeeps() throws {
        let routine: (Database) throws -> Void = { db in
            try db.execute(sql: """
                INSERT INTO routine (id, name, displayName, activeDays, isActive, createdBy, position)
                VALUES (X'00112233445566778899AABBCCDDEEFF', 'morning', 'Morning', '2,3,4,5,6', 1, 'parent', 0)
                """)
        }
        #expect(try !Self.upgraded(routine).playerPagesPaired)
        #expect(try !Self.upgraded { db in try db.execute(sql: "INSERT INTO settings (id, pinHash) VALUES (1, 'x')") }.playerPagesPaired)
        #expect(try Self.upgraded { db in
            try routine(db)
            try db.execute(sql: "INSERT INTO settings (id, playerPagesPaired) VALUES (1, 1)")
        }.playerPagesPaired, "a family's paired choice stays")
    }

    @Test("seed 004 (#48): a parent's lock on her reminders switch is lifted; the other locks stay")
    func remindersLockLifted() throws {
        let settings = try Self.upgraded { db in
            try db.execute(sql: "INSERT INTO settings (id, pinHash, lockSoundMute, lockHints, lockReminders) VALUES (1, 'x', 1, 1, 1)")
        }
        #expect(settings.game.lockedSwitches == [.mute, .hints])
    }
}
