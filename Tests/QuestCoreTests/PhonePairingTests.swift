import Foundation
import Testing
@testable import QuestCore

/// PRIV-1 (#48): her phone is paired by her own act at the box: the idle box gives a code
/// for 2 minutes, one phone at a time, never over a quest or a parent's claim; any button
/// takes it away and LOCK still plays.
@Suite("PRIV-1 a phone's code at the box")
struct PhonePairingTests {
    static let t0 = 1_000 * second

    @discardableResult
    static func ask(_ box: inout Box, _ id: String = "phone-1", code: String = "538102", at t: Int64) -> [QuestEffect] {
        box.sim.send(.pairing(.show(id: id, code: code), atNanos: t), at: t)
    }

    @Test("PRIV-1: the idle box shows the code (OLED words, voice) for 2 minutes, then its idle screen again; a LOCK within 3 s after starts nothing (GAME-8)")
    func showsForTwoMinutes() {
        var box = Box(speaks: true)
        let effects = Self.ask(&box, at: Self.t0)
        #expect(box.lastScreen == .pairing(PairingScreen(code: "538102")))
        #expect(box.sim.state.pairing?.id == "phone-1")
        #expect(effects.contains(.scheduleTimer(.pairingLimit, atNanos: Self.t0 + QuestMachine.pairingShownNanos)))
        let words = Screen.pairing(PairingScreen(code: "538102")).words
        #expect(words.big == "538 102" && words.top == ["Pair a phone?", "Type on the phone:"])
        let oled = words.top + words.lines + [words.big ?? "", words.hint ?? ""]
        #expect(oled.allSatisfy { $0.count <= 21 }, "each line the OLED shows fits it: \(oled)")
        #expect(effects.contains(.speak("A phone asks to show your pages. Type this code on it: five three eight, one zero two. If nobody asked, press UP.")))
        box.sim.advance(to: Self.t0 + QuestMachine.pairingShownNanos - milli)
        #expect(box.sim.state.pairing != nil, "not before 2 minutes")
        box.sim.advance(to: Self.t0 + QuestMachine.pairingShownNanos)
        #expect(box.sim.state.pairing == nil && box.phase == "idle")
        guard case .idle? = box.lastScreen else { Issue.record("no idle screen after the code"); return }
        box.tap(.lock, at: Self.t0 + QuestMachine.pairingShownNanos + 2 * second)
        #expect(box.phase == "idle", "GAME-8: the code went by itself; a LOCK 2 s later was meant for it")
        #expect(box.persisted.isEmpty, "a code stores nothing")
    }

    @Test("PRIV-1: UP, DOWN or STOP take the code away and do nothing else; LOCK takes it away and plays")
    func anyButtonTakesItAway() {
        for role in [ButtonRole.up, .down, .stop] {
            var box = Box()
            Self.ask(&box, at: Self.t0)
            let selectedBefore = box.sim.state.phase
            box.tap(role, at: Self.t0 + second)
            #expect(box.sim.state.pairing == nil, "\(role)")
            #expect(box.sim.state.phase == selectedBefore, "\(role) only takes the code away")
            #expect(box.sim.allEffects.contains(.cancelTimer(.pairingLimit)))
        }
        var box = Box()
        Self.ask(&box, at: Self.t0)
        box.tap(.lock, at: Self.t0 + second)
        #expect(box.sim.state.pairing == nil && box.phase == "estimating", "LOCK always plays")
    }

