import Foundation
import Testing
@testable import QuestCore

/// PAR-1 wiring check and first-run presence press: while a button check holds the
/// buttons, they are debounced and told but start nothing; it ends when let go, or by itself.
@Suite("Button check (wiring page, presence press)")
struct ButtonCheckTests {
    @Test("held: lock, up and down do nothing in the game; the idle screen says why; let go, lock starts the quest")
    func holdsTheButtons() {
        var box = Box()
        let t0 = 1_000 * second
        _ = box.sim.send(.buttonCheck(on: true, atNanos: t0), at: t0)
        #expect(box.sim.state.buttonCheck)
        guard case .idle(let screen)? = box.lastScreen else { Issue.record("no idle screen"); return }
        #expect(screen.notice == QuestMachine.buttonCheckNotice)
        let selected = box.sim.state.phase

        box.tap(.lock, at: t0 + second)
        box.tap(.down, at: t0 + 2 * second)
        box.tap(.stop, at: t0 + 3 * second)
        #expect(box.phase == "idle")
        #expect(box.sim.state.phase == selected)
        #expect(box.persisted.isEmpty)
        // Debounce still runs: the line is seen down while held, up after.
        _ = box.sim.press(.up, at: t0 + 4 * second)
        #expect(box.sim.state.debouncer.isPressed(.up))
        _ = box.sim.release(.up, at: t0 + 4 * second + 80 * milli)
        #expect(!box.sim.state.debouncer.isPressed(.up))

        _ = box.sim.send(.buttonCheck(on: false, atNanos: t0 + 5 * second), at: t0 + 5 * second)
        #expect(!box.sim.state.buttonCheck)
        guard case .idle(let after)? = box.lastScreen else { Issue.record("no idle screen"); return }
        #expect(after.notice == nil)
        box.tap(.lock, at: t0 + 6 * second)
        #expect(box.phase == "estimating")
    }

    @Test("a check left open ends by itself after 10 minutes")
    func endsByItself() {
        var box = Box()
        let t0 = 1_000 * second
        _ = box.sim.send(.buttonCheck(on: true, atNanos: t0), at: t0)
        box.sim.advance(to: t0 + QuestMachine.buttonCheckLimitNanos - second)
        #expect(box.sim.state.buttonCheck)
        box.sim.advance(to: t0 + QuestMachine.buttonCheckLimitNanos + second)
        #expect(!box.sim.state.buttonCheck)
        box.tap(.lock, at: t0 + QuestMachine.buttonCheckLimitNanos + 2 * second)
        #expect(box.phase == "estimating")
    }

    @Test("a quest in play keeps its buttons: a check does not start outside idle")
    func notDuringAQuest() {
        var box = Box()
        let t0 = 1_000 * second
        box.tap(.lock, at: t0)
        #expect(box.phase == "estimating")
        _ = box.sim.send(.buttonCheck(on: true, atNanos: t0 + second), at: t0 + second)
        #expect(!box.sim.state.buttonCheck)
        box.tap(.lock, at: t0 + 2 * second)
        #expect(box.phase == "active")
    }

    @Test("a store change during the check keeps its notice on the idle screen")
    func worldUpdateKeepsNotice() {
        var box = Box()
        let t0 = 1_000 * second
        _ = box.sim.send(.buttonCheck(on: true, atNanos: t0), at: t0)
        _ = box.sim.send(.worldUpdated(box.sim.state.world, atNanos: t0 + second), at: t0 + second)
        guard case .idle(let screen)? = box.lastScreen else { Issue.record("no idle screen"); return }
        #expect(screen.notice == QuestMachine.buttonCheckNotice)
        box.tap(.lock, at: t0 + 2 * second)
        #expect(box.phase == "idle")
    }
}
