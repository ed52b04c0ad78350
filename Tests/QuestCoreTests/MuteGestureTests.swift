import Foundation
import Testing
@testable import QuestCore

/// #32 item 6: the player switches the sounds at the box: STOP on the quest list says how,
/// and held 3 s turns them off or on, unless a parent locked the switch.
@Suite("#32: the sound switch at the box")
struct MuteGestureTests {
    static let hold = GameRules.standard.abandonHoldMs * milli

    func mutes(_ box: Box) -> [Bool] {
        box.persisted.compactMap { if case .soundMuted(let m) = $0 { m } else { nil } }
    }

    func notice(_ box: Box) -> String? {
        guard case .idle(let idle)? = box.lastScreen else { return nil }
        return idle.notice
    }

    @Test("a short STOP on the quest list shows the gesture and changes nothing")
    func shortPressShowsHelp() {
        var box = Box()
        box.tap(.stop, at: 1 * second)
        box.sim.advance(to: 1 * second + 2 * Self.hold)
        #expect(box.phase == "idle")
        #expect(notice(box) == "Hold STOP: sound off")
        #expect(mutes(box).isEmpty)
    }

    @Test("STOP held 3 s turns the sounds off (the buzzer answers), held again turns them on (a tick sounds)")
    func holdSwitches() {
        var box = Box()
        box.tap(.stop, at: 1 * second, hold: Self.hold + 100 * milli)
        #expect(mutes(box) == [true])
        #expect(notice(box) == ScreenPhrases.soundOff)
        #expect(box.sim.state.world.settings.soundMuted)
        #expect(box.sim.allEffects.contains(.buzzer(.tap)))
        #expect(!box.sounds.contains(.estimateTick), "no confirming sound while they go off")
        box.tap(.stop, at: 10 * second)
        #expect(notice(box) == "Hold STOP: sound on")
        box.tap(.stop, at: 20 * second, hold: Self.hold + 100 * milli)
        #expect(mutes(box) == [true, false])
        #expect(notice(box) == ScreenPhrases.soundOn)
        #expect(box.sounds.last == .estimateTick)
        #expect(box.phase == "idle", "no quest started")
    }

    @Test("released before 3 s: nothing switches")
    func releasedEarly() {
        var box = Box()
        box.tap(.stop, at: 1 * second, hold: Self.hold - 200 * milli)
        box.sim.advance(to: 10 * second)
        #expect(mutes(box).isEmpty)
    }

    @Test("a parent locked the switch: the box says so and nothing is written")
    func locked() {
        var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "boot-1")
        world.settings.lockedSwitches = [.mute]
        var box = Box(world: world)
        box.tap(.stop, at: 1 * second, hold: Self.hold + 100 * milli)
        #expect(mutes(box).isEmpty)
        #expect(notice(box) == ScreenPhrases.muteLocked)
        #expect(!box.sim.state.world.settings.soundMuted)
    }

    @Test("during a quest STOP keeps its meaning: held 3 s pauses the quest, never switches the sound")
    func duringAQuest() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.stop, at: 2 * second, hold: Self.hold + 100 * milli)
        #expect(mutes(box).isEmpty)
        #expect(box.persisted.contains { if case .sessionPaused = $0 { true } else { false } })
    }

    @Test("the gesture's words fit one OLED row (21 characters)")
    func wordsFit() {
        for words in [ScreenPhrases.muteHelp(muted: true), ScreenPhrases.muteHelp(muted: false), ScreenPhrases.soundOff, ScreenPhrases.soundOn, ScreenPhrases.muteLocked] {
            #expect(words.count <= 21, "\(words)")
        }
    }
}
