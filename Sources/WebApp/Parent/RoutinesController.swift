import Foundation
import Hummingbird
import QuestCore
import QuestStore
import RoutineFormat

/// `/parent/routines` (PAR-1, ROUT-1): the parent creates and edits routines — the name only
/// she sees and the one the box shows, the days, the reminder, the tasks with their usual
/// times (never shown to the player), their order — pauses, resumes and removes them. Every
/// field is checked by the CLI's rules (`RoutineDocument`); a save carries the revision it was
/// read at, so an edit made meanwhile on the box, the command line or another page is never
/// silently overwritten; the box is asked to re-read the store after every change. Tasks keep
/// their ids through renames and moves, so their history stays attached.
struct RoutinesController {
    let box: BoxLink
    let forms: PageForms
    let calendar: Calendar
    let clockStyle: ClockStyle
    let routines: any RoutineLibrary
    let settings: any FamilySettings

    /// Routes under the parent's signed-in group (`/parent/…`).
    func addRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("routines/new") { request, _ in
            // #32's first run: a starting point from `RoutineStarter`, changed before saving.
            let starter = request.uri.queryParameters["starter"].flatMap { RoutineStarter.named(String($0)) }
            return try page(request, form: starter.map(RoutineForm.init(starter:)) ?? RoutineForm(), problem: nil)
        }
        parent.post("routines") { request, _ in try await save(request, id: nil) }
        parent.get("routines/:id") { request, context in
            let routine = try stored(context)
            return try page(request, form: RoutineForm(routine), problem: nil, id: routine.id)
        }
        parent.post("routines/:id") { request, context in try await save(request, id: try stored(context).id) }
        parent.post("routines/:id/active") { request, context in
            let form = try await forms.changeForm(request, limit: 1024)
            let routine = try stored(context)
            let active = form.value("active") == "true"
            try routines.setActive(active, id: routine.id)
            return await savedRedirect(active ? .routineOffered : .routinePaused, routine.id)
        }
        parent.get("routines/:id/remove") { request, context in
            let routine = try stored(context)
            let played = try routines.completedPlayCounts(since: .distantPast)[routine.id] ?? 0
            return try forms.formPage("parent-routine-remove", for: request) { csrf in
                RemoveRoutineView(id: routine.id.uuidString, displayName: routine.displayName, name: routine.name, played: PlayCountText.times(played), csrf: csrf)
            }
        }
        parent.post("routines/:id/remove") { request, context in
            _ = try await forms.changeForm(request, limit: 1024)
            let routine = try stored(context)
            try routines.remove(id: routine.id)
            return await savedRedirect(.routineRemoved, nil)
        }
    }

    /// `/api/v1/parent/routines…`: the same, for programs (JSON in the import format).
    func addAPIRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("routines") { _, _ in try ParentHome.routines(routines, calendar: try settings.familyCalendar(from: calendar)) }
        parent.post("routines") { request, _ in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            let buffer = try await FormBody.collect(request, limit: FormBody.maximumBytes, what: "A routine")
            // The import file's rules and words, for one routine (`questbox routine import`).
            let document: RoutineDocument
            do {
                let parsed = try RoutineDocument.parse(Data(buffer: buffer), file: "routine")
                guard parsed.count == 1 else {
                    return try APIProblem(field: "", message: "expected one routine object, found \(parsed.count)").json(status: .badRequest)
                }
                document = parsed[0]
            } catch let problem as RoutineDocument.Problem {
                return try APIProblem(field: problem.field, message: problem.problem).json(status: .unprocessableContent)
            }
            let existing = try routines.named(document.name)
            let routine = document.routine(existing: existing, newID: UUID.init)
            try routines.save(routine, ifStillAt: nil)
            let box = await self.box.reload().appliedText
            return try RoutineDetail(routine, box: box).json(status: existing == nil ? .created : .ok)
        }
        parent.get("routines/:id") { _, context in RoutineDetail(try stored(context), box: nil) }
        parent.post("routines/:id/active") { request, context in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            let buffer = try await FormBody.collect(request, limit: 1024, what: "A change")
            guard let body = strictJSON([String: Bool].self, from: buffer), let active = body["isActive"], body.count == 1 else {
                return try APIProblem(field: "isActive", message: "expected {\"isActive\": true or false}").json(status: .badRequest)
            }
            let routine = try stored(context)
            try routines.setActive(active, id: routine.id)
            let box = await self.box.reload().appliedText
            return try RoutineDetail(try stored(context), box: box).json(status: .ok)
        }
        parent.delete("routines/:id") { request, context in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            let routine = try stored(context)
            try routines.remove(id: routine.id)
            return try SavedQuest(id: routine.id, name: routine.displayName, box: await self.box.reload().appliedText).json(status: .ok)
        }
    }

    /// The routine named by the path, or 404.
    func stored(_ context: WebRequestContext) throws -> Routine {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text), let routine = try routines.withID(id) else {
            throw HTTPError(.notFound, message: "No such routine (it may have been removed).")
        }
        return routine
    }

    func save(_ request: Request, id: UUID?) async throws -> Response {
        let submitted = try await forms.changeForm(request)
        var form = try RoutineForm(submitted)
        let action = submitted.value("action") ?? "save"
        guard action == "save" else {
            // Moving, removing or adding task rows without JavaScript: the same form, changed.
            form.apply(action)
            return try page(request, form: form, problem: nil, id: id)
        }
        do {
            let existing = try id.flatMap { try routines.withID($0) }
            if id != nil && existing == nil { throw FieldProblem(field: "", message: "This routine was removed meanwhile; save it as a new one from the routines list.") }
            let routine = try form.routine(existing: existing)
            do {
                try routines.save(routine, ifStillAt: id == nil ? nil : form.revision)
            } catch StoreError.changedElsewhere(let reason) {
                // Saving again applies these changes over the routine as it is now.
                form.revision = try routines.withID(routine.id).map(RoutineStore.revision(of:))
                let problem = FieldProblem(field: "", message: "Not saved: \(reason). Your changes are still here; save again to apply them.")
                return try page(request, form: form, problem: problem, id: id, status: .conflict)
            } catch StoreError.invalid(let message) {
                throw FieldProblem(field: "name", message: message)
            }
            return await savedRedirect(.routineSaved, routine.id)
        } catch let problem as FieldProblem {
            return try page(request, form: form, problem: problem, id: id, status: .unprocessableContent)
        }
    }

    /// Back to the routines with what happened and when the box takes it up.
    func savedRedirect(_ what: StatusLine, _ routine: UUID?) async -> Response {
        .redirect(to: LocalLink.to("/parent", [("done", what.rawValue), ("routine", routine?.uuidString), ("box", await self.box.reload().appliedText)]))
    }

    func page(_ request: Request, form: RoutineForm, problem: FieldProblem?, id: UUID? = nil, status: HTTPResponse.Status = .ok) throws -> Response {
        try forms.formPage("parent-routine", for: request, status: status) { csrf in
            RoutineFormView(form: form, problem: problem, id: id, csrf: csrf, calendar: try settings.familyCalendar(from: calendar), reminderTime: try settings.current().game.reminderTime, clock: clockStyle)
        }
    }
}

