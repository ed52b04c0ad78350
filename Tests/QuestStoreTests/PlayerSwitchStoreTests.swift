import Foundation
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// #32 item 6: the player's switches in the store: each changes one setting in SQL, a
/// parent's lock is checked in the same statement, and the box's gesture keeps to it too.
@Suite("#32: the player's switches in the store")
struct PlayerSwitchStoreTests {
    @Test("each switch changes its own setting; the world reads the sound switch and the locks")
    func switches() throws {
        let (db, _) = try freshDatabase()
        #expect(try db.settings.setPlayerSwitch(.mute, on: true))
        #expect(try db.settings.setPlayerSwitch(.hints, on: false))
        #expect(try db.settings.setPlayerSwitch(.reminders, on: false))
        var s = try db.settings.current()
        #expect(!s.soundEnabled && s.game.soundMuted && !s.game.hintsEnabled && !s.game.remindersEnabled)
        #expect(try db.settings.setPlayerSwitch(.mute, on: false))
        s = try db.settings.current()
        #expect(s.soundEnabled && !s.game.soundMuted)
        let world = try db.loadWorld(calendar: .current, bootID: "b", taskMemory: false)
        #expect(!world.settings.soundMuted && world.settings.lockedSwitches.isEmpty)
    }

    @Test("the store's write and the surfaces' reading agree for every switch, both ways")
    func writeMatchesReading() throws {
        let (db, _) = try freshDatabase()
        for playerSwitch in PlayerSwitch.allCases {
            for on in [true, false, true] {
                #expect(try db.settings.setPlayerSwitch(playerSwitch, on: on))
                #expect(playerSwitch.isOn(in: try db.settings.current().game) == on, "\(playerSwitch) \(on)")
            }
        }
    }

    @Test("a locked switch is refused and nothing changes; the parent's own change still goes through; #48: her reminders switch is never locked")
    func locked() throws {
        let (db, _) = try freshDatabase()
        try db.settings.update { $0.game.lockedSwitches = [.mute, .hints, .reminders] }
        #expect(try db.settings.setPlayerSwitch(.mute, on: true) == false)
        #expect(try db.settings.setPlayerSwitch(.hints, on: false) == false)
        #expect(try db.settings.setPlayerSwitch(.reminders, on: false), "seed 004: she can always turn her reminders off")
        var s = try db.settings.current()
        #expect(s.soundEnabled && !s.game.remindersEnabled && s.game.hintsEnabled)
        #expect(s.game.lockedSwitches == [.mute, .hints], "a lock on her reminders is never kept")
        #expect(PlayerSwitch.lockable == [.mute, .hints])
        try db.settings.update { $0.game.lockedSwitches = [.mute] }
        #expect(try db.settings.setPlayerSwitch(.hints, on: false))
        s = try db.settings.current()
        #expect(!s.game.hintsEnabled && s.game.lockedSwitches == [.mute])
        // The box's gesture, written as the box writes it, keeps to the lock as well.
        try db.plays.apply(.soundMuted(true), wallClockTrusted: true)
        #expect(try db.settings.current().soundEnabled)
        try db.settings.update { $0.soundEnabled = false }
        #expect(try db.settings.current().soundEnabled == false, "a parent changes a locked setting")
    }

    @Test("the box's gesture is written like any play, and read back by the next world")
    func gesture() throws {
        let (db, _) = try freshDatabase()
        try db.plays.apply(.soundMuted(true), wallClockTrusted: true)
        #expect(try db.loadWorld(calendar: .current, bootID: "b", taskMemory: false).settings.soundMuted)
        try db.plays.apply(.soundMuted(false), wallClockTrusted: true)
        #expect(try db.settings.current().soundEnabled)
    }
}
