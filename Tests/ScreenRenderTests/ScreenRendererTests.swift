import Foundation
import Testing
@testable import QuestCore
@testable import ScreenRender

/// Each screen drawn on a 128×64 (and one on a 128×32) frame, compared pixel for pixel with
/// the committed picture in Frames/NAME.pbm (a text picture: any diff shows it, any viewer
/// opens it). After an intended change: QUESTBOX_WRITE_FRAMES=1 swift test --filter
/// ScreenRendererTests writes them again, then look at them (scripts/frames-png.py).
@Suite("The box's screen: every screen drawn for a 128×64 OLED (#14, SPEC §2, GAME-2)")
struct ScreenRendererTests {
    static let frames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Frames")

    static let estimating = ScreenSamples.estimating(seconds: 150)
    static let longName = Screen.estimating(EstimatingScreen(
        questName: "The Extremely Long Homework Session Quest", taskName: "Pack everything for the whole school day", taskNumber: 2,
        taskCount: 12, estimateSeconds: 3_725, hint: nil))
    static let otherScripts = Screen.estimating(EstimatingScreen(
        questName: "Morgen-Quest für Zoë", taskName: "歯磨き · Зубы 🦷", taskNumber: 1, taskCount: 2, estimateSeconds: 15, hint: nil))
    static let active = ScreenSamples.active
    static let reveal = ScreenSamples.reveal
    static let summary = ScreenSamples.summary
    static let idle = ScreenSamples.idle

    /// The screens with a word that only some moments have: HINT-1's hint (wrapped over the
    /// two rows below), a refused press at the estimate's floor and inside GAME-4's guard.
    static func estimating(hint: String) -> Screen {
        .estimating(EstimatingScreen(
            questName: "Morning Quest", taskName: "Tooth Time", taskNumber: 1, taskCount: 3, estimateSeconds: hint.hasPrefix("Shortest") ? 15 : 150,
            hint: hint))
    }
    static let justStarted = Screen.active(ActiveScreen(
        questName: "Morning Quest", taskName: "Tooth Time", taskNumber: 1, taskCount: 3, estimateSeconds: 150, note: ScreenPhrases.justStarted))

    /// REM-1: the selected quest's reminder sounded.
    static let idleReminded: Screen = {
        guard case .idle(var idle) = ScreenSamples.idle else { return ScreenSamples.idle }
        idle.quests[0].reminded = true
        return .idle(idle)
    }()

    static let cases: [(name: String, screen: Screen, height: Int, notice: String?)] = [
        ("idle", idle, 64, nil), ("estimating", estimating, 64, nil), ("estimating-long-names", longName, 64, nil),
        ("estimating-other-scripts", otherScripts, 64, nil), ("active", active, 64, nil), ("reveal", reveal, 64, nil),
        ("summary", summary, 64, nil), ("estimating-128x32", estimating, 32, nil),
        ("estimating-step", ScreenSamples.estimating(seconds: 165), 64, nil),
        ("estimating-hint", estimating(hint: ContextualHint.text(recentActuals: [120, 115, 130, 125, 118], enabled: true) ?? ""), 64, nil),
        ("estimating-floor", estimating(hint: ScreenPhrases.shortestGuess(15)), 64, nil),
        ("active-just-started", justStarted, 64, nil),
        ("reveal-not-saved", reveal, 64, "Not saved yet: the box keeps this play and tries again"),
        // GAME-6: a task with a known pattern; its short line under the kind line.
        ("reveal-pattern", ScreenSamples.revealWithPattern, 64, nil),
        ("idle-reminder", idleReminded, 64, nil),
        // PAR-2: someone asks to set the parent PIN; the act being held, for a new PIN.
        ("claim", .claim(ClaimScreen(reset: false, holding: false, match: "471")), 64, nil),
        ("claim-reset-holding", .claim(ClaimScreen(reset: true, holding: true, match: "471")), 64, nil),
        // PRIV-1: a phone asks to show the player's pages; the box gives its code.
        ("pairing", .pairing(PairingScreen(code: "538102")), 64, nil),
        // GAME-9: before her first quest, how it works: the first and the last page.
        ("intro", .intro(IntroScreen(page: 1, learningQuests: 3)), 64, nil),
        ("intro-last", .intro(IntroScreen(page: 4, learningQuests: 3)), 64, nil),
    ]

    @Test("each screen is the committed picture, pixel for pixel", arguments: cases.indices)
    func committedPicture(_ index: Int) throws {
        let (name, screen, height, notice) = Self.cases[index]
        let frame = ScreenRenderer.render(screen, notice: notice, width: 128, height: height)
        let file = Self.frames.appendingPathComponent("\(name).pbm")
        if ProcessInfo.processInfo.environment["QUESTBOX_WRITE_FRAMES"] == "1" {
            try frame.pbm.write(to: file, atomically: true, encoding: .utf8)
        }
        let committed = try MonoFrame(pbm: String(contentsOf: file, encoding: .utf8))
        #expect(committed == frame, "\(name): \(Self.differences(committed, frame)) pixels differ; QUESTBOX_WRITE_FRAMES=1 redraws them")
    }

