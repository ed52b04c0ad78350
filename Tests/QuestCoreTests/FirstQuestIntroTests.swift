import Foundation
import Testing
@testable import QuestCore

/// GAME-9 (#48, seed 001's onboarding): before her first quest a fresh box says what the
/// guess, the lock, the task and the reveal are, and why the first quests are learning, in
/// four short pages: LOCK or DOWN on, UP back, STOP skips to the quest. Never once a quest of
/// hers is completed or waits paused, and never when a parent turned it off.
@Suite("GAME-9: her first quest explains itself")
struct FirstQuestIntroTests {
    static let t0 = 1_000 * second

    static func freshBox(intro: Bool = true, sessionsCompleted: Int = 0) -> Box {
        var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(sessionsCompleted: sessionsCompleted), calendar: Box.cal, bootID: "boot-1")
        world.settings.firstQuestIntro = intro
        return Box(world: world)
    }

    static func sessionsStarted(_ box: Box) -> Int { box.persisted.filter { if case .sessionStarted = $0 { true } else { false } }.count }

    static func page(_ box: Box) -> Int? {
        guard case .intro(let s)? = box.lastScreen else { return nil }
        return s.page
    }

    @Test("GAME-9: LOCK on a fresh box shows how it works, a page a press (DOWN on, UP back); the last page's LOCK starts her first quest, a learning one")
    func pages() {
        var box = Self.freshBox()
        var t = Self.t0
        box.tap(.lock, at: t)
        #expect(box.phase == "intro" && Self.page(box) == 1)
        #expect(Self.sessionsStarted(box) == 0, "no quest starts while the box explains")
        #expect(box.lastLED == .estimating)
        t += second; box.tap(.lock, at: t)
        #expect(Self.page(box) == 2)
        t += second; box.tap(.down, at: t)
        #expect(Self.page(box) == 3)
        t += second; box.tap(.up, at: t)
        #expect(Self.page(box) == 2, "UP goes back a page")
        t += second; box.tap(.up, at: t)
        t += second; box.tap(.up, at: t)
        #expect(Self.page(box) == 1, "UP on the first page stays there")
        for expected in 2...IntroScreen.pageCount {
            t += second; box.tap(.lock, at: t)
            #expect(Self.page(box) == expected)
        }
        #expect(box.phase == "intro")
        t += second; box.tap(.lock, at: t)
        #expect(box.phase == "estimating" && Self.sessionsStarted(box) == 1)
        guard case .estimating(let e)? = box.lastScreen else { Issue.record("no guess screen"); return }
        #expect(e.taskName == "Tooth Time" && e.taskNumber == 1)
        let started = box.persisted.compactMap { if case .sessionStarted(let s) = $0 { s } else { nil } }
        #expect(started.first?.isCalibration == true)
        // The quest then plays as always: the next LOCK locks in.
        t += second; box.tap(.lock, at: t)
        #expect(box.phase == "active")
    }

    @Test("GAME-9: STOP on any page skips straight to her first quest", arguments: 1...IntroScreen.pageCount)
    func skip(onPage page: Int) {
        var box = Self.freshBox()
        var t = Self.t0
        box.tap(.lock, at: t)
        for _ in 1..<page { t += second; box.tap(.lock, at: t) }
        #expect(Self.page(box) == page)
        t += second; box.tap(.stop, at: t)
        #expect(box.phase == "estimating" && Self.sessionsStarted(box) == 1)
    }

    @Test("GAME-9: no intro once a quest is completed, nor when a parent turned it off")
    func notAgain() {
        var played = Self.freshBox(sessionsCompleted: 1)
        played.tap(.lock, at: Self.t0)
        #expect(played.phase == "estimating")
        var off = Self.freshBox(intro: false)
        off.tap(.lock, at: Self.t0)
        #expect(off.phase == "estimating")
    }

    @Test("GAME-9: a first quest skipped into, then paused by walking away, is picked up with no intro")
    func pausedFirstQuest() {
        var box = Self.freshBox()
        var t = Self.t0
        box.tap(.lock, at: t)
        t += second; box.tap(.stop, at: t)
        t += second; box.tap(.lock, at: t)
        t += 60 * second; box.tap(.stop, at: t)
        t += second; box.tap(.lock, at: t)  // the reveal: on to task 2's guess
        #expect(box.phase == "estimating")
        t += GameRules.standard.walkAwayPauseMs * milli + second
        box.sim.advance(to: t)
        #expect(box.phase == "idle")
        // The shell gives the machine the paused quest as the store has it.
        var world = box.sim.state.world
        let session = box.persisted.compactMap { if case .sessionPaused(let s) = $0 { s } else { nil } }.last
        guard let session else { Issue.record("the quest did not pause"); return }
        world.pausedQuests = [PausedQuest(session: session, estimations: box.estimations)]
        t += second
        _ = box.sim.send(.worldUpdated(world, atNanos: t), at: t)
        t += 5 * second; box.tap(.lock, at: t)
        #expect(box.phase == "estimating")
        guard case .estimating(let e)? = box.lastScreen else { Issue.record("no guess screen"); return }
        #expect(e.taskNumber == 2 && e.hint == ScreenPhrases.welcomeBack(taskNumber: 2, of: 3))
    }

    @Test("GAME-9: left alone for 2 minutes the intro steps aside to the quest list; a LOCK within 3 s does nothing (GAME-8), the next shows page 1 again")
    func leftAlone() {
        var box = Self.freshBox()
        box.tap(.lock, at: Self.t0)
        box.tap(.lock, at: Self.t0 + second)
        #expect(Self.page(box) == 2)
        let back = Self.t0 + second + GameRules.standard.introTimeoutMs * milli
        box.sim.advance(to: back - milli)
        #expect(box.phase == "intro", "a press reschedules the 2 minutes")
        box.sim.advance(to: back)
        #expect(box.phase == "idle")
        box.tap(.lock, at: back + 2 * second)
        #expect(box.phase == "idle")
        box.tap(.lock, at: back + 3 * second + milli)
        #expect(box.phase == "intro" && Self.page(box) == 1 && Self.sessionsStarted(box) == 0)
    }

    @Test("GAME-9: every page fits the OLED (21 characters a line, 10 in big type), ends with its buttons, and is said by the voice; the last names the learning quests from the rules")
    func words() {
        for page in 1...IntroScreen.pageCount {
            let screen = Screen.intro(IntroScreen(page: page, learningQuests: GameRules.standard.calibrationSessions))
            let w = screen.words
            for line in w.top + w.lines + [w.hint ?? ""] { #expect(line.count <= 21, "\(line)") }
            #expect((w.big ?? "").count <= 10 && !(w.big ?? "").isEmpty)
            #expect(w.top.first == "How it works \(page)/\(IntroScreen.pageCount)")
            #expect(w.hint == (page == IntroScreen.pageCount ? ScreenPhrases.start : ScreenPhrases.introNext))
            #expect((screen.spoken ?? "").count > 20)
        }
        let last = Screen.intro(IntroScreen(page: IntroScreen.pageCount, learningQuests: 3))
        #expect(last.words.lines == ["Quests 1-3: learning"])
        #expect(last.spoken?.contains("first three quests are learning quests") == true)
        let none = Screen.intro(IntroScreen(page: IntroScreen.pageCount, learningQuests: 0)).words
        #expect(none.lines == ["Every guess scores"] && none.more.isEmpty)
        #expect(Screen.intro(IntroScreen(page: 1, learningQuests: 3)).kind == "intro")
    }
}
