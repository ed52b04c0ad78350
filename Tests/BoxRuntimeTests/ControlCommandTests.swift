import BoxProtocol
@testable import BoxRuntime
import Foundation
import QuestCore
import Testing

@Suite("The socket's commands, decided")
struct ControlCommandTests {
    static let idle = QuestPhase.idle(selectedRoutineID: nil, notice: nil)
    static let busy = QuestPhase.summary

    func decide(_ request: BoxRequest, phase: QuestPhase = idle, allowPress: Bool = true) -> Result<ControlCommand, ControlRefusal> {
        ControlCommand.decide(request, phase: phase, allowPress: allowPress)
    }

    func refusal(_ result: Result<ControlCommand, ControlRefusal>) -> String? {
        if case .failure(let r) = result { return r.message }
        return nil
    }

    @Test("state, subscribe and reload are always taken; an unknown command is named")
    func plain() throws {
        #expect(try decide(BoxRequest(command: "state")).get() == .state)
        #expect(try decide(BoxRequest(command: "subscribe"), phase: Self.busy).get() == .state)
        #expect(try decide(BoxRequest(command: "reload"), phase: Self.busy).get() == .reload)
        #expect(refusal(decide(BoxRequest(command: "format-disk"))) == "command: unknown")
    }

    @Test("a wiring check names what it drives, only when idle; a wrong name says which field and the choices, escaped")
    func testOutput() throws {
        #expect(try decide(BoxRequest(command: "test-output", led: "green", sound: "lock_in")).get() == .testOutput(led: .green, buzzer: nil, sound: .lockIn))
        #expect(try decide(BoxRequest(command: "test-output", buzzer: "tap")).get() == .testOutput(led: nil, buzzer: .tap, sound: nil))
        #expect(refusal(decide(BoxRequest(command: "test-output"))) == "test-output: name an led, a buzzer pattern or a sound")
        #expect(refusal(decide(BoxRequest(command: "test-output", led: "green"), phase: Self.busy))?.hasPrefix("test-output: a quest is running (summary)") == true)
        let led = refusal(decide(BoxRequest(command: "test-output", led: "pink\u{1B}[2J")))
        #expect(led?.hasPrefix("led: \"pink\\u{1B}[2J\" is not a colour (") == true, "\(led ?? "")")
        #expect(refusal(decide(BoxRequest(command: "test-output", buzzer: "siren")))?.hasPrefix("buzzer: \"siren\" is not a pattern (tap, ") == true)
        #expect(refusal(decide(BoxRequest(command: "test-output", led: "red", sound: "boom")))?.hasPrefix("sound: \"boom\" is not a sound (") == true)
    }

    @Test("press: only where the board allows it; a tap by default; the role and action named when wrong")
    func press() throws {
        #expect(try decide(BoxRequest(command: "press", button: "lock")).get() == .press(.lock, .tap))
        #expect(try decide(BoxRequest(command: "press", button: "down", action: "down"), phase: Self.busy).get() == .press(.down, .down))
        #expect(refusal(decide(BoxRequest(command: "press", button: "lock"), allowPress: false))?.hasPrefix("press: this board's buttons are pressed by hand") == true)
        #expect(refusal(decide(BoxRequest(command: "press", button: "eject"))) == "button: \"eject\" is not one of lock, stop, up, down")
        #expect(refusal(decide(BoxRequest(command: "press", button: "up", action: "hold"))) == "action: \"hold\" is not one of down, up, tap")
    }

