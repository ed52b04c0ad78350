/// Every screen the box shows, with believable (and long) words: the parent's gallery of
/// the kiosk's screens (#33), checked to fit each glass by the browser test.
extension ScreenSamples {
    static func galleryIdle(_ names: [String], reminded: Bool = false, notice: String? = nil, learning: Int = 0) -> Screen {
        .idle(IdleScreen(
            quests: names.enumerated().map { i, name in
                QuestOption(
                    routineID: UUID(uuid: (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(i))), name: name,
                    badge: i == 2 ? "Your Quest" : nil, playedToday: i == 1, reminded: reminded && i == 0 ? true : nil)
            },
            selectedIndex: 0, level: 7, levelProgress: 0.62, streakText: "Streak: 12 days", calibrationSessionsLeft: learning,
            reflection: nil, notice: notice))
    }

    /// `pattern`: the task's mean estimated − actual over its plays (GAME-6's line).
    static func galleryReveal(_ rating: AccuracyRating, calibration: Bool = false, best: Bool = false, pattern: Double? = nil) -> Screen {
        let (estimate, actual): (Double, Double) = switch rating {
        case .spotOn: (150, 154)
        case .close: (150, 185)
        case .off: (150, 240)
        case .wayOff: (150, 420)
        }
        let result = TimeEstimationScorer.score(estimated: estimate, actual: actual)
        return .reveal(RevealScreen(
            taskName: "Pack Your School Bag", estimatedSeconds: estimate, actualSeconds: actual, differenceSeconds: result.differenceSeconds,
            accuracyPercent: result.accuracyPercent, rating: rating, feedback: FeedbackGenerator.feedback(for: result, isCalibration: calibration),
            xpGained: XPEngine.xpForEstimation(rating: rating), isPersonalBest: best, isCalibration: calibration, isLastTask: false,
            pattern: pattern.map { InsightEngine.bias(meanDifference: $0, meanActual: actual) }))
    }

    static var galleryReflection: Screen {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = .gmt  // the core names no zone (FoundationEssentials)
        cal.firstWeekday = 2
        let monday = cal.date(from: DateComponents(year: 2026, month: 11, day: 16, hour: 7, minute: 40)) ?? Date()
        var sessions: [GameSession] = [], snapshots: [EstimationSnapshot] = []
        for day in 0..<6 {
            let at = monday.addingTimeInterval(Double(day) * 86_400)
            let id = UUID(uuid: (3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(day)))
            sessions.append(GameSession(
                id: id, routineID: id, routineDisplayName: "Morning Quest", startedAt: at, startedMonotonicNanos: 0, bootID: "b",
                completedAt: at.addingTimeInterval(900), status: .completed, isCalibration: day < 2))
            for (i, task) in ["Get Dressed", "Breakfast", "Tooth Time"].enumerated() {
                snapshots.append(EstimationSnapshot(
                    taskDisplayName: task, routineDisplayName: "Morning Quest", estimatedSeconds: 120, actualSeconds: 120 + Double((day * 7 + i * 13) % 60),
                    recordedAt: at.addingTimeInterval(Double(i) * 200), isCalibration: day < 2))
            }
        }
        return .reflection(WeeklyReflectionEngine.computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: monday, calendar: cal))
    }

    public static let gallery: [(name: String, title: String, screen: Screen, notice: String?)] = {
        let longQuest = "The Extremely Long Saturday Morning Quest"
        let samples: [(name: String, title: String, screen: Screen, notice: String?)] = [
            ("idle-1", "Idle, one quest", galleryIdle(["Morning Quest"]), nil),
            ("idle-2", "Idle, two quests", galleryIdle(["Morning Quest", "Homework Quest"]), nil),
            ("idle-3", "Idle, three quests", galleryIdle(["Morning Quest", "Piano Practice", "Swim practice"]), nil),
            ("idle-4", "Idle, four quests, long names", galleryIdle([longQuest, "Piano Practice", "Swim practice", "Evening Wind-down"]), nil),
            ("idle-learning", "Idle, still learning", galleryIdle(["Morning Quest", "Homework Quest"], learning: 2), nil),
            ("reminder", "A reminder sounded", galleryIdle(["Morning Quest", "Homework Quest", "Piano Practice"], reminded: true), nil),
            ("paused", "A quest left waiting was paused", galleryIdle(["Morning Quest", "Homework Quest"], notice: QuestMachine.abandonedNotice), nil),
            ("intro-1", "Before her first quest: how it works, the guess (GAME-9)", .intro(IntroScreen(page: 1, learningQuests: 3)), nil),
            ("intro-4", "Before her first quest: the reveal and the learning quests", .intro(IntroScreen(page: 4, learningQuests: 3)), nil),
            ("estimating", "Guessing, with a hint", .estimating(EstimatingScreen(
                questName: longQuest, taskName: "Pack Everything for the Whole School Day", taskNumber: 2, taskCount: 12, estimateSeconds: 3_725,
                hint: "Last 5 times this took about 1:02:00")), nil),
            ("active", "The task runs", .active(ActiveScreen(
                questName: longQuest, taskName: "Pack Everything for the Whole School Day", taskNumber: 2, taskCount: 12, estimateSeconds: 3_725)), nil),
            ("reveal-spot-on", "Reveal: spot on, a new best", galleryReveal(.spotOn, best: true), nil),
            ("reveal-close", "Reveal: close", galleryReveal(.close), nil),
            ("reveal-off", "Reveal: off", galleryReveal(.off), nil),
            ("reveal-way-off", "Reveal: way off", galleryReveal(.wayOff), nil),
            ("reveal-learning", "Reveal: a learning quest", galleryReveal(.off, calibration: true), nil),
            ("reveal-pattern", "Reveal: with the task's pattern", galleryReveal(.off, pattern: -95), nil),
            ("reveal-not-saved", "Reveal: not saved yet", galleryReveal(.close), "Not saved yet: the box keeps this play and tries again"),
            ("summary-level-up", "Summary with a level-up", .summary(SummaryScreen(
                questName: longQuest, sessionXP: 340, totalXP: 2_410, level: 8, levelProgress: 0.03, leveledUp: true,
                personalBests: ["Tooth Time", "Pack Bag"], streakText: "Streak: 13 days", streakMilestone: nil, calibrationSessionsLeft: 0)), nil),
            ("reflection", "Last week's card", galleryReflection, nil),
            ("claim", "The PIN claim", .claim(ClaimScreen(reset: false, holding: false, match: "471")), nil),
            ("claim-holding", "The PIN claim, held", .claim(ClaimScreen(reset: true, holding: true, match: "471")), nil),
            ("pairing", "A phone's code (PRIV-1)", .pairing(PairingScreen(code: "538102")), nil),
        ]
        return samples
    }()
}
