import Foundation
import QuestCore

/// Any JSON value, keeping booleans, integers and fractions apart (so `"activeDays": [true]`
/// or `2.5` are caught, not silently converted). Read by `StrictJSON`.
public enum JSONValue: Equatable, Sendable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([JSONValue]), object([String: JSONValue])

    public var shown: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .int(let i): "\(i)"
        case .double(let d): "\(d)"
        case .string(let s): "\"\(DisplayText.escaped(String(s.prefix(40))))\""
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// The routine file the parent writes and `routine export` prints (ROUT-1):
///
///     {"name": "School Morning", "displayName": "Morning Quest", "activeDays": [2,3,4,5,6],
///      "isActive": true, "tasks": [{"name": "Brush teeth", "displayName": "Tooth Time",
///      "referenceDurationSeconds": 120}]}
///
/// A file holds one routine or a list of them. Weekdays: 1 = Sunday … 7 = Saturday.
public struct RoutineDocument: Codable, Equatable, Sendable {
    public struct Task: Codable, Equatable, Sendable {
        public var name: String
        public var displayName: String
        public var referenceDurationSeconds: Int?
    }

    public var name: String
    public var displayName: String
    public var activeDays: [Int]
    public var isActive: Bool
    public var createdBy: String
    public var tasks: [Task]

    public init(_ r: Routine) {
        name = r.name
        displayName = r.displayName
        activeDays = r.activeDays
        isActive = r.isActive
        createdBy = r.createdBy.rawValue
        tasks = r.tasks.map { Task(name: $0.name, displayName: $0.displayName, referenceDurationSeconds: $0.referenceDurationSeconds) }
    }