    @Test("#34 remind and mute (the house's button and switch): a reminder only between quests; mute takes on or off")
    func house() throws {
        #expect(try decide(BoxRequest(command: "remind")).get() == .house(.remindNow))
        #expect(refusal(decide(BoxRequest(command: "remind"), phase: Self.busy))?.hasPrefix("remind: a quest is running (summary)") == true)
        #expect(try decide(BoxRequest(command: "mute", action: "on"), phase: Self.busy).get() == .house(.sound(muted: true)))
        #expect(try decide(BoxRequest(command: "mute", action: "off")).get() == .house(.sound(muted: false)))
        #expect(refusal(decide(BoxRequest(command: "mute"))) == "action: \"\" is not one of on, off")
        #expect(refusal(decide(BoxRequest(command: "mute", action: "loud"))) == "action: \"loud\" is not one of on, off")
        // #48: a parent's lock is said to the asker, never dropped unseen.
        #expect(refusal(ControlCommand.decide(BoxRequest(command: "mute", action: "off"), phase: Self.idle, allowPress: false, locked: [.mute]))
            == "mute: a parent locked the sound switch")
        #expect(try ControlCommand.decide(BoxRequest(command: "mute", action: "off"), phase: Self.idle, allowPress: false, locked: [.hints]).get()
            == .house(.sound(muted: false)))
    }

    @Test("button check: starts only when idle, stops at any time")
    func buttonCheck() throws {
        #expect(try decide(BoxRequest(command: "button-check")).get() == .buttonCheck(start: true))
        #expect(refusal(decide(BoxRequest(command: "button-check"), phase: Self.busy))?.hasPrefix("button-check: a quest is running (summary)") == true)
        #expect(try decide(BoxRequest(command: "button-check", action: "stop"), phase: Self.busy).get() == .buttonCheck(start: false))
        #expect(refusal(decide(BoxRequest(command: "button-check", action: "pause"))) == "action: \"pause\" is not one of start, stop")
    }

    @Test("PAR-2 claim: a name of 1 to 64 letters, digits or dashes; start (with reset) or stop")
    func claim() throws {
        #expect(try decide(BoxRequest(command: "claim", claim: "a-1", reset: true, match: "047")).get() == .claim(id: "a-1", start: true, reset: true, match: "047"))
        #expect(try decide(BoxRequest(command: "claim", action: "stop", claim: "a-1", reset: true)).get() == .claim(id: "a-1", start: false, reset: false, match: ""))
        #expect(refusal(decide(BoxRequest(command: "claim", claim: "a-1", match: "47"))) == "claim: give the code the asking page shows (match), 3 digits")
        for bad in ["", String(repeating: "a", count: 65), "a b", "é", "a\u{0}"] {
            #expect(refusal(decide(BoxRequest(command: "claim", claim: bad))) == "claim: give the claim a name of 1 to 64 letters, digits or dashes", "\(bad.debugDescription)")
        }
        #expect(ControlCommand.isClaimName(String(repeating: "Z9-", count: 21) + "x"))
        #expect(refusal(decide(BoxRequest(command: "claim", action: "maybe", claim: "x"))) == "action: \"maybe\" is not one of start, stop")
    }

    @Test("PRIV-1 pair: a name and six digits to show; done and stop by name; only between quests")
    func pair() throws {
        #expect(try decide(BoxRequest(command: "pair", pair: "phone-1", code: "012345")).get() == .pairing(.show(id: "phone-1", code: "012345")))
        #expect(try decide(BoxRequest(command: "pair", action: "done", pair: "phone-1")).get() == .pairing(.paired(id: "phone-1")))
        #expect(try decide(BoxRequest(command: "pair", action: "stop", pair: "phone-1")).get() == .pairing(.cancel(id: "phone-1")))
        #expect(refusal(decide(BoxRequest(command: "pair", pair: "phone-1", code: "01234"))) == "pair: give the code the box shows (code), 6 digits")
        #expect(refusal(decide(BoxRequest(command: "pair", code: "012345"))) == "pair: give the phone a name of 1 to 64 letters, digits or dashes")
        #expect(refusal(decide(BoxRequest(command: "pair", action: "maybe", pair: "x"))) == "action: \"maybe\" is not one of show, done, stop")
    }

    @Test("holds: the button check ends with its last holder; a claim with the client that holds it")
    func holds() {
        var holds = SocketHolds()
        holds.holdButtonCheck(5)
        holds.holdButtonCheck(6)
        let oneLeft = holds.releaseButtonCheck([5])
        let noneLeft = holds.releaseButtonCheck([6, 9])
        #expect(!oneLeft && noneLeft)
        holds.holdButtonCheck(7)
        holds.buttonCheckEnded()
        #expect(holds.buttonCheck.isEmpty)
        holds.holdClaim("one", by: 5)
        holds.holdClaim("two", by: 6)  // a new claim ends the one before
        #expect(holds.claimHeld(byAnyOf: [5]) == nil)
        #expect(holds.claimHeld(byAnyOf: [4, 6]) == "two")
        holds.claimEnded("one")
        #expect(holds.claim?.id == "two")
        holds.claimEnded("two")
        #expect(holds.claim == nil)
    }
}
