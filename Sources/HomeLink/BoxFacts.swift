import Foundation
import QuestCore

/// #34: everything the box tells the house, and nothing more (seed 003: aggregates and the
/// box's state; never a task, a guess, a duration or the player's patterns). Gathered from
/// the store (the one truth) and the box's own screen, as a value the publishers compare.
public struct BoxFacts: Equatable, Sendable {
    /// idle, estimating, active, revealing, summary, paused (idle with a quest paused today),
    /// offline (the box's daemon does not answer).
    public var state: String
    /// The quest in play (its name as the box shows it), or nil.
    public var quest: String?
    public var level: Int
    public var xp: Int
    public var streak: Int
    public var questsToday: Int
    /// Last week's average accuracy in whole percent; nil without a scored estimate.
    public var lastWeekAccuracy: Int?
    public var muted: Bool
    /// REM-1: the last reminder today (its quest and time), and whether it went unanswered:
    /// no quest started within `missedAfter` of it.
    public var lastReminder: Date?
    public var lastReminderQuest: String?
    public var reminderMissed: Bool
    /// Every routine with whether it was done today.
    public var routines: [RoutineToday]
    /// What the events are told from (never published as state): the last completed quest,
    /// and the quests paused now.
    public var lastCompleted: Date?
    public var lastCompletedQuest: String?
    public var pausedSessions: Set<UUID>
    /// The day the facts are of (a new day resets `questsToday` without a "done" event).
    public var day: Date

    public struct RoutineToday: Equatable, Sendable {
        /// The first 8 hex digits of its id: its topics and entity ids, stable across renames.
        public var key: String
        public var name: String
        public var doneToday: Bool
        public var activeToday: Bool
    }

    public static let states = ["idle", "estimating", "active", "revealing", "summary", "paused", "offline"]
    /// "no quest started 30 min after the reminder" (#34).
    public static let missedAfter: TimeInterval = 30 * 60

    /// The facts from the store's world and sessions, the box's screen kind (nil: offline) and
    /// the quest it shows; `lastWeek` is last week's reflection when known.
    public static func gather(
        world: QuestWorld, sessions: [GameSession], screenKind: String?, screenQuest: String?, lastWeek: WeeklyReflection?, now: Date,
        rules: GameRules = .standard
    ) -> BoxFacts {
        let cal = world.calendar
        let standing = PlayerStanding.of(world, rules: rules, today: now)
        let today = Routine.availableToday(world.routines, now: now, calendar: cal)
        let playedToday = Set(world.plays.filter { cal.isDate($0.completedAt, inSameDayAs: now) }.compactMap(\.routineID))
        let names = Dictionary(world.routines.enumerated().map { i, r in
            (r.id, r.playerFacingName(position: (today.firstIndex { $0.id == r.id } ?? i) + 1))
        }, uniquingKeysWith: { a, _ in a })
        let paused = world.pausedQuests.map(\.session)
        var state: String
        switch screenKind {
        case nil: state = "offline"
        case "estimating": state = "estimating"
        case "active": state = "active"
        case "reveal": state = "revealing"
        case "summary": state = "summary"
        default: state = paused.isEmpty ? "idle" : "paused"
        }
        let reminder = world.reminders.filter { cal.isDate($0.value, inSameDayAs: now) }.max { $0.value < $1.value }
        var missed = false
        if let reminder, now.timeIntervalSince(reminder.value) >= missedAfter {
            // A quest started since the reminder (played, paused, given up or in play) answers it.
            missed = !sessions.contains { $0.routineID == reminder.key && $0.startedAt >= reminder.value }
                && !playedToday.contains(reminder.key)
        }
        let last = world.plays.max { $0.completedAt < $1.completedAt }
        let scored = (lastWeek?.totalEstimations ?? 0) > 0
        return BoxFacts(
            state: state, quest: ["estimating", "active", "revealing"].contains(state) ? screenQuest : nil,
            level: standing.level, xp: standing.totalXP, streak: standing.streak,
            questsToday: world.plays.filter { cal.isDate($0.completedAt, inSameDayAs: now) }.count,
            lastWeekAccuracy: scored ? lastWeek.map { Int($0.averageAccuracy.rounded()) } : nil, muted: world.settings.soundMuted,
            lastReminder: reminder?.value, lastReminderQuest: reminder.flatMap { names[$0.key] }, reminderMissed: missed,
            routines: world.routines.enumerated().map { i, r in
                RoutineToday(
                    key: Self.key(r.id), name: names[r.id] ?? r.playerFacingName(position: i + 1), doneToday: playedToday.contains(r.id),
                    activeToday: today.contains { $0.id == r.id })
            },
            lastCompleted: last?.completedAt, lastCompletedQuest: last?.routineID.flatMap { names[$0] },
            pausedSessions: Set(paused.map(\.id)), day: cal.startOfDay(for: now))
    }

    static func key(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
}

/// What happened between two sets of facts, as the house is told it (Home Assistant's event
/// entity, a push to a phone).
public enum BoxHappening: Equatable, Sendable {
    case questDone(quest: String, questsToday: Int, streak: Int)
    case questPaused
    case reminder(quest: String)
    case reminderMissed(quest: String)
    case levelUp(level: Int)
    case streakMilestone(days: Int)

    /// Home Assistant's event type.
    public var eventType: String {
        switch self {
        case .questDone: "quest_completed"
        case .questPaused: "quest_paused"
        case .reminder: "reminder"
        case .reminderMissed: "reminder_missed"
        case .levelUp: "level_up"
        case .streakMilestone: "streak_milestone"
        }
    }

    /// The event types the event entity declares (`command_refused`: a house command the box
    /// did not carry out, `LinkPublication.refused`).
    public static let eventTypes = ["quest_completed", "quest_paused", "reminder", "reminder_missed", "level_up", "streak_milestone", "command_refused"]

    /// What changed from `before` to `after` (nothing on the first facts of a run: a restart
    /// never tells old news again).
    public static func between(_ before: BoxFacts?, _ after: BoxFacts) -> [BoxHappening] {
        guard let before else { return [] }
        var happened: [BoxHappening] = []
        if let at = after.lastCompleted, at > (before.lastCompleted ?? .distantPast) {
            happened.append(.questDone(quest: after.lastCompletedQuest ?? "Quest", questsToday: after.questsToday, streak: after.streak))
        }
        if !after.pausedSessions.subtracting(before.pausedSessions).isEmpty { happened.append(.questPaused) }
        if let at = after.lastReminder, at > (before.lastReminder ?? .distantPast) {
            happened.append(.reminder(quest: after.lastReminderQuest ?? "Quest"))
        }
        if after.reminderMissed, !before.reminderMissed || after.lastReminder != before.lastReminder {
            happened.append(.reminderMissed(quest: after.lastReminderQuest ?? "Quest"))
        }
        if after.level > before.level { happened.append(.levelUp(level: after.level)) }
        if after.streak > before.streak, StreakTracker.isMilestone(after.streak) { happened.append(.streakMilestone(days: after.streak)) }
        return happened
    }
}
