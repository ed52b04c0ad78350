@testable import BoxRuntime
import CEventLoop
import Foundation
import Logging
import QuestCore
import QuestStore
import SystemClock
import Testing

@Suite("The store follower: another program's commit is seen and read; the box's own writes are not", .serialized)
struct StoreFollowerTests {
    func store() throws -> (path: String, db: QuestDatabase) {
        let dir = NSTemporaryDirectory() + "questbox-follower-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/questbox.sqlite"
        return (path, try QuestDatabase(path: path))
    }

    static let mondayFirst: Calendar = {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = .gmt
        cal.firstWeekday = 2
        return cal
    }()

    func follower(_ db: QuestDatabase) -> StoreFollower {
        StoreFollower(database: db, clock: FakeSystemClock(wall: Date(timeIntervalSince1970: 1_780_000_000)), calendar: Self.mondayFirst, logger: Logger(label: "test"))
    }

    /// Whether the watch's descriptor is readable within `ms`.
    func readable(_ fd: Int32, within ms: Int32) -> Bool {
        var fds = [fd]
        var ready: [Int32] = [0]
        return qb_poll_readable(&fds, 1, ms, &ready) > 0
    }

    @Test("a commit by another connection wakes the watch, is found by the version, and is read (counted once)")
    func otherWriter() throws {
        let (path, db) = try store()
        let follower = follower(db)
        #expect(follower.watchFD >= 0)
        let firstWorld = try follower.firstWorld()
        #expect(firstWorld.settings.remindersEnabled)
        #expect(!follower.hasChanged() && follower.reads == 1)

        let other = try QuestDatabase(path: path)
        try other.settings.update { $0.game.remindersEnabled = false }
        #expect(readable(follower.watchFD, within: 5_000), "the write woke the watch")
        follower.watchFired()
        #expect(follower.checkDue)
        // The commit is published in shared memory after the WAL write: look until it shows.
        var changed = follower.hasChanged()
        let started = Date()
        while !changed && Date().timeIntervalSince(started) < 10 {
            usleep(50_000)
            changed = follower.hasChanged()
        }
        #expect(changed && !follower.checkDue)
        let world = try #require(follower.reread())
        #expect(!world.settings.remindersEnabled && follower.reads == 2)
        #expect(!follower.hasChanged(), "the version read with the world is the one compared")
    }

    @Test("the box's own write: its events are taken at once, so they never wake the loop, and the version stays")
    func ownWrite() throws {
        let (_, db) = try store()
        let follower = follower(db)
        try db.settings.update { $0.volumePercent = 40 }
        follower.ownWriteDone()
        #expect(!readable(follower.watchFD, within: 200))
        #expect(!follower.hasChanged() && follower.recheckAt == nil)
    }

    @Test("REFL-1: a new week is told by the week the reflection was read in")
    func newWeek() throws {
        let (_, db) = try store()
        let follower = follower(db)
        _ = try follower.firstWorld()
        let cal = Self.mondayFirst
        let readAt = Date(timeIntervalSince1970: 1_780_000_000)  // Thursday 2026-05-28
        #expect(!follower.isNewWeek(readAt, calendar: cal))
        #expect(!follower.isNewWeek(readAt.addingTimeInterval(3 * 86_400), calendar: cal), "Sunday: the same week")
        #expect(follower.isNewWeek(readAt.addingTimeInterval(4 * 86_400), calendar: cal), "Monday: a new one")
    }
}
