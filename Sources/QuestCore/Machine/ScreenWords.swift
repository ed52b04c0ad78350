/// The words of every screen, shared by every surface (SPEC §2): the OLED draws `top`,
/// `big` and the first rows of `lines` + `hint`; the terminal, the kiosk page and the logs
/// show them all in that order, with `more` (what only a larger surface has room for)
/// before the hint. Written for a 13-year-old on a 21-character line: durations always as
/// a clock (2:30), the guess's error said of the guess ("0:11 short"), level progress
/// within the level, and the button to press wherever a choice is waiting.
public struct ScreenWords: Equatable, Sendable {
    /// What the screen is about: at most two short lines.
    public var top: [String]
    /// The one thing in big type: the estimate, the rating, the XP.
    public var big: String?
    /// What it means, most important first.
    public var lines: [String]
    /// The day's quests as text lines (two or more), the chosen one marked: a surface with
    /// room draws them as lines; the kiosk draws the quests themselves instead.
    public var questList: [String]
    /// Lines only a larger surface shows (the feedback sentence, the learning count).
    public var more: [String]
    /// Which button does what, where a choice waits.
    public var hint: String?
    /// The OLED's own `lines` where a line is a sentence too long for its 21 characters
    /// (the reveal's pattern): the same facts, shorter.
    public var glassLines: [String]?

    public init(
        top: [String], big: String?, lines: [String], questList: [String] = [], more: [String] = [], hint: String?,
        glassLines: [String]? = nil
    ) {
        self.top = top
        self.big = big
        self.lines = lines
        self.questList = questList
        self.more = more
        self.hint = hint
        self.glassLines = glassLines
    }

    /// Every line, in reading order (terminal, kiosk, logs).
    public var all: [String] { top + (big.map { [$0] } ?? []) + lines + questList + more + (hint.map { [$0] } ?? []) }
}

/// Shared phrases (one wording wherever they appear).
public enum ScreenPhrases {
    public static let noQuests = "No quests today"
    public static let doneToday = "Done today ✓"
    public static let weekWaits = "Your week waits!"
    /// REM-1: the selected quest's reminder sounded.
    public static let reminder = "Reminder: time to go!"
    public static let howLong = "How long? Set a guess"
    public static let pickOrGo = "UP/DN pick · LOCK go"
    public static let start = "LOCK: start quest"
    public static let setGuess = "UP/DN set · LOCK go"
    public static let stopWhenDone = "STOP when done"
    public static let anyButton = "Any button: go on"
    /// GAME-4: a stop inside the guard after lock-in is ignored; this says it was seen.
    public static let justStarted = "Just started!"
    /// PAR-2: what the box asks while a claim waits, and what allows it; #47: the asking
    /// page's code is the big line, so the parent allows only her own claim.
    public static func claimAsks(reset: Bool) -> String { reset ? "Set a new parent PIN?" : "Set the parent PIN?" }
    public static let claimMatch = "Same code on phone?"
    public static let claimHow = "Hold STOP+DOWN 3 s"
    public static let claimHolding = "Keep holding 3 s"
    public static let claimHint = "UP: no · LOCK: play"
    public static let claimWhoMay = "Nobody asked? Press UP."
    /// The idle box's notice once a claim was allowed.
    public static let claimAllowed = "PIN allowed: set it on the page"
    /// PRIV-1: a phone's code (each within the OLED's 21 characters).
    public static let pairingAsks = "Pair a phone?"
    public static let pairingHow = "Type on the phone:"
    public static let pairingWhat = "It shows your pages"
    public static let pairingOnTheBox = "On the box"
    /// The idle box's notice once the phone typed its code.
    public static let phonePaired = "Phone paired"

    /// Progress within the level (0 % again after a level-up), "Lvl 2 · 40% to Lvl 3".
    public static func level(_ level: Int, progress: Double) -> String {
        let percent = progress.isFinite ? Int((min(max(progress, 0), 1) * 100).rounded(.down)) : 0
        return "Lvl \(level) · \(percent)% to Lvl \(level + 1)"
    }

