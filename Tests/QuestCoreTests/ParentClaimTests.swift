import Foundation
import Testing
@testable import QuestCore

/// PAR-2: a claim of the parent PIN is allowed only by the deliberate act at the idle box
/// (STOP and DOWN held together 3 s while its screen asks); a quest's presses never count,
/// and the player can always play.
@Suite("PAR-2 claiming the box: the act at the idle box")
struct ParentClaimTests {
    static let t0 = 1_000 * second

    /// The claim updates told so far.
    static func updates(_ box: Box) -> [ClaimUpdate] {
        box.sim.allEffects.compactMap { if case .claimChanged(let u) = $0 { u } else { nil } }
    }

    static func progress(_ box: Box) -> [ClaimUpdate.Progress] { updates(box).map(\.progress) }

    static func claim(_ box: inout Box, _ id: String = "c1", reset: Bool = false, match: String = "471", at t: Int64) {
        _ = box.sim.send(.claim(.start(id: id, reset: reset, match: match), atNanos: t), at: t)
    }

    /// STOP and DOWN pressed at `t` (DOWN 100 ms later) and held.
    static func holdBoth(_ box: inout Box, at t: Int64) {
        _ = box.sim.press(.stop, at: t)
        _ = box.sim.press(.down, at: t + 100 * milli)
    }

    static func releaseBoth(_ box: inout Box, at t: Int64) {
        _ = box.sim.release(.stop, at: t)
        _ = box.sim.release(.down, at: t + 10 * milli)
    }