/// The routine editor's fields as sent, and the routine they make.
struct RoutineForm: Sendable {
    struct Row: Sendable, Equatable {
        /// The stored task's id (hidden), so a renamed or moved task keeps its history.
        var id = ""
        var name = ""
        var displayName = ""
        /// The usual time as typed: "2:30", "5" (minutes), or empty.
        var usual = ""
        var isBlank: Bool { [name, displayName, usual].allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
    }

    var name = ""
    var displayName = ""
    var days = Array(WeekdayNumber.all)
    var isActive = true
    /// "default", "off" or "at" (then `reminderAt`, "HH:MM").
    var reminder = "default"
    var reminderAt = ""
    var rows = Array(repeating: Row(), count: 3)
    /// The stored routine's revision when the editor read it (nil for a new routine).
    var revision: String?

    init() {}

    init(_ routine: Routine) {
        name = routine.name
        displayName = routine.displayName
        days = routine.activeDays
        isActive = routine.isActive
        switch routine.reminder ?? .standard {
        case .standard: reminder = "default"
        case .off: reminder = "off"
        case .at(let time):
            reminder = "at"
            reminderAt = time.description
        }
        rows = routine.tasks.map { t in
            Row(id: t.id.uuidString, name: t.name, displayName: t.displayName, usual: t.referenceDurationSeconds.map(UsualTime.text) ?? "")
        } + [Row()]
        revision = RoutineStore.revision(of: routine)
    }

