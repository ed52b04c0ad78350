import Foundation
import Hummingbird
import QuestCore
import QuestStore

/// The player's home: today's quests, level, XP and streak, as the box itself would show
/// them when idle (the same pure machine decides what is offered).
struct PlayerController {
    let services: WebServices

    func addRoutes(to router: Router<WebRequestContext>) {
        router.get("/") { _, _ in try await home() }
    }

    func home() async throws -> HTML {
        let model = try await services.playerHome()
        return try services.resources.page("home", model)
    }
}

/// What the home page and `/api/v1/player` show.
struct PlayerHome: Codable, Sendable {
    struct Quest: Codable, Sendable {
        var name: String
        var badge: String?
        var playedToday: Bool
    }

    var quests: [Quest]
    var level: Int
    var levelPercent: Int
    var totalXP: Int
    var xpToNextLevel: Int
    var streakText: String
    var calibrationQuestsLeft: Int
    // Stored, not computed: templates see stored properties only.
    var noQuestsToday: Bool
    var stillLearning: Bool

    static func load(from database: QuestDatabase, calendar: Calendar, now: Date) throws -> PlayerHome {
        // What is offered today needs no task's memory (it is for the estimate screen).
        let world = try database.loadWorld(calendar: calendar, bootID: "web", taskMemory: false)
        let rules = GameRules.standard
        let (_, effects) = QuestMachine.start(QuestState(world: world, rules: rules), env: QuestEnvironment(now: now, newID: UUID()))
        var idle: IdleScreen?
        for case .display(.idle(let screen)) in effects { idle = screen }
        let standing = PlayerStanding.of(world, rules: rules, today: now)
        let quests = (idle?.quests ?? []).map { Quest(name: $0.name, badge: $0.badge, playedToday: $0.playedToday) }
        let learning = standing.calibrationSessionsLeft
        return PlayerHome(
            quests: quests,
            level: standing.level,
            levelPercent: Int((standing.levelProgress * 100).rounded(.down)),
            totalXP: standing.totalXP,
            xpToNextLevel: standing.xpToNextLevel,
            streakText: standing.streakText,
            calibrationQuestsLeft: learning, noQuestsToday: quests.isEmpty, stillLearning: learning > 0)
    }
}
