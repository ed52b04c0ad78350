import Foundation
import Testing
@testable import QuestCore

/// #48: a notice that tells of a moment ("PIN allowed", "Phone paired", "Sound off") leaves
/// the quest list a minute later; until then a redraw keeps it, and a notice that stays true
/// ("Quest paused") is never taken away by it.
@Suite("#48: idle notices that told of a moment go after a minute")
struct NoticeExpiryTests {
    static let t0 = 1_000 * second

    static func notice(_ box: Box) -> String?? {
        guard case .idle(let idle)? = box.lastScreen else { return .none }
        return .some(idle.notice)
    }

    @Test("#48: \"Phone paired\" stays through a redraw for a minute, then the quest list has no notice")
    func phonePaired() {
        var box = Box()
        _ = box.sim.send(.pairing(.show(id: "p", code: "538102"), atNanos: Self.t0), at: Self.t0)
        let paired = Self.t0 + 20 * second
        _ = box.sim.send(.pairing(.paired(id: "p"), atNanos: paired), at: paired)
        #expect(Self.notice(box) == .some(ScreenPhrases.phonePaired))
        // The minute's wall-clock tick redraws the list: the notice stays.
        _ = box.sim.send(.wallClockTick(atNanos: paired + 30 * second), at: paired + 30 * second)
        #expect(Self.notice(box) == .some(ScreenPhrases.phonePaired))
        box.sim.advance(to: paired + QuestMachine.noticeShownNanos - milli)
        #expect(Self.notice(box) == .some(ScreenPhrases.phonePaired), "not before a minute")
        box.sim.advance(to: paired + QuestMachine.noticeShownNanos)
        #expect(Self.notice(box) == .some(nil), "the stale notice is gone")
        #expect(box.phase == "idle")
    }

    @Test("#48: \"PIN allowed\" goes a minute after the act")
    func claimAllowed() {
        var box = Box()
        _ = box.sim.send(.claim(.start(id: "c", reset: false, match: "471"), atNanos: Self.t0), at: Self.t0)
        ParentClaimTests.holdBoth(&box, at: Self.t0 + second)
        let confirmed = Self.t0 + second + 100 * milli + QuestMachine.claimHoldNanos
        box.sim.advance(to: confirmed)
        ParentClaimTests.releaseBoth(&box, at: confirmed + second)
        #expect(Self.notice(box) == .some(ScreenPhrases.claimAllowed))
        box.sim.advance(to: confirmed + QuestMachine.noticeShownNanos)
        #expect(Self.notice(box) == .some(nil))
    }

    @Test("#48: the sound switch's notice goes a minute after the last switch, not after the first")
    func soundSwitched() {
        var box = Box()
        box.tap(.stop, at: Self.t0, hold: 3_100 * milli)
        #expect(Self.notice(box) == .some(ScreenPhrases.soundOff))
        let second2 = Self.t0 + 30 * second
        box.tap(.stop, at: second2, hold: 3_100 * milli)
        #expect(Self.notice(box) == .some(ScreenPhrases.soundOn))
        box.sim.advance(to: Self.t0 + 3 * second + QuestMachine.noticeShownNanos + second)
        #expect(Self.notice(box) == .some(ScreenPhrases.soundOn), "the first switch's minute is over, the second's is not")
        box.sim.advance(to: second2 + 3 * second + QuestMachine.noticeShownNanos + second)
        #expect(Self.notice(box) == .some(nil))
    }

    @Test("#48: a notice that stays true (GAME-7's \"Quest paused\") outlives an earlier notice's minute")
    func pausedStays() {
        var box = Box()
        box.tap(.stop, at: Self.t0, hold: 3_100 * milli)
        #expect(Self.notice(box) == .some(ScreenPhrases.soundOff))
        box.tap(.lock, at: Self.t0 + 10 * second)
        #expect(box.phase == "estimating")
        // Left on the guess screen: the sound notice's minute passes mid-quest, then the pause.
        box.sim.advance(to: Self.t0 + 10 * second + GameRules.standard.walkAwayPauseMs * milli + second)
        #expect(Self.notice(box) == .some(QuestMachine.abandonedNotice), "\(String(describing: box.lastScreen))")
        box.sim.advance(to: Self.t0 + 60 * 60 * second)
        #expect(Self.notice(box) == .some(QuestMachine.abandonedNotice))
    }
}
