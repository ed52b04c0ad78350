/// Who made a routine (ROUT-1 parent, ROUT-2 player).
public enum RoutineCreator: String, Codable, Sendable, Equatable {
    case parent
    case player
}

/// One task of a routine (ROUT-1). The reference duration is the parent's hidden
/// yardstick and is never shown to the player.
public struct RoutineTask: Codable, Equatable, Sendable, Identifiable {
    public var id: UUID
    public var name: String
    public var displayName: String
    public var referenceDurationSeconds: Int?

    public init(id: UUID, name: String, displayName: String, referenceDurationSeconds: Int? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.referenceDurationSeconds = referenceDurationSeconds
    }

    /// What the player sees: the display name, else "Task N" (never the internal name).
    public func playerFacingName(position: Int) -> String {
        let trimmed = displayName.trimmingSpaces
        return trimmed.isEmpty ? "Task \(position)" : trimmed
    }
}

/// A routine the player can play as a quest. `activeDays` uses 1 = Sunday … 7 = Saturday.
public struct Routine: Codable, Equatable, Sendable, Identifiable {
    public var id: UUID
    public var name: String
    public var displayName: String
    public var activeDays: [Int]
    public var isActive: Bool
    public var createdBy: RoutineCreator
    /// Ordered: the array order is the play order.
    public var tasks: [RoutineTask]
    /// REM-1: when this routine's reminder sounds (nil: at the box's reminder time).
    public var reminder: ReminderChoice?

    public init(
        id: UUID, name: String, displayName: String, activeDays: [Int], isActive: Bool = true,
        createdBy: RoutineCreator = .parent, tasks: [RoutineTask], reminder: ReminderChoice? = nil
    ) {
        self.reminder = reminder
        self.id = id
        self.name = name
        self.displayName = displayName
        self.activeDays = activeDays
        self.isActive = isActive
        self.createdBy = createdBy
        self.tasks = tasks
    }

    /// GAME-1: active and scheduled on the weekday of `date` in `calendar`.
    public func isAvailable(on date: Date, calendar: Calendar) -> Bool {
        isActive && !tasks.isEmpty && activeDays.contains(calendar.component(.weekday, from: date))
    }

    /// GAME-1: the display name, else "Quest N" — never the parent's internal name.
    public func playerFacingName(position: Int) -> String {
        let trimmed = displayName.trimmingSpaces
        return trimmed.isEmpty ? "Quest \(position)" : trimmed
    }

    /// ROUT-2: player-made quests carry a "Your Quest" badge; parent routines show nothing.
    public var playerBadge: String? { createdBy == .player ? "Your Quest" : nil }

    /// ROUT-1 reorder: moves the task at `from` to `to`, keeping the rest in order.
    public mutating func moveTask(from: Int, to: Int) {
        guard tasks.indices.contains(from), tasks.indices.contains(to), from != to else { return }
        let task = tasks.remove(at: from)
        tasks.insert(task, at: to)
    }

    /// GAME-1: the routines offered today, in the order given.
    public static func availableToday(_ routines: [Routine], now: Date, calendar: Calendar) -> [Routine] {
        routines.filter { $0.isAvailable(on: now, calendar: calendar) }
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