    @Test("PRIV-1: the phone typed the code: the box says so and goes back to its quests")
    func paired() {
        var box = Box()
        Self.ask(&box, at: Self.t0)
        let effects = box.sim.send(.pairing(.paired(id: "phone-1"), atNanos: Self.t0 + 20 * second), at: Self.t0 + 20 * second)
        #expect(box.sim.state.pairing == nil)
        #expect(effects.contains(.buzzer(.celebration)) && effects.contains(.cancelTimer(.pairingLimit)))
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("no idle screen"); return }
        #expect(idle.notice == ScreenPhrases.phonePaired)
        // Another phone's word, or a late one, changes nothing.
        let late = box.sim.send(.pairing(.paired(id: "phone-1"), atNanos: Self.t0 + 21 * second), at: Self.t0 + 21 * second)
        #expect(!late.contains(.buzzer(.celebration)))
    }

    @Test("PRIV-1: one phone at a time; never during a quest, a button check or a parent's claim; a malformed code is refused")
    func refused() {
        var box = Box()
        Self.ask(&box, at: Self.t0)
        Self.ask(&box, "phone-2", code: "111111", at: Self.t0 + second)
        #expect(box.sim.state.pairing?.id == "phone-1" && box.lastScreen == .pairing(PairingScreen(code: "538102")), "the first keeps the box")
        Self.ask(&box, "phone-1", code: "999999", at: Self.t0 + 2 * second)
        #expect(box.sim.state.pairing?.code == "538102", "asked again, it stands as it is")

        var playing = Box()
        playing.tap(.lock, at: Self.t0)
        Self.ask(&playing, at: Self.t0 + second)
        #expect(playing.sim.state.pairing == nil && playing.phase == "estimating")

        var checking = Box()
        _ = checking.sim.send(.buttonCheck(on: true, atNanos: Self.t0), at: Self.t0)
        Self.ask(&checking, at: Self.t0 + second)
        #expect(checking.sim.state.pairing == nil)

        var claimed = Box()
        _ = claimed.sim.send(.claim(.start(id: "c1", reset: false, match: "471"), atNanos: Self.t0), at: Self.t0)
        Self.ask(&claimed, at: Self.t0 + second)
        #expect(claimed.sim.state.pairing == nil && claimed.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "471")))

        for bad in ["53810", "5381022", "53810a", "５３８１０２", ""] {
            var box = Box()
            Self.ask(&box, code: bad, at: Self.t0)
            #expect(box.sim.state.pairing == nil, "\(bad)")
        }
    }

    @Test("PRIV-1: a parent's claim that comes while a code shows waits for it, then asks; a button check takes the code away")
    func claimWaits() {
        var box = Box()
        Self.ask(&box, at: Self.t0)
        _ = box.sim.send(.claim(.start(id: "c1", reset: false, match: "471"), atNanos: Self.t0 + second), at: Self.t0 + second)
        #expect(box.lastScreen == .pairing(PairingScreen(code: "538102")), "the code stays")
        #expect(box.sim.state.claim?.shownAt == nil, "the claim waits")
        box.tap(.up, at: Self.t0 + 3 * second)
        #expect(box.sim.state.pairing == nil)
        #expect(box.lastScreen == .claim(ClaimScreen(reset: false, holding: false, match: "471")), "then the claim asks")

        var checked = Box()
        Self.ask(&checked, at: Self.t0)
        _ = checked.sim.send(.buttonCheck(on: true, atNanos: Self.t0 + second), at: Self.t0 + second)
        #expect(checked.sim.state.pairing == nil)
        _ = checked.sim.send(.buttonCheck(on: false, atNanos: Self.t0 + 2 * second), at: Self.t0 + 2 * second)
        guard case .idle? = checked.lastScreen else { Issue.record("the code came back after the check"); return }
    }

    @Test("PRIV-1: taken back by the asker (five wrong codes on the phone), the code goes at once")
    func cancelled() {
        var box = Box()
        Self.ask(&box, at: Self.t0)
        _ = box.sim.send(.pairing(.cancel(id: "phone-2"), atNanos: Self.t0 + second), at: Self.t0 + second)
        #expect(box.sim.state.pairing != nil, "another name takes nothing back")
        _ = box.sim.send(.pairing(.cancel(id: "phone-1"), atNanos: Self.t0 + 2 * second), at: Self.t0 + 2 * second)
        #expect(box.sim.state.pairing == nil)
        guard case .idle? = box.lastScreen else { Issue.record("no idle screen"); return }
    }
}
