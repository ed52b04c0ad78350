import Foundation
import Testing
@testable import QuestCore

/// #33: a paired touch kiosk's buttons are the box's buttons (debounce, GAME-4's guard, the
/// quest), with one exception: PAR-2's claim needs the act at the box, so a touch never
/// holds for it.
@Suite("#33 touch presses")
struct TouchPressTests {
    static let t0 = 1_000 * second

    static func touch(_ box: inout Box, _ role: ButtonRole, pressed: Bool, at t: Int64) {
        _ = box.sim.send(.touch(role, pressed: pressed, atNanos: t), at: t)
    }

    static func touchTap(_ box: inout Box, _ role: ButtonRole, at t: Int64) {
        touch(&box, role, pressed: true, at: t)
        touch(&box, role, pressed: false, at: t + 120 * milli)
    }

    static func progress(_ box: Box) -> [ClaimUpdate.Progress] {
        box.sim.allEffects.compactMap { if case .claimChanged(let u) = $0 { u.progress } else { nil } }
    }

    @Test("#33 a touch plays as a press does: LOCK starts the quest, a stop inside GAME-4's guard is ignored and seen, a later stop reveals")
    func touchPlays() {
        var box = Box()
        let t0 = Self.t0
        Self.touchTap(&box, .lock, at: t0)
        #expect(box.phase == "estimating")
        Self.touchTap(&box, .up, at: t0 + second)
        Self.touchTap(&box, .lock, at: t0 + 2 * second)
        #expect(box.phase == "active")
        Self.touchTap(&box, .stop, at: t0 + 2 * second + 500 * milli)
        #expect(box.phase == "active", "GAME-4: inside the guard")
        guard case .active(let active)? = box.lastScreen else { Issue.record("no active screen"); return }
        #expect(active.note == ScreenPhrases.justStarted)
        Self.touchTap(&box, .stop, at: t0 + 40 * second)
        #expect(box.phase == "revealing")
        #expect(box.sim.state.touched.isEmpty, "nothing is left held")
    }

    @Test("#33 a touch's bounce is the debouncer's: edges 5 ms apart are one press")
    func touchDebounced() {
        var box = Box()
        let t0 = Self.t0
        Self.touch(&box, .lock, pressed: true, at: t0)
        Self.touch(&box, .lock, pressed: false, at: t0 + 5 * milli)
        Self.touch(&box, .lock, pressed: true, at: t0 + 10 * milli)
        Self.touch(&box, .lock, pressed: false, at: t0 + 15 * milli)
        box.sim.advance(to: t0 + second)
        #expect(box.phase == "estimating", "one start, not a start and a lock-in")
    }

    @Test("#33 PAR-2: STOP and DOWN held on a touch screen never confirm a claim, however long")
    func touchNeverClaims() {
        var box = Box()
        let t0 = Self.t0
        _ = box.sim.send(.claim(.start(id: "c1", reset: false, match: "471"), atNanos: t0), at: t0)
        #expect(Self.progress(box) == [.waiting, .shown])
        Self.touch(&box, .stop, pressed: true, at: t0 + second)
        Self.touch(&box, .down, pressed: true, at: t0 + second + 100 * milli)
        box.sim.advance(to: t0 + 30 * second)
        #expect(Self.progress(box) == [.waiting, .shown], "no hold, no confirmation")
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "471")))
        // Let go on the screen; the box's own STOP with a touched DOWN is not the act either.
        Self.touch(&box, .stop, pressed: false, at: t0 + 31 * second)
        _ = box.sim.press(.stop, at: t0 + 32 * second)
        box.sim.advance(to: t0 + 40 * second)
        #expect(Self.progress(box) == [.waiting, .shown])
        // Both at the box: the act.
        Self.touch(&box, .down, pressed: false, at: t0 + 41 * second)
        _ = box.sim.press(.down, at: t0 + 42 * second)
        box.sim.advance(to: t0 + 42 * second + QuestMachine.claimHoldNanos)
        #expect(Self.progress(box) == [.waiting, .shown, .holding, .confirmed])
    }

    @Test("#33 PAR-2: the player can always play from the touch screen: LOCK starts her quest and ends the claim")
    func touchLockEndsClaim() {
        var box = Box()
        let t0 = Self.t0
        _ = box.sim.send(.claim(.start(id: "c1", reset: false, match: "471"), atNanos: t0), at: t0)
        Self.touchTap(&box, .lock, at: t0 + second)
        #expect(box.phase == "estimating")
        #expect(Self.progress(box).last == .ended)
    }
}
