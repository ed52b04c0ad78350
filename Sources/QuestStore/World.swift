import Foundation
import GRDB
import QuestCore

extension QuestDatabase {
    /// Everything the quest machine needs from storage, as one value: routines, profile,
    /// per-task memory, completed plays and settings, in the box's calendar.
    /// `taskMemory: false` leaves out what only estimating needs (last estimates, recent
    /// times: three scans of the whole history, most of the load's time), for a reader that
    /// only shows what is offered, as the web's home does.
    public func loadWorld(calendar: Calendar, bootID: String, taskMemory: Bool = true) throws -> QuestWorld {
        let settings = try self.settings.current()
        let cal = settings.calendar(from: calendar)
        // Aggregates in SQL: the daemon never holds years of history in memory. XP and the
        // plays come from one read, so the profile agrees with the plays it was derived from.
        let (xp, plays) = try pool.read { db in (try Self.totalXP(db), try PlayStore.questPlays(db)) }
        return QuestWorld(
            routines: try routines.all(), profile: .derived(totalXP: xp, plays: plays, calendar: cal), taskMemory: taskMemory ? try self.plays.taskMemories() : [:],
            plays: plays, settings: settings.game, calendar: cal, bootID: bootID, reminders: try self.plays.lastReminders(),
            pausedQuests: try self.plays.pausedQuests())
    }
}

extension QuestDatabase {
    /// REFL-1: last week's reflection if it had quests and was not dismissed, in `calendar`
    /// (the world's, with the first weekday applied). Read when the world is loaded and when
    /// a new week begins, never on a button press.
    public func pendingReflection(now: Date, calendar: Calendar) throws -> WeeklyReflection? {
        let dismissed = try reflectionTracking().dismissedWeek
        return WeeklyReflectionEngine.pendingReflection(
            snapshots: try plays.snapshots(), sessions: try plays.sessions(), now: now, calendar: calendar, dismissedWeek: dismissed)
    }
}
