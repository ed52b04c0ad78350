import Foundation
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// GAME-5 across a reboot, found by the family's month (#32): with a trusted wall clock the
/// task being timed goes on after the reboot, its lock placed on the new boot's monotonic
/// clock, before that boot's zero. The store keeps such a row readable, its XP counts, and
/// a backup holding it restores (it was refused as damaged).
@Suite("GAME-5: a task timed across a reboot")
struct RebootBridgeTests {
    @Test("the lock before the boot's zero is stored, read back, counted, and restores")
    func bridged() throws {
        let (db, _) = try freshDatabase()
        try db.settings.update { $0.game.firstQuestIntro = false }  // GAME-9: she has seen how it works
        try db.routines.save(morningRoutine)
        let s = PausedQuestTests.second
        var before = try PausedQuestTests.Box(db, wallClockStart: PausedQuestTests.morning, bootID: "boot-a")
        try before.tap(.lock, at: 1 * s)
        try before.tap(.lock, at: 2 * s)  // task 1 timed from here
        let task = try #require(try db.plays.inProgress()?.task)

        // The plug is pulled; the Pi is back 2 minutes later, its box started 5 s after boot.
        var after = try PausedQuestTests.Box(db, wallClockStart: PausedQuestTests.morning.addingTimeInterval(122), bootID: "boot-b")
        after.sim.send(.restoreInProgress(task, completedEstimations: [], atNanos: 5 * s), at: 5 * s)
        try after.persist()
        #expect(after.sim.state.phase.name == "active")
        let moved = try #require(try db.plays.inProgress()?.task, "the bridged task is still readable")
        #expect(moved.bootID == "boot-b" && moved.lockMonotonicNanos < 0)
        try after.tap(.stop, at: 30 * s)

        let estimation = try #require(try db.plays.estimations().first)
        #expect(abs(estimation.actualSeconds - 150) < 0.5, "120 s before the reboot and 30 s after: \(estimation.actualSeconds)")
        #expect(try db.unreadableRows(limit: 5).total == 0)
        #expect(try db.inconsistentSessionXP().isEmpty)
        #expect(try db.profile().totalXP >= estimation.xpEarned)

        let backup = try db.backups.make(now: PausedQuestTests.morning.addingTimeInterval(600))
        try db.backups.restore(from: db.backups.directory + "/" + backup.fileName, now: PausedQuestTests.morning.addingTimeInterval(700))
        #expect(try db.plays.estimations().count == 1)
    }
}
