import Foundation
import Testing
@testable import QuestCore

/// #35: when the box speaks, on the virtual clock: the task and guess at the offer, one
/// utterance after a run of steps, "Go!" and then silence until the stop (GAME-2), the
/// reveal's words after its sound, a step cutting the voice short, nothing when it is off.
@Suite("VOICE-1 (#35): the voice's schedule")
struct VoiceScheduleTests {
    /// (time, words) of every `.speak` so far.
    func spoken(_ box: Box) -> [(at: Int64, words: String)] {
        box.sim.log.flatMap { step in step.effects.compactMap { if case .speak(let w, _) = $0 { (step.atNanos, w) } else { nil } } }
    }

    func words(_ box: Box) -> [String] { spoken(box).map(\.words) }

    /// The `until` of every `.speak` so far: when words for a moment stop being worth saying.
    func untils(_ box: Box) -> [Int64?] {
        box.sim.allEffects.compactMap { if case .speak(_, let until) = $0 { until } else { nil } }
    }

    func cuts(_ box: Box) -> Int { box.sim.allEffects.filter { $0 == .cutSpeech }.count }

    func estimate(_ box: Box) -> EstimatingScreen? {
        if case .estimating(let e)? = box.lastScreen { e } else { nil }
    }

    @Test("a task offered: its name and the guess, said once, as the screen shows them")
    func offer() {
        var box = Box(speaks: true)
        box.tap(.lock, at: 1 * second)
        guard let shown = estimate(box) else { Issue.record("no guess screen"); return }
        #expect(words(box) == ["Tooth Time. Your guess: two minutes."])
        #expect(words(box) == [VoicePhrases.offer(taskName: shown.taskName, estimateSeconds: shown.estimateSeconds)])
        #expect(spoken(box).first?.at == 1 * second, "said at the press that offered it")
        box.sim.advance(to: 5 * second)
        #expect(words(box).count == 1, "never again while it shows")
    }

    @Test("a run of steps: the voice stops at the first step and says the guess once, 600 ms after the last")
    func runOfSteps() {
        var box = Box(speaks: true)
        box.tap(.lock, at: 1 * second)
        let steps: [Int64] = [2_000, 2_250, 2_500, 2_750].map { $0 * milli }
        for t in steps { box.tap(.up, at: t) }
        #expect(words(box).count == 1, "nothing said while stepping")
        #expect(cuts(box) == steps.count, "each step cuts the voice short")
        box.sim.advance(to: steps.last! + 599 * milli)
        #expect(words(box).count == 1, "not before 600 ms")
        box.sim.advance(to: steps.last! + 601 * milli)
        guard let shown = estimate(box) else { Issue.record("no guess screen"); return }
        #expect(shown.estimateSeconds == 240, "2:00 and four steps of 30 s")
        #expect(words(box).last == "Your guess: four minutes.")
        #expect(spoken(box).last?.at == steps.last! + VoiceSchedule.settleMs * milli)
        box.sim.advance(to: 20 * second)
        #expect(words(box).count == 2, "said once")
    }

    @Test("a step after the guess was said cuts it, and the new guess follows")
    func stepAfterSaid() {
        var box = Box(speaks: true)
        box.tap(.lock, at: 1 * second)
        box.tap(.down, at: 2 * second)
        box.sim.advance(to: 3 * second)
        #expect(words(box).last == "Your guess: one minute forty-five.")
        let cutsBefore = cuts(box)
        box.tap(.down, at: 3500 * milli)
        #expect(cuts(box) == cutsBefore + 1)
        box.sim.advance(to: 5 * second)
        #expect(words(box).last == "Your guess: one minute thirty.")
    }

    @Test("lock-in says Go! and then nothing at all until the stop, not even a guess that waited (GAME-2)")
    func silenceWhileActive() {
        var box = Box(speaks: true)
        box.tap(.lock, at: 1 * second)
        box.tap(.up, at: 2 * second)
        let lock = 2_300 * milli  // before the guess settled: it is never said
        box.tap(.lock, at: lock)
        #expect(words(box).last == "Go!")
        // Said within a second of the press or not at all: later it would be words while
        // the task runs (a voice still starting at boot held one 2.3 s in the HIL rig).
        #expect(untils(box).last == lock + VoiceSchedule.goMomentMs * milli)
        #expect(untils(box).dropLast().allSatisfy { $0 == nil }, "the offer's words have no moment to miss")
        let saidAtLock = words(box).count
        // A stop inside GAME-4's guard is refused ("Just started!"), the note goes: no words.
        box.tap(.stop, at: lock + 500 * milli)
        box.sim.advance(to: lock + 40 * 60 * second)
        #expect(box.phase == "active")
        #expect(words(box).count == saidAtLock, "\(words(box))")
        #expect(!words(box).contains { $0.hasPrefix("Your guess") })
        box.tap(.stop, at: lock + 40 * 60 * second)
        #expect(box.phase == "revealing")
        #expect(words(box).count == saidAtLock + 1)
        #expect(untils(box).last == .some(nil), "the reveal's words wait for its sound, however long")
    }

