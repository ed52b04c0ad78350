public struct RoutineTemplate: Codable, Equatable, Sendable {
    public var name: String
    public var suggestedTasks: [String]
}

/// ROUT-2: starting points for quests the player makes.
public enum RoutineTemplates: Sendable {
    public static let all: [RoutineTemplate] = [
        RoutineTemplate(name: "Homework Session", suggestedTasks: ["Get materials", "Work time", "Pack up"]),
        RoutineTemplate(name: "Going to a Friend's", suggestedTasks: ["Pick outfit", "Get ready", "Pack what you need", "Check directions"]),
        RoutineTemplate(name: "Activity Prep", suggestedTasks: ["Gather gear", "Get changed", "Pack bag", "Snack"]),
        RoutineTemplate(name: "Custom Quest", suggestedTasks: []),
    ]

    public static func template(named name: String) -> RoutineTemplate? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }

    /// A player-made routine: one name (the player sees no internal names), marked as hers.
    /// `ids` supplies one id for the routine, then one per task (the core makes no ids itself).
    public static func makeRoutine(
        from template: RoutineTemplate, displayName: String? = nil, taskNames: [String]? = nil,
        activeDays: [Int] = Array(1...7), ids: [UUID]
    ) -> Routine? {
        let names = (taskNames ?? template.suggestedTasks).map(\.trimmingSpaces).filter { !$0.isEmpty }
        guard !names.isEmpty, ids.count >= names.count + 1 else { return nil }
        let title = (displayName ?? template.name).trimmingSpaces
        let tasks = names.enumerated().map { i, n in RoutineTask(id: ids[i + 1], name: n, displayName: n) }
        return Routine(
            id: ids[0], name: title, displayName: title, activeDays: activeDays, isActive: true,
            createdBy: .player, tasks: tasks)
    }
}