    /// A starting point for a first routine, as the editor shows it (nothing stored yet).
    init(starter: RoutineStarter) {
        name = starter.name
        displayName = starter.displayName
        days = starter.activeDays
        rows = starter.tasks.map { Row(name: $0.name, displayName: $0.displayName, usual: $0.usualSeconds.map(UsualTime.text) ?? "") } + [Row()]
    }

    /// The form as sent; rows whose four fields do not line up are a broken form (400).
    init(_ form: FormBody) throws {
        name = form.value("name") ?? ""
        displayName = form.value("displayName") ?? ""
        // A day that is not a number is kept as 0, so the check names it instead of dropping it.
        days = form.values("day").map { Int($0) ?? 0 }
        isActive = form.value("active") == "on"
        reminder = form.value("reminder") ?? "default"
        reminderAt = form.value("reminderAt") ?? ""
        revision = form.value("revision").flatMap { $0.isEmpty ? nil : $0 }
        let ids = form.values("taskId"), names = form.values("taskName"), displays = form.values("taskDisplay"), usuals = form.values("taskUsual")
        guard ids.count == names.count, names.count == displays.count, displays.count == usuals.count else {
            throw HTTPError(.badRequest, message: "The task rows of the form do not line up (taskId, taskName, taskDisplay, taskUsual).")
        }
        rows = (0..<names.count).map { Row(id: ids[$0], name: names[$0], displayName: displays[$0], usual: usuals[$0]) }
    }

    /// "up-2", "down-2", "remove-2" (row positions from 0) and "more" (three empty rows).
    mutating func apply(_ action: String) {
        if action == "more" {
            rows += Array(repeating: Row(), count: max(0, min(3, RoutineDocument.maximumTasks - rows.count)))
            return
        }
        let parts = action.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let i = Int(parts[1]), rows.indices.contains(i) else { return }
        switch parts[0] {
        case "up" where i > 0: rows.swapAt(i, i - 1)
        case "down" where i + 1 < rows.count: rows.swapAt(i, i + 1)
        case "remove": rows.remove(at: i)
        default: break
        }
    }

