/// GAME-9 (#48, seed 001's onboarding): before her first quest, a fresh box says what the
/// guess, the lock, the task and the reveal are, and why the first quests are "learning", in
/// a few short screens. LOCK or DOWN goes on, UP goes back, STOP skips to the quest.
public struct IntroScreen: Codable, Equatable, Sendable {
    /// 1-based, as the screen says it ("How it works 2/4").
    public var page: Int
    public var pageCount: Int
    /// The learning quests the box starts with (GameRules.calibrationSessions).
    public var learningQuests: Int

    public init(page: Int, pageCount: Int = IntroScreen.pageCount, learningQuests: Int) {
        self.page = page
        self.pageCount = pageCount
        self.learningQuests = learningQuests
    }

    public static let pageCount = 4
}

extension ScreenPhrases {
    /// Each line fits the OLED's 21 characters; the big word its 10 at twice the size.
    public static let introNext = "LOCK next · STOP skip"

    static func introWords(_ s: IntroScreen) -> ScreenWords {
        let title = "How it works \(s.page)/\(s.pageCount)"
        switch s.page {
        case 1:
            return ScreenWords(
                top: [title, "Before each task:"], big: "Guess", lines: ["how long it will take"],
                more: ["UP and DOWN change your guess."], hint: introNext)
        case 2:
            return ScreenWords(
                top: [title, "Happy with it? Press"], big: "LOCK", lines: ["No clock while you go"],
                more: ["The box hides the time, so you learn to feel how long things take."], hint: introNext)
        case 3:
            return ScreenWords(
                top: [title, "Do the task, then"], big: "STOP", lines: ["when it is done"],
                more: ["No rush: the box only wants to know how long it took."], hint: introNext)
        default:
            let learning = "Quests 1-\(s.learningQuests): learning"  // the OLED font has no en dash
            return ScreenWords(
                top: [title, "Then the box shows"], big: "How close?", lines: [s.learningQuests > 0 ? learning : "Every guess scores"],
                more: s.learningQuests > 0
                    ? ["Your first \(CountText.counted(s.learningQuests, "quest")) are learning: the box learns your pace, and no score counts yet."]
                    : [],
                hint: start)
        }
    }
}

extension VoicePhrases {
    /// The intro's page said (a box with no screen explains itself too).
    public static func intro(_ s: IntroScreen) -> String {
        switch s.page {
        case 1: return "How it works. Before each task, guess how long it will take. Up and down change your guess. Press lock for more, or stop to skip."
        case 2: return "Happy with your guess? Press lock. No clock shows while you go, so you learn to feel the time."
        case 3: return "Do the task, then press stop when it is done."
        default:
            let learning = s.learningQuests > 0
                ? " Your first \(SpokenNumber.counted(s.learningQuests, "quest")) are learning quests: the box learns your pace first." : ""
            return "Then the box shows how close your guess was.\(learning) Press lock to start."
        }
    }
}