    @Test("the reveal: its words for every rating, after its sound in the same step")
    func revealEveryRating() {
        var heard: [AccuracyRating: String] = [:]
        for actual in [121, 140, 200, 400] as [Int64] {
            var box = Box(speaks: true)
            box.tap(.lock, at: 1 * second)
            box.tap(.lock, at: 2 * second)
            let stop = 2 * second + actual * second
            let effects = box.tap(.stop, at: stop)
            guard case .reveal(let reveal)? = box.lastScreen else { Issue.record("no reveal for \(actual) s"); continue }
            let said = VoicePhrases.reveal(reveal)
            #expect(words(box).last == said)
            #expect(said.hasPrefix(ScreenPhrases.ratingWords(reveal.rating)))
            let soundAt = effects.firstIndex { if case .playSound = $0 { true } else { false } }
            let speakAt = effects.firstIndex(of: .speak(said))
            #expect(soundAt != nil && speakAt != nil && soundAt! < speakAt!, "the sound first, then the words")
            heard[reveal.rating] = said
        }
        #expect(Set(heard.keys) == Set(AccuracyRating.allCases), "\(heard.keys)")
        #expect(heard[.spotOn]?.contains("It took two minutes and one second.") == true, "\(heard[.spotOn] ?? "")")
    }

    @Test("the summary, with XP and level, once the quest is done")
    func summary() {
        var box = Box(speaks: true)
        var t = 1 * second
        box.tap(.lock, at: t)
        for _ in 0..<3 {
            t += 1 * second
            box.tap(.lock, at: t)
            t += 100 * second
            box.tap(.stop, at: t)
            t += 1 * second
            box.tap(.lock, at: t)  // past the reveal
        }
        guard case .summary(let s)? = box.lastScreen else { Issue.record("no summary: \(box.phase)"); return }
        #expect(words(box).last == VoicePhrases.summary(s))
        #expect(words(box).last?.hasPrefix("Morning Quest done! Plus ") == true)
    }

    @Test("voice off, or the sounds muted: nothing is said, cut or waited for")
    func off() {
        for muted in [false, true] {
            var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "boot-1")
            world.settings.soundMuted = muted
            var box = Box(world: world, speaks: muted)
            box.tap(.lock, at: 1 * second)
            box.tap(.up, at: 2 * second)
            box.sim.advance(to: 4 * second)
            box.tap(.lock, at: 5 * second)
            box.tap(.stop, at: 100 * second)
            let voiceEffects = box.sim.allEffects.filter {
                switch $0 {
                case .speak, .cutSpeech, .scheduleTimer(.voiceSettle, _): true
                default: false
                }
            }
            #expect(voiceEffects.isEmpty, "muted \(muted): \(voiceEffects)")
            #expect(box.phase == "revealing")
        }
    }

    @Test("a reminder says the quest's name (REM-1)")
    func reminder() {
        var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "boot-1")
        world.settings.reminderTime = ClockTime(hour: 7, minute: 30)!
        var box = Box(world: world, speaks: true)
        #expect(words(box).isEmpty, "the box says nothing when it starts")
        _ = box.sim.send(.wallClockTick(atNanos: 30 * 60 * second), at: 30 * 60 * second)
        #expect(words(box) == ["Time for Morning Quest."])
        _ = box.sim.send(.wallClockTick(atNanos: 31 * 60 * second), at: 31 * 60 * second)
        #expect(words(box).count == 1)
    }

    @Test("the selection moving on the quest list: the quest's name once the presses stop")
    func selection() {
        var evening = Box.morning
        evening.id = uuid(0xB00)
        evening.name = "evening"
        evening.displayName = "Evening Quest"
        evening.tasks = evening.tasks.map { var t = $0; t.id = UUID(); return t }
        let world = QuestWorld(routines: [Box.morning, evening], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "boot-1")
        var box = Box(world: world, speaks: true)
        box.tap(.down, at: 1 * second)
        #expect(words(box).isEmpty)
        box.sim.advance(to: 2 * second)
        #expect(words(box) == ["Evening Quest."])
    }
}