    @Test("#32 FEED-1 on the OLED: each rating's reveal keeps its kind line on the glass, and its big words are never a verdict", arguments: AccuracyRating.allCases)
    func revealIsKind(_ rating: AccuracyRating) {
        let result = TimeEstimationScorer.score(estimated: 150, actual: 240)
        let screen = Screen.reveal(RevealScreen(
            taskName: "Tooth Time", estimatedSeconds: 150, actualSeconds: 240, differenceSeconds: -90, accuracyPercent: result.accuracyPercent,
            rating: rating, feedback: FeedbackGenerator.feedback(for: result, isCalibration: false), xpGained: 10, isPersonalBest: false,
            isCalibration: false, isLastTask: false))
        let layout = ScreenRenderer.layout(screen)
        let shown = ScreenRenderer.rows(layout.bottom, count: 2, width: 128)
        if let kind = ScreenPhrases.kindLine(rating) { #expect(shown.first == kind, "\(shown)") }
        #expect(shown.contains("Guess was 1:30 short"))
        let big = layout.big ?? ""
        #expect(!["off", "way off", "wrong", "bad"].contains(big.lowercased()))
        #expect(TextLayout.width(of: big, scale: 2) <= 128, "\(big) fits twice the size")
        #expect(shown.allSatisfy { $0.count <= TextLayout.capacity(128, scale: 1) && !$0.hasSuffix("…") })
        #expect(!screen.words.more.contains { ScreenPhrases.kindLine(rating) == $0 }, "the kiosk does not say the kind line twice")
        // #48: on a large surface the error and the XP give way before the task and the guess.
        #expect(screen.words.more == ["Guess was 1:30 short", "+10 XP"])
    }

    @Test("the estimate is in big M:SS digits, and each up/down step changes only the digits")
    func estimateDigits() {
        let layout = ScreenRenderer.layout(Self.estimating)
        #expect(layout.big == "2:30")
        #expect(ScreenRenderer.layout(Self.longName).big == "1:02:05")
        guard case .estimating(var next) = Self.estimating else { Issue.record("the fixture is not an estimate screen"); return }
        next.estimateSeconds = 165
        let before = ScreenRenderer.render(Self.estimating), after = ScreenRenderer.render(.estimating(next))
        // Rows 20…40 hold the digits at 3×; nothing else moves.
        for y in 0..<64 where !(16...44).contains(y) {
            for x in 0..<128 { #expect(before[x, y] == after[x, y], "(\(x), \(y)) changed outside the digits") }
        }
        #expect(before != after)
    }

    @Test("GAME-2: the active screen shows no time that changes — the same picture whatever the elapsed time, no clock digits but the guess")
    func activeHasNoClock() {
        let layout = ScreenRenderer.layout(Self.active)
        #expect(layout.big == "Go!")
        let digits = (layout.top + layout.bottom).joined().filter(\.isNumber)
        // Only the task's number, the task count and the (fixed) guess 2:30.
        #expect(digits == "13" + "230")
    }

    @Test("a long name is cut with … and never drawn past the frame; other scripts draw boxes, no crash")
    func longAndForeignNames() {
        let layout = ScreenRenderer.layout(Self.longName)
        #expect(layout.top[0].count > 21)
        let frame = ScreenRenderer.render(Self.longName)
        #expect(frame.litCount > 0)
        let hostile = Screen.estimating(EstimatingScreen(
            questName: String(repeating: "🦖", count: 10_000), taskName: "\u{7}\u{0}\u{202E}", taskNumber: Int.max, taskCount: Int.min,
            estimateSeconds: Int.max, hint: String(repeating: "é", count: 5_000)))
        #expect(ScreenRenderer.render(hostile).litCount > 0)
        let reveal = Screen.reveal(RevealScreen(
            taskName: "", estimatedSeconds: .nan, actualSeconds: .infinity, differenceSeconds: 0, accuracyPercent: 0, rating: .wayOff,
            feedback: Feedback(headline: "", detail: ""), xpGained: 0, isPersonalBest: false, isCalibration: true, isLastTask: true))
        #expect(ScreenRenderer.layout(reveal).top[1] == "Guess ?, took ?")
    }

    @Test("#14 the rows below: whole lines while they fit, a long one wrapped at a space, the last row cut with …; a notice comes first")
    func rowsBelow() {
        #expect(ScreenRenderer.rows(["How long? Set a guess", "UP/DN set · LOCK go"], count: 2, width: 128) == ["How long? Set a guess", "UP/DN set · LOCK go"])
        #expect(ScreenRenderer.rows(["Last 5 times this took about 2:00", "UP/DN set · LOCK go"], count: 2, width: 128)
            == ["Last 5 times this", "took about 2:00"])
        #expect(ScreenRenderer.rows(["Not saved yet: the box keeps this play and tries again"], count: 2, width: 128)
            == ["Not saved yet: the", "box keeps this play…"])
        #expect(ScreenRenderer.rows(["Averyveryverylongwordwithoutanyspaces!!", "x"], count: 2, width: 128)
            == ["Averyveryverylongword", "withoutanyspaces!!"])
        #expect(ScreenRenderer.rows(["a", "b", "c"], count: 1, width: 128) == ["a"])
        #expect(ScreenRenderer.rows([""], count: 2, width: 128) == [])
        #expect(ScreenRenderer.rows(["   "], count: 2, width: 0).count <= 2)
        let notice = "Not saved yet: the box keeps this play and tries again"
        #expect(ScreenRenderer.layout(ScreenSamples.reveal, notice: notice).bottom.first == notice)
        #expect(ScreenRenderer.render(ScreenSamples.reveal, notice: notice) != ScreenRenderer.render(ScreenSamples.reveal))
    }

    static func differences(_ a: MonoFrame, _ b: MonoFrame) -> Int {
        guard a.width == b.width, a.height == b.height else { return max(a.pixels.count, b.pixels.count) }
        return zip(a.pixels, b.pixels).filter { $0 != $1 }.count
    }
}
