import Foundation
import QuestCore

extension QuestDatabase {
    /// Everything the quest machine needs from storage, as one value: routines, profile,
    /// per-task memory, completed plays and settings, in the box's calendar.
    public func loadWorld(calendar: Calendar, bootID: String) throws -> QuestWorld {
        let settings = try settings()
        var cal = calendar
        if let first = settings.firstWeekday { cal.firstWeekday = first }
        let snapshots = try snapshots()
        return QuestWorld(
            routines: try routines(), profile: try profile(), taskMemory: TaskMemory.build(from: snapshots),
            plays: QuestPlay.completedPlays(sessions: try sessions(), snapshots: snapshots), settings: settings.game,
            calendar: cal, bootID: bootID)
    }
}
