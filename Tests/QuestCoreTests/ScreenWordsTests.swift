import Foundation
import Testing
@testable import QuestCore

/// #14's words: one set for every surface, read by a teen on a 21-character line.
@Suite("#14 the screens' shared words: one duration format, the guess's error said of the guess, progress within the level, button hints, refused presses seen")
struct ScreenWordsTests {

    @Test("every screen says durations as a clock (2:30), never 2m 30s or 150s")
    func oneDurationFormat() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.down, at: 2 * second)
        box.tap(.lock, at: 3 * second)
        box.tap(.stop, at: 3 * second + 125 * second + 300 * milli)
        box.sim.advance(to: 200 * second)
        let screens = box.sim.allEffects.compactMap { if case .display(let s) = $0 { s } else { nil } } + ScreenSamples.tour.map(\.screen)
        #expect(screens.count > 6)
        for screen in screens {
            for line in screen.textLines {
                #expect(line.firstMatch(of: #/\b\d+\s?(m|s|h|min|sec)\b/#) == nil, "\(screen.kind): \(line)")
            }
        }
        guard case .reveal(let reveal)? = screens.first(where: { $0.kind == "reveal" }) else { Issue.record("no reveal"); return }
        // Guessed 1:45 (2:00 one step down), took 2:05.3: the guess was 0:20 short.
        #expect(reveal.feedback.detail == "0:20 short")
        #expect(Screen.reveal(reveal).words.top == ["Tooth Time", "Guess 1:45, took 2:05"])
        #expect(Screen.reveal(reveal).words.all.contains("Guess was 0:20 short"))
        #expect(Screen.reveal(reveal).words.glassLines?.contains("Guess was 0:20 short") == true, "the OLED's rows say it")
    }

    @Test("the error is said of the guess: short when the guess was under the time taken, long when over")
    func errorOfTheGuess() {
        #expect(FeedbackGenerator.feedback(for: TimeEstimationScorer.score(estimated: 15, actual: 16), isCalibration: false).detail == "0:01 short")
        #expect(FeedbackGenerator.feedback(for: TimeEstimationScorer.score(estimated: 90, actual: 60), isCalibration: false).detail == "0:30 long")
        #expect(FeedbackGenerator.feedback(for: TimeEstimationScorer.score(estimated: 60, actual: 60.2), isCalibration: false).detail == "exactly right")
    }

    @Test("level progress is within the level: 0% again right after a level-up, never total XP over the next threshold")
    func progressWithinLevel() {
        let level2 = LevelCalculator.xpRequired(forLevel: 2), level3 = LevelCalculator.xpRequired(forLevel: 3)
        func text(_ xp: Int) -> String {
            ScreenPhrases.level(LevelCalculator.level(fromTotalXP: xp), progress: LevelCalculator.progressToNextLevel(totalXP: xp))
        }
        #expect(text(level2) == "Lvl 2 · 0% to Lvl 3")
        #expect(text(level2 + (level3 - level2 + 1) / 2) == "Lvl 2 · 50% to Lvl 3")
        #expect(text(level3 - 1) == "Lvl 2 · 99% to Lvl 3")
        #expect(text(0) == "Lvl 0 · 0% to Lvl 1")
        #expect(ScreenPhrases.level(1, progress: .nan) == "Lvl 1 · 0% to Lvl 2")
        guard case .summary(let s) = ScreenSamples.summary else { Issue.record("ScreenSamples.summary is not a summary"); return }
        #expect(Screen.summary(s).words.lines.contains("Lvl 2 · 8% to Lvl 3"))
    }

    @Test("where a choice waits the screen names the buttons: idle (one quest or several), estimating, active; reveal, summary and the week go on with any button")
    func buttonHints() {
        guard case .idle(var idle) = ScreenSamples.idle else { Issue.record("ScreenSamples.idle is not an idle screen"); return }
        #expect(Screen.idle(idle).words.hint == "UP/DN pick · LOCK go")
        idle.quests = Array(idle.quests.prefix(1))
        #expect(Screen.idle(idle).words.hint == "LOCK: start quest")
        idle.quests = []
        #expect(Screen.idle(idle).words.hint == nil && Screen.idle(idle).words.big == "No quests today")
        #expect(ScreenSamples.estimating(seconds: 150).words.hint == "UP/DN set · LOCK go")
        #expect(ScreenSamples.active.words.hint == "STOP when done")
        for screen in [ScreenSamples.reveal, ScreenSamples.summary] { #expect(screen.words.hint == "Any button: go on") }
        // Each phrase fits the OLED's 21 characters.
        for phrase in [ScreenPhrases.pickOrGo, ScreenPhrases.start, ScreenPhrases.setGuess, ScreenPhrases.stopWhenDone, ScreenPhrases.anyButton,
                       ScreenPhrases.howLong, ScreenPhrases.justStarted, ScreenPhrases.shortestGuess(15), ScreenPhrases.longestGuess(10_800)] {
            #expect(phrase.count <= 21, "\(phrase)")
        }
    }

    @Test("a down press at the 0:15 floor (or up at the top) changes nothing but is seen: the screen says the limit, no tick")
    func refusedAtTheLimit() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        var t = 2 * second
        while case .estimating(_, _, let e) = box.sim.state.phase, e > 15 {
            box.tap(.down, at: t)
            t += 200 * milli
        }
        let ticks = box.sounds.filter { $0 == .estimateTick }.count
        let refused = box.tap(.down, at: t)
        #expect(box.sounds.filter { $0 == .estimateTick }.count == ticks, "no tick for a refused press")
        #expect(refused.contains(.display(.estimating(EstimatingScreen(
            questName: "Morning Quest", taskName: "Tooth Time", taskNumber: 1, taskCount: 3, estimateSeconds: 15, hint: "Shortest guess 0:15")))))
        // The next step up is an ordinary step, and the hint goes.
        box.tap(.up, at: t + second)
        guard case .estimating(let up)? = box.lastScreen else { Issue.record("not estimating"); return }
        #expect(up.estimateSeconds == 30 && up.hint == nil)

        // At the top: "Longest guess".
        var top = Box()
        top.tap(.lock, at: 1 * second)
        top.sim.press(.up, at: 2 * second)
        top.sim.advance(to: 120 * second)
        top.sim.release(.up, at: 120 * second)
        guard case .estimating(let atTop)? = top.lastScreen else { Issue.record("not estimating"); return }
        #expect(atTop.hint == "Longest guess \(DurationText.clock(seconds: GameRules.standard.maximumEstimateSeconds))")
    }

    @Test("a hold that reaches the floor says so once and stops repeating (no timer wakes the box for nothing)")
    func holdStopsAtTheLimit() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        let t = 2 * second
        box.sim.press(.down, at: t)
        box.sim.advance(to: t + 30 * second)
        guard case .estimating(let last)? = box.lastScreen else { Issue.record("not estimating"); return }
        #expect(last.estimateSeconds == 15 && last.hint == "Shortest guess 0:15")
        let fires = box.sim.log.filter { if case .timerFired(.holdRepeat(.down), _) = $0.event { true } else { false } }
        let stepsDown = box.sounds.filter { $0 == .estimateTick }.count
        #expect(fires.count == stepsDown, "one repeat past the last step, refused, then none: \(fires.count) fires, \(stepsDown) steps")
        #expect(box.sim.log.last.map { $0.atNanos < t + 10 * second } == true, "nothing after the floor was reached")
        box.sim.release(.down, at: t + 30 * second)
    }

    @Test("GAME-4: a stop inside the guard is ignored but seen: \"Just started!\" for 2 s, then the usual screen; no time shown (GAME-2)")
    func refusedStop() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        let lock = 2 * second
        box.tap(.lock, at: lock)
        guard case .active(let plain)? = box.lastScreen else { Issue.record("not active"); return }
        #expect(plain.note == nil)
        let refused = box.tap(.stop, at: lock + 1 * second)
        var noted = plain
        noted.note = "Just started!"
        #expect(refused.contains(.display(.active(noted))))
        #expect(refused.contains(.scheduleTimer(.noteTimeout, atNanos: lock + 3 * second)))
        #expect(!refused.contains { if case .playSound = $0 { true } else { false } })
        #expect(Screen.active(noted).textLines.allSatisfy { !$0.contains("0:0") && !$0.contains("0:01") })
        box.sim.advance(to: lock + 3 * second)
        #expect(box.lastScreen == .active(plain))
        box.tap(.stop, at: lock + 10 * second)
        #expect(box.phase == "revealing")
        #expect(box.estimations.first?.actualSeconds == 10)
    }
}
