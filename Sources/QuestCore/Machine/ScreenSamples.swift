/// One of each screen with believable content: what `questbox display test` draws so a box
/// builder can check a new screen's wiring, orientation and contrast, and what the committed
/// pictures of the screens (Tests/ScreenRenderTests/Frames) show.
public enum ScreenSamples {
    public static let idle = Screen.idle(IdleScreen(
        quests: [
            QuestOption(routineID: UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)), name: "Morning Quest", badge: nil, playedToday: false),
            QuestOption(routineID: UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2)), name: "Homework", badge: "Your Quest", playedToday: false),
        ],
        selectedIndex: 0, level: 2, levelProgress: 0.4, streakText: "streak 4 days", calibrationSessionsLeft: 0, reflection: nil,
        notice: nil))

    public static func estimating(seconds: Int) -> Screen {
        .estimating(EstimatingScreen(
            questName: "Morning Quest", taskName: "Tooth Time", taskNumber: 1, taskCount: 3, estimateSeconds: seconds,
            hint: nil))
    }

    public static let active = Screen.active(ActiveScreen(
        questName: "Morning Quest", taskName: "Tooth Time", taskNumber: 1, taskCount: 3, estimateSeconds: 150))

    public static let reveal = Screen.reveal(RevealScreen(
        taskName: "Tooth Time", estimatedSeconds: 150, actualSeconds: 161.4, differenceSeconds: -11.4, accuracyPercent: 92.9,
        rating: .spotOn, feedback: Feedback(headline: "Nailed it!", detail: "0:11 short"), xpGained: 25, isPersonalBest: true,
        isCalibration: false, isLastTask: false))

    /// GAME-6: a task with a known pattern (INS-1): it usually takes 1:05 longer than guessed.
    public static let revealWithPattern = Screen.reveal(RevealScreen(
        taskName: "Pack Bag", estimatedSeconds: 120, actualSeconds: 190.2, differenceSeconds: -70.2, accuracyPercent: 63.1,
        rating: .off, feedback: Feedback(headline: "Curious!", detail: "1:10 short"), xpGained: 10, isPersonalBest: false,
        isCalibration: false, isLastTask: false,
        pattern: BiasInsight(direction: .underestimates, meanDifferenceSeconds: -64, relativeBias: -0.4)))

    public static let summary = Screen.summary(SummaryScreen(
        questName: "Morning Quest", sessionXP: 120, totalXP: 300, level: 2, levelProgress: 0.08, leveledUp: true,
        personalBests: ["Tooth Time"], streakText: "streak 4 days", streakMilestone: nil, calibrationSessionsLeft: 0))

    /// In the order a quest meets them, with one up-press on the estimate (2:30 → 2:45).
    public static let tour: [(name: String, screen: Screen)] = [
        ("idle", idle), ("estimating", estimating(seconds: 150)), ("estimating-step", estimating(seconds: 165)), ("active", active),
        ("reveal", reveal), ("summary", summary),
    ]
}