    @Test("PAR-2: on the idle box the screen, light and buzzer ask; STOP and DOWN held 3 s confirm it; nothing is played or stored")
    func allowedAtTheBox() {
        var box = Box()
        let t0 = Self.t0
        Self.claim(&box, at: t0)
        #expect(Self.progress(box) == [.waiting, .shown])
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "471")))
        #expect(box.lastLED == .claim(holding: false))
        #expect(box.sim.allEffects.contains(.buzzer(.claim)))
        Self.holdBoth(&box, at: t0 + second)
        #expect(Self.progress(box).last == .holding)
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: true, match: "471")))
        #expect(box.lastLED == .claim(holding: true))
        box.sim.advance(to: t0 + second + 100 * milli + QuestMachine.claimHoldNanos - milli)
        #expect(Self.progress(box).last == .holding, "not before 3 s")
        box.sim.advance(to: t0 + second + 100 * milli + QuestMachine.claimHoldNanos)
        #expect(Self.updates(box).last == ClaimUpdate(id: "c1", progress: .confirmed))
        #expect(box.sim.state.claim == nil && box.phase == "idle")
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("no idle screen after"); return }
        #expect(idle.notice == ScreenPhrases.claimAllowed)
        Self.releaseBoth(&box, at: t0 + 5 * second)
        #expect(box.phase == "idle" && box.persisted.isEmpty, "the act starts nothing and stores nothing")
    }

    @Test("PAR-2: letting go early breaks the hold; it counts again from the next press of both")
    func releasedEarly() {
        var box = Box()
        let t0 = Self.t0
        Self.claim(&box, at: t0)
        Self.holdBoth(&box, at: t0 + second)
        _ = box.sim.release(.down, at: t0 + 3 * second)
        #expect(Self.progress(box).last == .shown)
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "471")))
        _ = box.sim.press(.down, at: t0 + 4 * second)
        box.sim.advance(to: t0 + 6 * second)
        #expect(Self.progress(box).last == .holding, "3 s from the new press, not the first")
        box.sim.advance(to: t0 + 7 * second)
        #expect(Self.progress(box).last == .confirmed)
    }

    @Test("PAR-2: a claim during a quest waits; the quest's presses (lock-in, stop, even STOP+DOWN held) never count; it asks once the box is idle")
    func waitsForIdle() {
        var box = Box()
        let t0 = Self.t0
        box.tap(.lock, at: t0)                          // the player starts the quest
        Self.claim(&box, at: t0 + second)
        #expect(Self.progress(box) == [.waiting])
        #expect(box.phase == "estimating")
        guard case .estimating? = box.lastScreen else { Issue.record("the claim took the quest's screen"); return }
        box.tap(.lock, at: t0 + 2 * second)              // lock in: an ordinary press
        #expect(box.phase == "active" && Self.progress(box) == [.waiting])
        // STOP and DOWN held together during the task, for longer than the act.
        Self.holdBoth(&box, at: t0 + 10 * second)
        box.sim.advance(to: t0 + 12 * second)
        #expect(Self.progress(box) == [.waiting])
        _ = box.sim.release(.down, at: t0 + 12 * second)  // before the abandon hold
        _ = box.sim.release(.stop, at: t0 + 12 * second + 10 * milli)
        #expect(box.phase == "revealing" && Self.progress(box) == [.waiting])
        box.tap(.lock, at: t0 + 13 * second)
        box.tap(.lock, at: t0 + 14 * second)
        box.tap(.stop, at: t0 + 20 * second)
        box.tap(.lock, at: t0 + 21 * second)
        box.tap(.lock, at: t0 + 22 * second)
        box.tap(.stop, at: t0 + 30 * second)
        box.tap(.lock, at: t0 + 31 * second)             // past the last reveal
        #expect(box.phase == "summary" && Self.progress(box) == [.waiting])
        box.tap(.stop, at: t0 + 32 * second)             // any button leaves the summary
        #expect(box.phase == "idle" && Self.progress(box) == [.waiting, .shown])
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "471")))
    }

    @Test("PAR-2: buttons already down when the box begins to ask do not count")
    func heldBeforeAsking() {
        var box = Box()
        let t0 = Self.t0
        Self.holdBoth(&box, at: t0)
        Self.claim(&box, at: t0 + second)
        box.sim.advance(to: t0 + 10 * second)
        #expect(Self.progress(box) == [.waiting, .shown])
        Self.releaseBoth(&box, at: t0 + 10 * second)
        Self.holdBoth(&box, at: t0 + 11 * second)
        box.sim.advance(to: t0 + 15 * second)
        #expect(Self.progress(box).last == .confirmed)
    }

    @Test("PAR-2: a claim never blocks play: LOCK starts the quest and ends the claim; UP says no")
    func playAlwaysWins() {
        var box = Box()
        let t0 = Self.t0
        Self.claim(&box, at: t0)
        box.tap(.lock, at: t0 + second)
        #expect(box.phase == "estimating")
        #expect(Self.updates(box).last == ClaimUpdate(id: "c1", progress: .ended, reason: .questStarted))
        #expect(box.sim.state.claim == nil)

        var other = Box()
        Self.claim(&other, "c2", reset: true, at: t0)
        #expect(other.lastScreen == .claim(ClaimScreen(reset: true, holding: false, match: "471")))
        other.tap(.up, at: t0 + second)
        #expect(Self.updates(other).last == ClaimUpdate(id: "c2", progress: .ended, reason: .declined))
        guard case .idle? = other.lastScreen else { Issue.record("the idle screen did not come back"); return }
        #expect(other.lastLED != .claim(holding: false))
        other.tap(.lock, at: t0 + 2 * second)
        #expect(other.phase == "estimating")
    }

    @Test("PAR-2: the box asks for 2 minutes; a claim waits at most 15 minutes for a busy box")
    func limits() {
        var box = Box()
        let t0 = Self.t0
        Self.claim(&box, at: t0)
        box.sim.advance(to: t0 + QuestMachine.claimShownNanos - second)
        #expect(Self.progress(box).last == .shown)
        box.sim.advance(to: t0 + QuestMachine.claimShownNanos)
        #expect(Self.updates(box).last == ClaimUpdate(id: "c1", progress: .ended, reason: .timedOut))
        guard case .idle? = box.lastScreen else { Issue.record("the idle screen did not come back"); return }

        var busy = Box()
        busy.tap(.lock, at: t0)
        busy.tap(.lock, at: t0 + second)                 // a long task
        Self.claim(&busy, at: t0 + 2 * second)
        busy.sim.advance(to: t0 + 2 * second + QuestMachine.claimWaitNanos)
        #expect(Self.updates(busy).last == ClaimUpdate(id: "c1", progress: .ended, reason: .stayedBusy))
        #expect(busy.phase == "active", "the task runs on")
    }

    @Test("PAR-2: a button check takes the buttons: its presses never count, and the box asks again after it")
    func buttonCheckHidesIt() {
        var box = Box()
        let t0 = Self.t0
        Self.claim(&box, at: t0)
        Self.holdBoth(&box, at: t0 + second)
        _ = box.sim.send(.buttonCheck(on: true, atNanos: t0 + 2 * second), at: t0 + 2 * second)
        box.sim.advance(to: t0 + 6 * second)
        #expect(Self.progress(box) == [.waiting, .shown, .holding, .waiting])
        guard case .idle(let screen)? = box.lastScreen else { Issue.record("no check screen"); return }
        #expect(screen.notice == QuestMachine.buttonCheckNotice)
        Self.releaseBoth(&box, at: t0 + 7 * second)
        Self.holdBoth(&box, at: t0 + 8 * second)
        box.sim.advance(to: t0 + 12 * second)
        #expect(Self.progress(box).last == .waiting)
        Self.releaseBoth(&box, at: t0 + 12 * second)
        _ = box.sim.send(.buttonCheck(on: false, atNanos: t0 + 13 * second), at: t0 + 13 * second)
        #expect(Self.progress(box).last == .shown)
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "471")))
    }

    @Test("PAR-2 (#47): one claim at a time, and the first keeps the box: a second claim is refused and never replaces it, the act then confirms the first; the asker can take a claim back; the same claim twice is one")
    func oneAtATime() {
        var box = Box()
        let t0 = Self.t0
        Self.claim(&box, "a", match: "208", at: t0)
        Self.claim(&box, "a", match: "208", at: t0 + second)
        #expect(Self.progress(box) == [.waiting, .shown])
        Self.claim(&box, "b", match: "471", at: t0 + 2 * second)
        #expect(Self.updates(box).last == ClaimUpdate(id: "b", progress: .ended, reason: .anotherClaim))
        #expect(box.sim.state.claim?.id == "a" && box.sim.state.claim?.match == "208")
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "208")), "the box still shows the first asker's code")
        Self.holdBoth(&box, at: t0 + 3 * second)
        box.sim.advance(to: t0 + 7 * second)
        #expect(Self.updates(box).filter { $0.progress == .confirmed } == [ClaimUpdate(id: "a", progress: .confirmed)], "the act confirms the first claim only")
        Self.releaseBoth(&box, at: t0 + 8 * second)

        var other = Box()
        Self.claim(&other, "a", at: t0)
        Self.claim(&other, "b", at: t0 + second)
        _ = other.sim.send(.claim(.cancel(id: "b"), atNanos: t0 + 3 * second), at: t0 + 3 * second)
        #expect(other.sim.state.claim?.id == "a", "only the claim's own name takes it back")
        _ = other.sim.send(.claim(.cancel(id: "a"), atNanos: t0 + 4 * second), at: t0 + 4 * second)
        #expect(Self.updates(other).last == ClaimUpdate(id: "a", progress: .ended, reason: .cancelled))
        guard case .idle? = other.lastScreen else { Issue.record("the idle screen did not come back"); return }
    }

    @Test("PAR-2: the box's words say who asks and what to do, each line within the OLED's 21 characters")
    func words() {
        for reset in [false, true] {
            for holding in [false, true] {
                let words = Screen.claim(ClaimScreen(reset: reset, holding: holding, match: "471")).words
                for line in words.top + words.lines + [words.hint ?? ""] { #expect(line.count <= 21, "\(line)") }
                #expect(words.top == [reset ? "Set a new parent PIN?" : "Set the parent PIN?", "Same code on phone?"])
                #expect(words.big == "4 7 1", "the asking page's code is the big line (#47)")
                #expect(words.all.contains(holding ? "Keep holding 3 s" : "Hold STOP+DOWN 3 s"))
                #expect(words.hint == "UP: no · LOCK: play")
            }
        }
    }

    @Test("PAR-2 (#47): a claim without its code of three digits is never shown; the voice says the code a digit at a time")
    func matchCode() {
        for bad in ["", "47", "4711", "4a1", "٤٧١", " 47"] {
            var box = Box()
            Self.claim(&box, match: bad, at: Self.t0)
            #expect(box.sim.state.claim == nil, "\(bad.debugDescription) was taken")
            #expect(Self.updates(box).last?.progress == .ended)
        }
        let spoken = Screen.claim(ClaimScreen(reset: false, holding: false, match: "407")).spoken ?? ""
        #expect(spoken.contains("If their phone shows four zero seven, hold STOP and DOWN"), "\(spoken)")
    }
}