    /// The problem with a file, as "<file>: <field>: <problem>".
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var file: String
        public var field: String
        public var problem: String
        public var description: String { field.isEmpty ? "\(file): \(problem)" : "\(file): \(field): \(problem)" }
    }

    static let routineKeys: Set<String> = ["name", "displayName", "activeDays", "isActive", "createdBy", "tasks"]

    /// Limits on what one file and one routine may hold (a real routine has a handful of
    /// tasks); past them the import is one line, not minutes of work.
    public static let maximumBytes = 1 << 20
    public static let maximumRoutines = 100
    public static let maximumTasks = 50
    /// Names: characters as a person counts them, and bytes (80 combining marks on one letter
    /// are one character).
    public static let maximumNameCharacters = 80
    public static let maximumNameBytes = 320
    static let taskKeys: Set<String> = ["name", "displayName", "referenceDurationSeconds"]

    /// Parses and checks every field; nothing is returned unless all of it is valid.
    public static func parse(_ data: Data, file: String) throws -> [RoutineDocument] {
        let value: JSONValue
        guard data.count <= maximumBytes else {
            throw Problem(file: file, field: "", problem: "\(data.count) bytes, more than a routine file may have (\(maximumBytes >> 20) MiB)")
        }
        do {
            value = try StrictJSON.parse([UInt8](data))
        } catch {
            throw Problem(file: file, field: error.path, problem: "not valid JSON: \(error.message) (line \(error.line), column \(error.column))")
        }
        switch value {
        case .object(let o): return [try routine(o, at: "", file: file)]
        case .array(let items):
            guard !items.isEmpty else { throw Problem(file: file, field: "", problem: "empty list (no routine to import)") }
            guard items.count <= maximumRoutines else {
                throw Problem(file: file, field: "", problem: "\(items.count) routines, more than one file may hold (\(maximumRoutines))")
            }
            var docs: [RoutineDocument] = []
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item else { throw Problem(file: file, field: "[\(i)]", problem: "\(item.shown) is not a routine object") }
                docs.append(try routine(o, at: "[\(i)].", file: file))
            }
            var seen = Set<String>()
            for (i, d) in docs.enumerated() where !seen.insert(d.name).inserted {
                throw Problem(file: file, field: "[\(i)].name", problem: "\"\(DisplayText.escaped(d.name))\" appears twice")
            }
            return docs
        default:
            throw Problem(file: file, field: "", problem: "expected a routine object or a list of them, found \(value.shown)")
        }
    }

    /// One routine object; `file` and `prefix` name where it came from in a problem.
    public static func routine(_ o: [String: JSONValue], at prefix: String, file: String) throws -> RoutineDocument {
        func fail(_ field: String, _ problem: String) -> Problem { Problem(file: file, field: prefix + field, problem: problem) }
        if let unknown = o.keys.sorted().first(where: { !routineKeys.contains($0) }) {
            throw fail(unknown, "unknown field (expected one of \(routineKeys.sorted().joined(separator: ", ")))")
        }
        let name = try requiredText(o["name"], field: "name", fail: fail)
        let displayName = try optionalText(o["displayName"], field: "displayName", fail: fail) ?? ""
        guard let daysValue = o["activeDays"] else { throw fail("activeDays", "missing (a list of weekdays, 1 = Sunday … 7 = Saturday)") }
        guard case .array(let dayValues) = daysValue else { throw fail("activeDays", "\(daysValue.shown) is not a list of weekdays") }
        guard !dayValues.isEmpty else { throw fail("activeDays", "empty (pick at least one day, 1 = Sunday … 7 = Saturday)") }
        var days: [Int] = []
        for (i, d) in dayValues.enumerated() {
            guard case .int(let day) = d, WeekdayNumber.all.contains(day) else {
                throw fail("activeDays[\(i)]", "\(d.shown) is not a weekday (1 = Sunday … 7 = Saturday)")
            }
            if !days.contains(day) { days.append(day) }
        }
        var isActive = true
        if let v = o["isActive"] {
            guard case .bool(let b) = v else { throw fail("isActive", "\(v.shown) is not true or false") }
            isActive = b
        }
        var createdBy = RoutineCreator.parent.rawValue
        if let v = o["createdBy"] {
            guard case .string(let s) = v, RoutineCreator(rawValue: s) != nil else { throw fail("createdBy", "\(v.shown) is not \"parent\" or \"player\"") }
            createdBy = s
        }
        guard let tasksValue = o["tasks"] else { throw fail("tasks", "missing (a list of tasks)") }
        guard case .array(let taskValues) = tasksValue else { throw fail("tasks", "\(tasksValue.shown) is not a list of tasks") }
        guard !taskValues.isEmpty else { throw fail("tasks", "empty (a routine needs at least one task)") }
        guard taskValues.count <= maximumTasks else { throw fail("tasks", "\(taskValues.count) tasks, more than a routine may have (\(maximumTasks))") }
        var tasks: [Task] = []
        for (i, t) in taskValues.enumerated() {
            let field = "tasks[\(i)]"
            guard case .object(let to) = t else { throw fail(field, "\(t.shown) is not a task object") }
            if let unknown = to.keys.sorted().first(where: { !taskKeys.contains($0) }) {
                throw fail("\(field).\(unknown)", "unknown field (expected one of \(taskKeys.sorted().joined(separator: ", ")))")
            }
            let taskName = try requiredText(to["name"], field: "\(field).name", fail: fail)
            if tasks.contains(where: { $0.name == taskName }) { throw fail("\(field).name", "\"\(DisplayText.escaped(taskName))\" appears twice in this routine") }
            let taskDisplay = try optionalText(to["displayName"], field: "\(field).displayName", fail: fail) ?? ""
            var reference: Int?
            if let v = to["referenceDurationSeconds"], case .null = v {
                reference = nil
            } else if let v = to["referenceDurationSeconds"] {
                // A task's usual time is bounded like a guess (#49: one 3-hour limit).
                let longest = GameRules.standard.maximumEstimateSeconds
                guard case .int(let seconds) = v, (1...longest).contains(seconds) else {
                    throw fail("\(field).referenceDurationSeconds", "\(v.shown) is not a whole number of seconds from 1 to \(longest)")
                }
                reference = seconds
            }
            tasks.append(Task(name: taskName, displayName: taskDisplay, referenceDurationSeconds: reference))
        }
        return RoutineDocument(name: name, displayName: displayName, activeDays: days, isActive: isActive, createdBy: createdBy, tasks: tasks)
    }

    init(name: String, displayName: String, activeDays: [Int], isActive: Bool, createdBy: String, tasks: [Task]) {
        self.name = name
        self.displayName = displayName
        self.activeDays = activeDays
        self.isActive = isActive
        self.createdBy = createdBy
        self.tasks = tasks
    }

    static func requiredText(_ v: JSONValue?, field: String, fail: (String, String) -> Problem) throws -> String {
        guard let v else { throw fail(field, "missing") }
        guard let text = try optionalText(v, field: field, fail: fail), !text.isEmpty else { throw fail(field, "empty") }
        return text
    }

    /// A name as stored: trimmed, no control or invisible character (`DisplayText.nameProblem`),
    /// within the character and byte limits.
    static func optionalText(_ v: JSONValue?, field: String, fail: (String, String) -> Problem) throws -> String? {
        guard let v else { return nil }
        if case .null = v { return nil }
        guard case .string(let s) = v else { throw fail(field, "\(v.shown) is not text") }
        let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = DisplayText.nameProblem(trimmed) { throw fail(field, problem) }
        guard trimmed.count <= maximumNameCharacters else { throw fail(field, "longer than \(maximumNameCharacters) characters") }
        guard trimmed.utf8.count <= maximumNameBytes else { throw fail(field, "longer than \(maximumNameBytes) bytes") }
        return trimmed
    }

    /// The routine to store: the existing routine (the same name on import, the edited one on
    /// the web) keeps its id, and each task keeps its history (`taskIDs`).
    public func routine(existing: Routine?, claimedTaskIDs: [UUID?] = [], newID: () -> UUID) -> Routine {
        let ids = Self.taskIDs(names: tasks.map(\.name), claimed: claimedTaskIDs, existing: existing, newID: newID)
        let tasks = zip(self.tasks, ids).map { t, id in
            RoutineTask(id: id, name: t.name, displayName: t.displayName, referenceDurationSeconds: t.referenceDurationSeconds)
        }
        return Routine(
            id: existing?.id ?? newID(), name: name, displayName: displayName, activeDays: activeDays, isActive: isActive,
            createdBy: RoutineCreator(rawValue: createdBy) ?? .parent, tasks: tasks)
    }

    /// Which stored task each new task is, so a renamed or moved task keeps its history: the
    /// id its caller claims for it (a web form's row carries its task's id) when that is one
    /// of the routine's tasks and no earlier task took it; else a task of the same name that
    /// nobody took; else a new id. Every task gets its own id, however the names repeat.
    /// Linear in the tasks (a re-import of a long routine).
    public static func taskIDs(names: [String], claimed: [UUID?], existing: Routine?, newID: () -> UUID) -> [UUID] {
        let known = Set(existing?.tasks.map(\.id) ?? [])
        var used = Set<UUID>()
        var ids: [UUID?] = names.indices.map { i in
            guard i < claimed.count, let id = claimed[i], known.contains(id), used.insert(id).inserted else { return nil }
            return id
        }
        // The existing tasks of each name that no claim took, in order, each handed out once.
        var unclaimed: [String: ArraySlice<UUID>] = [:]
        for task in existing?.tasks ?? [] where !used.contains(task.id) { unclaimed[task.name, default: []].append(task.id) }
        for i in ids.indices where ids[i] == nil {
            ids[i] = unclaimed[names[i]]?.popFirst()
        }
        return ids.map { $0 ?? newID() }
    }
}