    /// #32: the idle screen's STOP gesture (each fits one OLED row, 21 characters).
    public static func muteHelp(muted: Bool) -> String { muted ? "Hold STOP: sound on" : "Hold STOP: sound off" }
    public static let soundOff = "Sound off (hold STOP)"
    public static let soundOn = "Sound on"
    public static let muteLocked = "A parent locked sound"

    /// GAME-7: a paused quest picked up again, at the task where it stopped.
    public static func welcomeBack(taskNumber: Int, of taskCount: Int) -> String { "Welcome back · Task \(taskNumber)/\(taskCount)" }

    /// The refused press at the estimate's limit (the box's range, SPEC §2 steps).
    public static func shortestGuess(_ seconds: Int) -> String { "Shortest guess \(DurationText.clock(seconds: seconds))" }
    public static func longestGuess(_ seconds: Int) -> String { "Longest guess \(DurationText.clock(seconds: seconds))" }

    /// The reveal's big words (FEED-1): curiosity, never a verdict ("Way off" alone read as
    /// one, #32); each fits the OLED's 128 px at twice the size (10 characters). The LED's
    /// colour carries the rating itself.
    public static func ratingWords(_ rating: AccuracyRating) -> String {
        switch rating {
        case .spotOn: "Nailed it!"
        case .close: "Close!"
        case .off: "Curious!"
        case .wayOff: "Discovery!"
        }
    }

    /// FEED-1's kind line, short enough for one OLED row (21 characters); nil where the big
    /// words say it all.
    /// GAME-6: the task's pattern at the reveal in the OLED's 21 characters (the task's
    /// name is the row above): "Usually 1m longer".
    public static func pattern(_ bias: BiasInsight) -> String {
        let amount = DurationText.approximate(seconds: abs(bias.meanDifferenceSeconds))
        switch bias.direction {
        case .underestimates: return "Usually \(amount) longer"
        case .overestimates: return "Usually \(amount) less"
        case .balanced: return "Guesses land evenly"
        }
    }

    public static func kindLine(_ rating: AccuracyRating) -> String? {
        switch rating {
        case .spotOn: nil
        case .close: "Getting dialed in"
        case .off: "It felt different"
        case .wayOff: "Tricky one to feel"
        }
    }
}

