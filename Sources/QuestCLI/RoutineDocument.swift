import Foundation
import QuestCore

/// Any JSON value, keeping booleans, integers and fractions apart (so `"activeDays": [true]`
/// or `2.5` are caught, not silently converted).
enum JSONValue: Decodable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    var shown: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .int(let i): "\(i)"
        case .double(let d): "\(d)"
        case .string(let s): "\"\(s)\""
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
    static let taskKeys: Set<String> = ["name", "displayName", "referenceDurationSeconds"]

    /// Parses and checks every field; nothing is returned unless all of it is valid.
    public static func parse(_ data: Data, file: String) throws -> [RoutineDocument] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw Problem(file: file, field: "", problem: "not valid JSON (\(Self.reason(error)))")
        }
        switch value {
        case .object(let o): return [try routine(o, at: "", file: file)]
        case .array(let items):
            guard !items.isEmpty else { throw Problem(file: file, field: "", problem: "empty list (no routine to import)") }
            var docs: [RoutineDocument] = []
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item else { throw Problem(file: file, field: "[\(i)]", problem: "\(item.shown) is not a routine object") }
                docs.append(try routine(o, at: "[\(i)].", file: file))
            }
            var seen = Set<String>()
            for (i, d) in docs.enumerated() where !seen.insert(d.name).inserted {
                throw Problem(file: file, field: "[\(i)].name", problem: "\"\(d.name)\" appears twice")
            }
            return docs
        default:
            throw Problem(file: file, field: "", problem: "expected a routine object or a list of them, found \(value.shown)")
        }
    }

    static func routine(_ o: [String: JSONValue], at prefix: String, file: String) throws -> RoutineDocument {
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
            guard case .int(let day) = d, (1...7).contains(day) else {
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
        var tasks: [Task] = []
        for (i, t) in taskValues.enumerated() {
            let field = "tasks[\(i)]"
            guard case .object(let to) = t else { throw fail(field, "\(t.shown) is not a task object") }
            if let unknown = to.keys.sorted().first(where: { !taskKeys.contains($0) }) {
                throw fail("\(field).\(unknown)", "unknown field (expected one of \(taskKeys.sorted().joined(separator: ", ")))")
            }
            let taskName = try requiredText(to["name"], field: "\(field).name", fail: fail)
            if tasks.contains(where: { $0.name == taskName }) { throw fail("\(field).name", "\"\(taskName)\" appears twice in this routine") }
            let taskDisplay = try optionalText(to["displayName"], field: "\(field).displayName", fail: fail) ?? ""
            var reference: Int?
            if let v = to["referenceDurationSeconds"], case .null = v {
                reference = nil
            } else if let v = to["referenceDurationSeconds"] {
                guard case .int(let seconds) = v, (1...10_800).contains(seconds) else {
                    throw fail("\(field).referenceDurationSeconds", "\(v.shown) is not a whole number of seconds from 1 to 10800")
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
        guard case .string(let s) = v else { throw fail(field, "\(v.shown) is not text") }
        let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw fail(field, "empty") }
        guard trimmed.count <= 80 else { throw fail(field, "longer than 80 characters") }
        return trimmed
    }

    static func optionalText(_ v: JSONValue?, field: String, fail: (String, String) -> Problem) throws -> String? {
        guard let v else { return nil }
        if case .null = v { return nil }
        guard case .string(let s) = v else { throw fail(field, "\(v.shown) is not text") }
        let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 80 else { throw fail(field, "longer than 80 characters") }
        return trimmed
    }

    static func reason(_ error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }

    /// The routine to store: an existing routine of the same name keeps its id, and its tasks
    /// keep theirs by name, so history stays attached to them.
    public func routine(existing: Routine?, newID: () -> UUID) -> Routine {
        let tasks = self.tasks.map { t in
            RoutineTask(
                id: existing?.tasks.first { $0.name == t.name }?.id ?? newID(), name: t.name, displayName: t.displayName,
                referenceDurationSeconds: t.referenceDurationSeconds)
        }
        return Routine(
            id: existing?.id ?? newID(), name: name, displayName: displayName, activeDays: activeDays, isActive: isActive,
            createdBy: RoutineCreator(rawValue: createdBy) ?? .parent, tasks: tasks)
    }
}
