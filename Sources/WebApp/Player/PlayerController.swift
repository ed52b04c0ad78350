import Foundation
import Hummingbird
import QuestCore
import QuestStore

/// The player's home: today's quests, level, XP and streak, as the box itself would show
/// them when idle (the same pure machine decides what is offered).
struct PlayerController {
    let resources: WebResources
    let reads: PlayerPageReads

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.get("/") { _, _ in try await home() }
    }

    func home() async throws -> HTML {
        let model = try await reads.playerHome()
        return try resources.page("home", model)
    }
}

/// What the home page and `/api/v1/player` show.
struct PlayerHome: Codable, Sendable {
    struct Quest: Codable, Sendable {
        var name: String
        var badge: String?
        var playedToday: Bool
        /// REM-1 today, in the player's words: "Reminder at 07:30", "Reminded at 07:30"
        /// (sounded, not played yet); nil once played, or with no reminder today.
        var reminder: String?
        /// GAME-7: left mid-way today; the next lock picks it up ("Paused at task 2 of 3").
        var paused: String?
    }

    var quests: [Quest]
    var level: Int
    var levelPercent: Int
    var totalXP: Int
    var xpToNextLevel: Int
    var streakText: String
    var calibrationQuestsLeft: Int
    /// #48: "1 more quest", "2 more quests" (it said "1 more quests").
    var learningLeft: String
    // Stored, not computed: templates see stored properties only.
    var noQuestsToday: Bool
    var stillLearning: Bool

    static func load(from database: QuestDatabase, calendar: Calendar, clock: ClockStyle, now: Date) throws -> PlayerHome {
        // What is offered today needs no task's memory (it is for the estimate screen).
        let world = try database.loadWorld(calendar: calendar, bootID: "web", taskMemory: false)
        let rules = GameRules.standard
        let (_, effects) = QuestMachine.start(QuestState(world: world, rules: rules), env: QuestEnvironment(now: now, newID: UUID()))
        var idle: IdleScreen?
        for case .display(.idle(let screen)) in effects { idle = screen }
        let standing = PlayerStanding.of(world, rules: rules, today: now)
        let quests = (idle?.quests ?? []).map { option in
            let routine = world.routines.first { $0.id == option.routineID }
            return Quest(
                name: option.name, badge: option.badge, playedToday: option.playedToday,
                reminder: routine.flatMap { reminderWords(for: $0, option: option, world: world, now: now, clock: clock) },
                // A quest played today and started again can be paused too: she is told where it waits.
                paused: pausedWords(routineID: option.routineID, world: world, now: now))
        }
        let learning = standing.calibrationSessionsLeft
        return PlayerHome(
            quests: quests,
            level: standing.level,
            levelPercent: Int((standing.levelProgress * 100).rounded(.down)),
            totalXP: standing.totalXP,
            xpToNextLevel: standing.xpToNextLevel,
            streakText: standing.streakText,
            calibrationQuestsLeft: learning, learningLeft: CountText.counted(learning, "more quest"), noQuestsToday: quests.isEmpty, stillLearning: learning > 0)
    }

    /// Today's reminder of a quest not played yet: to come, or sounded (REM-1 sounds it once).
    static func reminderWords(for routine: Routine, option: QuestOption, world: QuestWorld, now: Date, clock style: ClockStyle) -> String? {
        guard !option.playedToday,
              let at = ReminderSchedule.time(for: routine, settings: world.settings, on: now, calendar: world.calendar)
        else { return nil }
        let clock = style.text(ClockTime(of: at, calendar: world.calendar))
        if option.reminded == true { return "Reminded at \(clock)" }
        return at > now ? "Reminder at \(clock)" : nil
    }

    /// A quest paused today (GAME-7) says where the next lock picks it up.
    static func pausedWords(routineID: UUID, world: QuestWorld, now: Date) -> String? {
        guard let routine = world.routines.first(where: { $0.id == routineID }),
              let index = world.pausedQuests.lazy.compactMap({ $0.resumeIndex(for: routine, now: now, calendar: world.calendar) }).first
        else { return nil }
        let next = index + 1
        return "Paused at task \(next) of \(routine.tasks.count): lock in at the box to go on"
    }
}
