import Foundation
import Testing
@testable import QuestCore

/// #34: what the house (Home Assistant's button and switch) may ask of the box: a reminder
/// now, between quests only, and the sound switch, under a parent's lock like the box's own.
@Suite("#34: the house's reminder and sound switch")
struct HouseRequestTests {
    func reminders(_ box: Box) -> [String] {
        box.persisted.compactMap { if case .reminderSounded(_, let name, _) = $0 { name } else { nil } }
    }

    func mutes(_ box: Box) -> [Bool] {
        box.persisted.compactMap { if case .soundMuted(let m) = $0 { m } else { nil } }
    }

    @Test("remind now on the quest list: REM-1's chime and one reminder logged for the chosen quest")
    func remindNow() {
        var box = Box()
        let effects = box.sim.send(.house(.remindNow, atNanos: 1 * second), at: 1 * second)
        #expect(reminders(box) == ["Morning Quest"])
        #expect(effects.contains(.playSound(.questAvailable)))
        #expect(box.sim.state.world.reminders[Box.routineID] != nil)
        #expect(box.phase == "idle")
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("no idle screen"); return }
        #expect(idle.quests.first?.reminded == true, "the quest list marks it reminded")
    }

    @Test("remind now with today's quest played, or during a quest: nothing sounds and nothing is logged")
    func remindRefused() {
        var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "boot-1")
        world.plays = [QuestPlay(routineID: Box.routineID, completedAt: at(2026, 6, 10, 6, 50, Box.cal), measuredTaskSeconds: 300)]
        var played = Box(world: world)
        played.sim.send(.house(.remindNow, atNanos: 1 * second), at: 1 * second)
        #expect(reminders(played).isEmpty && !played.sounds.contains(.questAvailable))

        var busy = Box()
        busy.tap(.lock, at: 1 * second)
        #expect(busy.phase == "estimating")
        busy.sim.send(.house(.remindNow, atNanos: 2 * second), at: 2 * second)
        #expect(reminders(busy).isEmpty && !busy.sounds.contains(.questAvailable))
        #expect(busy.phase == "estimating", "a quest in play is never interrupted")
    }

    @Test("the sound switch from the house: written once, said on the quest list, kept during a quest")
    func soundSwitch() {
        var box = Box()
        box.sim.send(.house(.sound(muted: true), atNanos: 1 * second), at: 1 * second)
        #expect(mutes(box) == [true])
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("no idle screen"); return }
        #expect(idle.notice == ScreenPhrases.soundOff)
        box.sim.send(.house(.sound(muted: true), atNanos: 2 * second), at: 2 * second)
        #expect(mutes(box) == [true], "already off: nothing written again")
        box.tap(.lock, at: 3 * second)
        box.sim.send(.house(.sound(muted: false), atNanos: 4 * second), at: 4 * second)
        #expect(mutes(box) == [true, false])
        #expect(box.phase == "estimating", "the quest goes on")
    }

    @Test("a parent's lock holds for the house too")
    func locked() {
        var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "boot-1")
        world.settings.lockedSwitches = [.mute]
        var box = Box(world: world)
        box.sim.send(.house(.sound(muted: true), atNanos: 1 * second), at: 1 * second)
        #expect(mutes(box).isEmpty)
        #expect(!box.sim.state.world.settings.soundMuted)
    }
}