extension Screen {
    public var words: ScreenWords {
        typealias P = ScreenPhrases
        switch self {
        case .idle(let s):
            let selected = s.selectedIndex.flatMap { s.quests.indices.contains($0) ? s.quests[$0] : nil } ?? s.quests.first
            var lines: [String] = []
            if let notice = s.notice { lines.append(notice) }
            if s.reflection != nil { lines.append(P.weekWaits) }
            if let selected, selected.playedToday { lines.append(P.doneToday) }
            if let selected, selected.reminded == true { lines.append(P.reminder) }
            var questList: [String] = []
            if s.quests.count > 1 {
                for (i, q) in s.quests.enumerated() {
                    let badge = q.badge.map { " [\($0)]" } ?? ""
                    questList.append("\(i == s.selectedIndex ? ">" : " ") \(q.name)\(badge)\(q.playedToday ? " ✓" : "")\(q.reminded == true ? " (reminder)" : "")")
                }
            }
            var more: [String] = s.reflection == nil ? [] : ["Your week in review comes with your first quest."]
            if s.calibrationSessionsLeft > 0 {
                more.append("Learning your timing: \(CountText.counted(s.calibrationSessionsLeft, "quest")) to go")
            }
            return ScreenWords(
                top: [P.level(s.level, progress: s.levelProgress), s.streakText],
                big: selected?.name ?? P.noQuests,
                lines: lines, questList: questList, more: more,
                hint: selected == nil ? nil : (s.quests.count > 1 ? P.pickOrGo : P.start))
        case .estimating(let s):
            return ScreenWords(
                top: [s.questName, "Task \(s.taskNumber)/\(s.taskCount): \(s.taskName)"],
                big: DurationText.clock(seconds: s.estimateSeconds),
                lines: [s.hint ?? P.howLong],
                hint: P.setGuess)
        case .active(let s):
            // GAME-2: the guess, never a clock, countdown or elapsed time.
            return ScreenWords(
                top: [s.questName, "Task \(s.taskNumber)/\(s.taskCount): \(s.taskName)"],
                big: "Go!",
                lines: [s.note ?? "Your guess: \(DurationText.clock(seconds: s.estimateSeconds))"],
                hint: P.stopWhenDone)
        case .reveal(let s):
            var xp = "+\(s.xpGained) XP"
            if s.isPersonalBest { xp += " · New best!" }
            // The kind line first, so the OLED's two rows keep it (#32), then the task's
            // pattern (GAME-6). The guess's error and the XP restate the top line and the
            // summary: a large surface lets them give way first (#48: the task and "Guess
            // 1:00, took 0:45" stay large on the kiosk).
            let kind = P.kindLine(s.rating).map { [$0] } ?? []
            let guess = ["Guess was \(s.feedback.detail)", xp]
            let pattern = s.isCalibration ? nil : s.pattern
            return ScreenWords(
                top: [s.taskName, "Guess \(DurationText.clock(measured: s.estimatedSeconds)), took \(DurationText.clock(measured: s.actualSeconds))"],
                big: s.isCalibration ? "Noted" : P.ratingWords(s.rating),
                lines: s.isCalibration ? ["Learning your timing"]
                    : kind + (pattern.map { [InsightEngine.biasText(name: s.taskName, bias: $0)] } ?? []),
                // FEED-1's full headline only where the big words and the kind line do not say
                // it already (a learning quest's reveal).
                more: s.isCalibration ? [xp, s.feedback.headline] : guess,
                hint: P.anyButton,
                glassLines: s.isCalibration ? ["Learning your timing", xp] : kind + (pattern.map { [P.pattern($0)] } ?? []) + guess)
        case .summary(let s):
            var lines = [s.streakMilestone.map { "\($0)-day streak!" } ?? s.streakText]
            if let best = s.personalBests.first {
                lines.append(s.personalBests.count == 1 ? "New best: \(best)" : "\(s.personalBests.count) new bests!")
            }
            lines.append(P.level(s.level, progress: s.levelProgress))
            var more = ["+\(s.sessionXP) XP · \(s.totalXP) XP in all"]
            if s.personalBests.count > 1 { more.append("New bests: " + s.personalBests.joined(separator: ", ")) }
            if s.calibrationSessionsLeft > 0 {
                more.append("Learning your timing: \(CountText.counted(s.calibrationSessionsLeft, "quest")) to go")
            }
            return ScreenWords(
                top: ["\(s.questName) done!"],
                big: s.leveledUp ? "Level \(s.level)!" : "+\(s.sessionXP) XP",
                lines: lines, more: more,
                hint: P.anyButton)
        case .reflection(let r):
            let days = "\(r.daysPlayedThisWeek)/\(r.totalDaysInWeek) days"
            let quests = CountText.counted(r.questsCompleted, "quest")
            return ScreenWords(
                // Within the OLED's 21 characters: "12 quests · 5/7 days", or (#48) with her
                // streak "5/7 days · streak 12", the quests then said below.
                top: ["Week \(r.weekDates)", r.streakWords.map { "\(days) · \($0)" } ?? "\(quests) · \(days)"],
                big: r.accuracyText ?? "Learning",
                lines: [r.accuracyText == nil ? "quests to learn" : r.bestEstimateTaskName.map { "Best: \($0)" } ?? "accuracy"],
                more: (r.streakWords == nil ? [] : ["\(quests) this week"]) + Array(r.summaryLines.dropFirst(2)),
                hint: P.anyButton)
        case .claim(let c):
            return ScreenWords(
                top: [P.claimAsks(reset: c.reset), P.claimMatch],
                big: c.spacedMatch,
                lines: [c.holding ? P.claimHolding : P.claimHow],
                more: [P.claimWhoMay],
                hint: P.claimHint)
        case .pairing(let p):
            // Off the box (`withoutSecrets`) the code is not known: the page says where it is.
            return ScreenWords(
                top: [P.pairingAsks, P.pairingHow],
                big: p.code.isEmpty ? P.pairingOnTheBox : p.spacedCode,
                lines: [P.pairingWhat],
                more: [P.claimWhoMay],
                hint: P.claimHint)
        case .intro(let s):
            return P.introWords(s)
        }
    }
}
