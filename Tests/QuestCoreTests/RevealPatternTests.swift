import Foundation
import Testing
@testable import QuestCore

/// GAME-6 with INS-1 (seed 003: patterns extend the accuracy reveal): once a task has five
/// non-calibration plays, its reveal adds the task's pattern, in the stats page's words, on
/// every surface and in the voice.
@Suite("GAME-6: the task's pattern at the reveal")
struct RevealPatternTests {
    static let t0 = 1_000 * second
    static let tooth = Box.tasks[0]

    /// A box whose Tooth Time was played `plays` times before, each 60 s longer than guessed
    /// (guess 2:00, took 3:00), plus three learning plays that must not count.
    static func box(plays: Int, sessionsCompleted: Int = 5, speaks: Bool = false) -> Box {
        var memory = TaskMemory()
        for _ in 0..<3 { memory.record(estimatedSeconds: 60, actualSeconds: 600, absDifference: 540, isCalibration: true) }
        for _ in 0..<plays { memory.record(estimatedSeconds: 120, actualSeconds: 180, absDifference: 60, isCalibration: false) }
        let world = QuestWorld(
            routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: sessionsCompleted),
            taskMemory: [tooth: memory], calendar: Box.cal, bootID: "boot-1")
        return Box(world: world, speaks: speaks)
    }

    /// Plays Tooth Time once more: guess as offered (the last guess, 2:00), took 3:00.
    static func reveal(_ box: inout Box) -> RevealScreen? {
        box.tap(.lock, at: t0)
        box.tap(.lock, at: t0 + second)
        box.tap(.stop, at: t0 + 181 * second)
        guard case .reveal(let r)? = box.lastScreen else { return nil }
        return r
    }

    @Test("GAME-6: the fifth play's reveal says the pattern; the fourth's does not (INS-1 needs 5, learning plays left out)")
    func fifthPlay() throws {
        var four = Self.box(plays: 3)
        let fourth = try #require(Self.reveal(&four))
        #expect(fourth.pattern == nil)
        #expect(!Screen.reveal(fourth).words.all.contains { $0.contains("usually") })
        #expect(Screen.reveal(fourth).words.glassLines == ["It felt different", "Guess was 1:00 short", "+25 XP"])

        var five = Self.box(plays: 4)
        let fifth = try #require(Self.reveal(&five))
        let pattern = try #require(fifth.pattern)
        #expect(pattern.direction == .underestimates && pattern.meanDifferenceSeconds == -60)
        #expect(Screen.reveal(fifth).words.lines == ["It felt different", "Tooth Time usually takes 1m longer than you think"])
        #expect(Screen.reveal(fifth).words.more == ["Guess was 1:00 short", "+25 XP"])
        // The OLED: the kind line and the pattern in its two rows, within 21 characters.
        #expect(Screen.reveal(fifth).words.glassLines == ["It felt different", "Usually 1m longer", "Guess was 1:00 short", "+25 XP"])
    }

    @Test("GAME-6: the reveal's line is the stats page's first pattern for the task, over the same plays")
    func sameWordsAsTheStatsPage() throws {
        var box = Self.box(plays: 6)
        let reveal = try #require(Self.reveal(&box))
        let day = at(2026, 6, 1, 7, 0, Box.cal)
        var history = (0..<3).map { snap("Tooth Time", est: 60, act: 600, on: day.addingTimeInterval(Double($0) * 86_400), calibration: true, taskID: Self.tooth) }
        history += (3..<9).map { snap("Tooth Time", est: 120, act: 180, on: day.addingTimeInterval(Double($0) * 86_400), taskID: Self.tooth) }
        history += box.estimations.map { $0.snapshot }
        let insight = try #require(InsightEngine.generateInsights(snapshots: history, calendar: Box.cal).first)
        #expect(insight.estimationCount == 7)
        #expect(reveal.pattern == insight.bias)
        #expect(Screen.reveal(reveal).words.lines.contains(insight.texts[0]))
    }

    @Test("GAME-6: each bias reads as its own line; the OLED's stays within 21 characters at the longest amounts")
    func directions() {
        func line(_ difference: Double, actual: Double = 600) -> (String, String) {
            let bias = InsightEngine.bias(meanDifference: difference, meanActual: actual)
            return (InsightEngine.biasText(name: "Pack Bag", bias: bias), ScreenPhrases.pattern(bias))
        }
        #expect(line(-95) == ("Pack Bag usually takes 1m 35s longer than you think", "Usually 1m 35s longer"))
        #expect(line(40, actual: 200) == ("Pack Bag usually takes 40s less than you think", "Usually 40s less"))
        #expect(line(20) == ("Your Pack Bag estimates land on both sides about evenly", "Guesses land evenly"))
        for difference in [-10_740.0, -7_170, -115, -119, 10_740, 119] {
            #expect(line(difference, actual: 10).1.count <= 21, "\(line(difference, actual: 10).1)")
        }
    }

    @Test("GAME-6: a learning quest's reveal says no pattern, whatever the history")
    func learningQuest() throws {
        var box = Self.box(plays: 8, sessionsCompleted: 0)
        let reveal = try #require(Self.reveal(&box))
        #expect(reveal.isCalibration && reveal.pattern == nil)
        #expect(!Screen.reveal(reveal).words.lines.contains { $0.contains("usually") })
    }

    @Test("GAME-6: the voice says the pattern after the reveal's own words, the amount as people say it")
    func spoken() throws {
        var box = Self.box(plays: 4, speaks: true)
        _ = try #require(Self.reveal(&box))
        let said = box.sim.allEffects.compactMap { if case .speak(let words, _) = $0 { words } else { nil } }
        #expect(said.last == "Curious! It felt different. It took three minutes. Your guess was one minute short."
            + " Tooth Time usually takes about one minute longer than you think.", "\(said)")
    }
}