    /// The routine to store, checked by the same rules and words as `questbox routine import`;
    /// a `FieldProblem` names the field (`tasks[i].name` by the row's position on the page).
    func routine(existing: Routine?) throws -> Routine {
        let filled = rows.enumerated().filter { !$0.element.isBlank }
        var taskObjects: [JSONValue] = []
        for (position, row) in filled {
            var task: [String: JSONValue] = ["name": .string(row.name), "displayName": .string(row.displayName)]
            switch UsualTime.seconds(row.usual) {
            case .success(let seconds): task["referenceDurationSeconds"] = seconds.map(JSONValue.int) ?? .null
            case .failure(let problem): throw FieldProblem(field: "tasks[\(position)].usual", message: problem.message)
            }
            taskObjects.append(.object(task))
        }
        let chosenReminder: ReminderChoice
        switch reminder {
        case "default": chosenReminder = .standard
        case "off": chosenReminder = .off
        case "at":
            guard let time = ClockTime(reminderAt) else {
                throw FieldProblem(field: "reminder", message: "“\(DisplayText.escaped(String(reminderAt.prefix(20))))” is not a time of day (HH:MM, 00:00 to 23:59)")
            }
            chosenReminder = .at(time)
        default:
            throw FieldProblem(field: "reminder", message: "choose the box's reminder time, no reminder, or a time")
        }
        let object: [String: JSONValue] = [
            "name": .string(name), "displayName": .string(displayName), "isActive": .bool(isActive),
            "createdBy": .string((existing?.createdBy ?? .parent).rawValue),
            "activeDays": .array(days.map { .int($0) }), "tasks": .array(taskObjects),
        ]
        let document: RoutineDocument
        do {
            document = try RoutineDocument.routine(object, at: "", file: "routine")
        } catch let problem as RoutineDocument.Problem {
            throw FieldProblem(routine: problem, rowPositions: filled.map(\.offset))
        }
        // Each row claims its own task's id (hidden in the form), so a renamed or moved task
        // keeps its history; the same rule as an import (`RoutineDocument.taskIDs`).
        var routine = document.routine(existing: existing, claimedTaskIDs: filled.map { UUID(uuidString: $0.element.id) }, newID: UUID.init)
        routine.reminder = chosenReminder
        return routine
    }
}

/// A task's usual time as the parent types it: "2:30", "1:05:00" or whole minutes ("5").
enum UsualTime {
    struct Problem: Error { var message: String }
    static let maximumSeconds = GameRules.standard.maximumEstimateSeconds

    static func text(_ seconds: Int) -> String { DurationText.clock(seconds: seconds) }

    static func seconds(_ typed: String) -> Result<Int?, Problem> {
        let text = typed.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return .success(nil) }
        let shown = DisplayText.escaped(String(text.prefix(20)))
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        // Digits only, two at most after a colon: "2:30", not "2:300" or "-1".
        guard parts.count <= 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 5 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts.dropFirst().allSatisfy({ $0.count == 2 }), let numbers = Optional(parts.compactMap { Int($0) }),
              numbers.dropFirst().allSatisfy({ $0 < 60 }) else {
            return .failure(Problem(message: "“\(shown)” is not a time like 2:30 (minutes:seconds) or 5 (minutes)"))
        }
        let seconds = numbers.count == 1 ? numbers[0] * 60 : numbers.reduce(0) { $0 * 60 + $1 }
        guard (1...maximumSeconds).contains(seconds) else {
            return .failure(Problem(message: "“\(shown)” is outside 0:01 to \(Self.text(maximumSeconds))"))
        }
        return .success(seconds)
    }
}

extension FieldProblem {
    /// The routine check's problem beside its field in the editor: `activeDays[…]` is the
    /// days, `tasks[i].x` the i-th filled row, shown at its position on the page.
    init(routine problem: RoutineDocument.Problem, rowPositions: [Int]) {
        let field = problem.field
        if field.hasPrefix("activeDays") {
            self.init(field: "days", message: problem.problem)
        } else if field.hasPrefix("tasks[") {
            let position = problem.taskPosition(among: rowPositions)
            let part = field.hasSuffix(".displayName") ? "displayName" : (field.hasSuffix(".referenceDurationSeconds") ? "usual" : "name")
            self.init(field: "tasks[\(position)].\(part)", message: problem.problem)
        } else if field == "displayName" {
            self.init(field: "displayName", message: problem.problem)
        } else if field == "tasks" {
            self.init(field: "tasks", message: problem.problem)
        } else {
            self.init(field: "name", message: problem.problem)
        }
    }
}

extension RoutineDocument.Problem {
    /// Where on the page the task a `tasks[i]…` problem names stands: `positions[i]`, the
    /// page position of the i-th filled-in row sent (0 when the field names none).
    func taskPosition(among positions: [Int]) -> Int {
        let index = Int(field.dropFirst("tasks[".count).prefix { $0.isNumber }) ?? 0
        return index < positions.count ? positions[index] : 0
    }
}

