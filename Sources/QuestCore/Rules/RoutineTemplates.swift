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
        activeDays: [Int] = Array(WeekdayNumber.all), ids: [UUID]
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

/// A parent's first routine (#32's first run): a starting point for the routine editor, with
/// the internal name, the name the player sees, the days and each task's usual time.
public struct RoutineStarter: Equatable, Sendable {
    public struct Task: Equatable, Sendable {
        public var name: String
        public var displayName: String
        public var usualSeconds: Int?
    }

    public var name: String
    public var displayName: String
    public var activeDays: [Int]
    public var tasks: [Task]

    /// Weekdays in the calendar's numbering (1 = Sunday): Monday to Friday.
    static let schoolDays = [2, 3, 4, 5, 6]

    public static let all: [RoutineStarter] = [
        RoutineStarter(name: "school-morning", displayName: "Morning Quest", activeDays: schoolDays, tasks: [
            Task(name: "get-dressed", displayName: "Get Dressed", usualSeconds: 300),
            Task(name: "breakfast", displayName: "Breakfast", usualSeconds: 900),
            Task(name: "brush-teeth", displayName: "Tooth Time", usualSeconds: 120),
            Task(name: "pack-bag", displayName: "Pack Bag", usualSeconds: 180),
        ]),
        RoutineStarter(name: "evening", displayName: "Evening Quest", activeDays: Array(WeekdayNumber.all), tasks: [
            Task(name: "tidy-room", displayName: "Tidy Up", usualSeconds: 600),
            Task(name: "shower", displayName: "Shower", usualSeconds: 600),
            Task(name: "lay-out-clothes", displayName: "Clothes for Tomorrow", usualSeconds: 180),
        ]),
        RoutineStarter(name: "homework", displayName: "Homework Quest", activeDays: schoolDays, tasks: [
            Task(name: "get-materials", displayName: "Get Materials", usualSeconds: 120),
            Task(name: "work-time", displayName: "Work Time", usualSeconds: 1_800),
            Task(name: "pack-up", displayName: "Pack Up", usualSeconds: 180),
        ]),
    ]

    public static func named(_ name: String) -> RoutineStarter? { all.first { $0.name == name } }
}