enum PlayCountText {
    /// "once", "twice", "12 times", "not yet".
    static func times(_ n: Int) -> String {
        switch n {
        case 0: "not yet"
        case 1: "once"
        case 2: "twice"
        default: "\(n) times"
        }
    }
}

/// The editor page: every field with its problem beside it.
struct RoutineFormView: Encodable {
    /// A task row. Its keys differ from the routine's (`taskName`, not `name`): Mustache looks
    /// a key missing in a row up in the routine, so a row without an error would show the
    /// routine's.
    struct Row: Encodable {
        var index: Int
        var number: Int
        var taskId: String
        var taskName: String
        var taskNameError: String?
        var taskDisplay: String
        var taskDisplayError: String?
        var taskUsual: String
        var taskUsualError: String?
        var canMoveUp: Bool
        var canMoveDown: Bool
        var hasError: Bool
    }

    var csrf: String
    var action: String
    var title: String
    var revision: String
    var name: String
    var nameError: String?
    var displayName: String
    var displayNameError: String?
    var days: [WeekdayChoice]
    var daysError: String?
    var isActive: Bool
    var reminderDefault: Bool
    var reminderOff: Bool
    var reminderAtChosen: Bool
    var reminderAt: String
    var reminderError: String?
    var boxReminderTime: String
    var rows: [Row]
    var tasksError: String?
    var formError: String?
    var removeLink: String?

    init(form: RoutineForm, problem: FieldProblem?, id: UUID?, csrf: String, calendar: Calendar, reminderTime: ClockTime, clock: ClockStyle) {
        func error(_ field: String) -> String? { problem?.field == field ? problem?.message : nil }
        self.csrf = csrf
        action = id.map { "/parent/routines/\($0.uuidString)" } ?? "/parent/routines"
        removeLink = id.map { "/parent/routines/\($0.uuidString)/remove" }
        title = id == nil ? "New routine" : "Edit “\(form.displayName.isEmpty ? form.name : form.displayName)”"
        revision = form.revision ?? ""
        name = form.name
        nameError = error("name")
        displayName = form.displayName
        displayNameError = error("displayName")
        days = WeekdayChoice.week(calendar, checked: form.days)
        daysError = error("days")
        isActive = form.isActive
        reminderDefault = form.reminder != "off" && form.reminder != "at"
        reminderOff = form.reminder == "off"
        reminderAtChosen = form.reminder == "at"
        reminderAt = form.reminderAt
        reminderError = error("reminder")
        boxReminderTime = clock.text(reminderTime)
        let count = form.rows.count
        rows = form.rows.enumerated().map { i, row in
            let nameError = error("tasks[\(i)].name"), displayError = error("tasks[\(i)].displayName"), usualError = error("tasks[\(i)].usual")
            return Row(
                index: i, number: i + 1, taskId: row.id, taskName: row.name, taskNameError: nameError, taskDisplay: row.displayName,
                taskDisplayError: displayError, taskUsual: row.usual, taskUsualError: usualError, canMoveUp: i > 0, canMoveDown: i + 1 < count,
                hasError: nameError != nil || displayError != nil || usualError != nil)
        }
        tasksError = error("tasks")
        formError = error("")
    }
}

/// One routine for the API: its id, its revision, and the import format's fields.
struct RoutineDetail: ResponseEncodable {
    var id: UUID
    var revision: String
    var routine: RoutineDocument
    var reminder: String
    /// After a change: `now`, `after-quest` or `offline`.
    var box: String?

    init(_ r: Routine, box: String?) {
        id = r.id
        revision = RoutineStore.revision(of: r)
        routine = RoutineDocument(r)
        reminder = (r.reminder ?? .standard).description
        self.box = box
    }
}

struct RemoveRoutineView: Encodable {
    var id: String
    var displayName: String
    var name: String
    var played: String
    var csrf: String
}
