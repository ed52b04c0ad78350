import ConfusableNames
import Foundation
import Hummingbird
import QuestCore
import QuestStore
import RoutineFormat

/// `/quests/new` (ROUT-2): the player makes a quest from a template or from scratch, in game
/// words. It is stored as hers (`createdBy = player`, one name) and the box is asked to
/// re-read the store so it is offered at once.
struct QuestsController {
    let box: BoxLink
    let forms: PageForms
    let calendar: Calendar
    let playerQuests: PlayerQuestLimits
    let routines: any RoutineLibrary
    let settings: any FamilySettings

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.get("/quests/new") { request, _ in
            let template = request.uri.queryParameters["template"].map(String.init)
            let draft = template.flatMap(RoutineTemplates.template(named:)).map(QuestDraft.init(template:))
            return try page(request, draft: draft, problem: nil)
        }
        router.post("/quests") { request, _ in try await create(request) }
        // #32: the player's own quests are hers to change and remove (a parent's are not).
        router.get("/quests/:id/edit") { request, context in
            let quest = try ownQuest(context)
            return try page(request, draft: QuestDraft(quest), problem: nil, editing: quest)
        }
        router.post("/quests/:id") { request, context in try await edit(request, quest: try ownQuest(context)) }
        router.post("/quests/:id/remove") { request, context in
            let quest = try ownQuest(context)
            _ = try await forms.changeForm(request)
            // Set aside, never deleted: her plays stay, and a parent can bring it back.
            try self.routines.setActive(false, id: quest.id)
            let box = await self.box.reload().appliedText
            return Response.redirect(to: LocalLink.to("/me", [("removed", quest.id.uuidString), ("box", box)]))
        }
        router.get("/quests/saved") { request, _ in
            // The quest named by its id and read from the store: no text from the address
            // is shown (#31).
            let id = request.uri.queryParameters["quest"].flatMap { UUID(uuidString: String($0)) }
            let quest = try id.flatMap { try self.routines.withID($0) }.flatMap { $0.createdBy == .player ? $0 : nil }
            let box = request.uri.queryParameters["box"].map(String.init) ?? ""
            return try forms.page("quest-saved", QuestSavedView(name: quest?.displayName, box: box))
        }
    }

    func addAPIRoutes(to group: RoomRoutes<WebRequestContext>) {
        group.get("quest-templates") { _, _ in RoutineTemplates.all.map(QuestDraft.init(template:)) }
        group.post("quests") { request, _ in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            let buffer = try await FormBody.collect(request, limit: FormBody.maximumBytes, what: "A quest")
            guard let draft = strictJSON(QuestDraft.self, from: buffer) else {
                return try APIProblem(field: "", message: "expected {\"name\": text, \"days\": [1…7], \"tasks\": [text]}").json(status: .badRequest)
            }
            do {
                return try await store(draft).json(status: .created)
            } catch let problem as FieldProblem {
                return try APIProblem(field: problem.field, message: problem.message).json(status: .unprocessableContent)
            } catch let wait as PlayerQuestLimits.TooMany {
                var response = try APIProblem(field: "", message: wait.message).json(status: .tooManyRequests)
                response.headers[.retryAfter] = "\(wait.seconds)"
                return response
            }
        }
    }

    /// Saves the quest and asks the box to offer it (the same for the form and the API).
    /// The player's own quests are bounded (#31): how many, how long, how fast.
    func store(_ draft: QuestDraft) async throws -> SavedQuest {
        let routine = try playerQuests.save { try draft.save(in: self.routines) }
        return SavedQuest(id: routine.id, name: routine.displayName, box: await self.box.reload().appliedText)
    }

    func create(_ request: Request) async throws -> Response {
        let form = try await forms.changeForm(request)
        var draft = QuestDraft(form: form)
        if form.value("action") == "more" {
            // "More steps" without JavaScript: the same form, three empty steps longer.
            draft.extraSteps = max(0, min(3, RoutineDocument.maximumTasks - draft.tasks.count))
            return try page(request, draft: draft, problem: nil)
        }
        do {
            let saved = try await store(draft)
            return .redirect(to: LocalLink.to("/quests/saved", [("quest", saved.id.uuidString), ("box", saved.box)]))
        } catch let problem as FieldProblem {
            return try page(request, draft: draft, problem: problem, status: .unprocessableContent)
        } catch let wait as PlayerQuestLimits.TooMany {
            var response = try page(request, draft: draft, problem: FieldProblem(field: "name", message: wait.message), status: .tooManyRequests)
            response.headers[.retryAfter] = "\(wait.seconds)"
            return response
        }
    }

    func page(_ request: Request, draft: QuestDraft?, problem: FieldProblem?, editing: Routine? = nil, status: HTTPResponse.Status = .ok) throws -> Response {
        try forms.formPage("quest-new", for: request, status: status) { csrf in
            var view = NewQuestView(draft: draft, problem: problem, csrf: csrf, calendar: try settings.familyCalendar(from: calendar))
            if let editing {
                view.action = "/quests/\(editing.id.uuidString)"
                view.title = "Change your quest"
                view.revision = RoutineStore.revision(of: editing)
                view.editing = true
            }
            return view
        }
    }

    /// The player's own quest named in the address; a parent's routine, or none, is 404.
    func ownQuest(_ context: WebRequestContext) throws -> Routine {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text),
              let quest = try self.routines.withID(id), quest.createdBy == .player, quest.isActive
        else { throw HTTPError(.notFound, message: "No quest of yours has that address.") }
        return quest
    }

    func edit(_ request: Request, quest: Routine) async throws -> Response {
        let form = try await forms.changeForm(request)
        var draft = QuestDraft(form: form)
        if form.value("action") == "more" {
            draft.extraSteps = max(0, min(3, RoutineDocument.maximumTasks - draft.tasks.count))
            return try page(request, draft: draft, problem: nil, editing: quest)
        }
        do {
            let saved = try playerQuests.save(.changed) { try draft.save(in: self.routines, editing: quest, revision: form.value("revision")) }
            let box = await self.box.reload().appliedText
            return .redirect(to: LocalLink.to("/quests/saved", [("quest", saved.id.uuidString), ("box", box)]))
        } catch let problem as FieldProblem {
            return try page(request, draft: draft, problem: problem, editing: quest, status: .unprocessableContent)
        } catch let wait as PlayerQuestLimits.TooMany {
            var response = try page(request, draft: draft, problem: FieldProblem(field: "name", message: wait.message), editing: quest, status: .tooManyRequests)
            response.headers[.retryAfter] = "\(wait.seconds)"
            return response
        }
    }
}

/// A quest as the player writes it: one name, the days, the steps. `save` checks it with the
/// same rules and words as `questbox routine import`.
struct QuestDraft: Codable, Sendable {
    var name: String
    var days: [Int]
    var tasks: [String]
    /// Each step row's task id as the form showed it ("" for a new row; not part of the API):
    /// a step renamed in its row keeps its history (#48), as in the parent's editor.
    var taskIDs: [String] = []
    /// Empty step fields the form shows below the tasks (not part of the API).
    var extraSteps = 3

    enum CodingKeys: String, CodingKey { case name, days, tasks }

    init(name: String, days: [Int], tasks: [String]) {
        self.name = name
        self.days = days
        self.tasks = tasks
    }

    /// The player's own quest as the form shows it.
    init(_ quest: Routine) {
        name = quest.displayName
        days = quest.activeDays
        tasks = quest.tasks.map(\.displayName)
        taskIDs = quest.tasks.map(\.id.uuidString)
        extraSteps = 1
    }

    init(template: RoutineTemplate) {
        name = template.suggestedTasks.isEmpty ? "" : template.name
        days = Array(WeekdayNumber.all)
        tasks = template.suggestedTasks
    }

    init(form: FormBody) {
        name = form.value("name") ?? ""
        // A day that is not a number is kept as 0, so the check names it instead of dropping it.
        days = form.values("day").map { Int($0) ?? 0 }
        tasks = form.values("task")
        taskIDs = form.values("task-id")
        extraSteps = 0
    }

    /// Stores the quest and returns it; a `FieldProblem` names the field (`name`, `days`,
    /// `tasks[i]` by the position sent) in the CLI's words.
    /// `editing`: the player's own quest being changed (#32): its id and its tasks' ids are
    /// kept (by the row's id, else by name; an id not of this quest is ignored), so her
    /// history stays with it; `revision` is the quest as the page showed it (a change made
    /// meanwhile elsewhere is not overwritten).
    func save(in library: any RoutineLibrary, editing: Routine? = nil, revision: String? = nil) throws -> Routine {
        // Empty step fields are the form's spare rows, not steps.
        let sent = tasks.enumerated().filter { !$0.element.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        let object: [String: JSONValue] = [
            "name": .string(name), "displayName": .string(name), "isActive": .bool(true), "createdBy": .string("player"),
            "activeDays": .array(days.map { .int($0) }),
            "tasks": .array(sent.map { .object(["name": .string($0.element), "displayName": .string($0.element)]) }),
        ]
        let document: RoutineDocument
        do {
            document = try RoutineDocument.routine(object, at: "", file: "quest")
        } catch let problem as RoutineDocument.Problem {
            throw FieldProblem(quest: problem, sentTaskPositions: sent.map(\.offset))
        }
        if sent.count > PlayerQuestLimits.maximumSteps {
            throw FieldProblem(field: "tasks", message: "Steps: \(sent.count) steps; a quest of your own has at most \(PlayerQuestLimits.maximumSteps)")
        }
        let routines = try library.all()
        // One name for one quest: a player's quest never takes a name the box already
        // shows (a parent's routine's name or display name, or another quest's), nor one
        // that reads the same (#47: TR39's skeleton, so no "Mοrning Quest" with an omicron).
        let key = ConfusableNames.key(document.name) ?? document.name
        if routines.contains(where: { r in r.id != editing?.id && [r.name, r.displayName].contains { (ConfusableNames.key($0) ?? $0) == key } }) {
            throw FieldProblem(field: "name", message: "“\(document.name)” is already a quest on the box: pick another name")
        }
        let own = routines.filter { $0.createdBy == .player && $0.isActive }.count
        if editing == nil, own >= PlayerQuestLimits.maximumActive {
            throw FieldProblem(
                field: "name",
                message: "You have \(own) quests of your own already, the most the box keeps. Ask a parent to pause or remove one first.")
        }
        do {
            let claimed = sent.map { $0.offset < taskIDs.count ? UUID(uuidString: taskIDs[$0.offset]) : nil }
            var routine = document.routine(existing: editing, claimedTaskIDs: claimed, newID: UUID.init)
            if let editing { routine.isActive = editing.isActive }
            try library.save(routine, ifStillAt: revision)
            return routine
        } catch StoreError.changedElsewhere(let reason) {
            throw FieldProblem(field: "name", message: "Not saved: \(reason). Your changes are still here; save again to keep them.")
        } catch StoreError.invalid {
            throw FieldProblem(field: "name", message: "“\(document.name)” is already a quest on the box: pick another name")
        }
    }
}

extension FieldProblem {
    /// The routine check's problem in the quest form's terms: `displayName` is the name,
    /// `activeDays[…]` the days, `tasks[i].name` the i-th step that was filled in.
    init(quest problem: RoutineDocument.Problem, sentTaskPositions: [Int]) {
        let field = problem.field
        if field.hasPrefix("activeDays") {
            self.init(field: "days", message: "Quest days: \(problem.problem)")
        } else if field.hasPrefix("tasks[") {
            let position = problem.taskPosition(among: sentTaskPositions)
            self.init(field: "tasks[\(position)]", message: "Step \(position + 1): \(problem.problem)")
        } else if field == "tasks" {
            self.init(field: "tasks", message: "Steps: \(problem.problem)")
        } else {
            self.init(field: "name", message: "Quest name: \(problem.problem)")
        }
    }
}

/// What `POST /api/v1/quests` answers.
struct SavedQuest: ResponseEncodable {
    var id: UUID
    var name: String
    /// `now`, `after-quest` (the box is mid-quest) or `offline` (offered when it starts).
    var box: String
}

struct APIProblem: ResponseEncodable {
    var field: String
    var error: String
    init(field: String, message: String) {
        self.field = field
        error = message
    }
}

extension BoxLink.State {
    /// When the box takes up a change: `now`, `after-quest`, or `offline`.
    var appliedText: String {
        if case .online(let reply) = self { return reply.applied ?? "now" }
        return "offline"
    }
}

/// The quest form: the templates to start from, or the form itself with its problem shown
/// beside the field it concerns.
struct NewQuestView: Encodable {
    struct Template: Encodable { var name: String; var steps: String; var link: String }
    struct Step: Encodable { var number: Int; var value: String; var id: String; var error: String? }

    var csrf: String
    var templates: [Template]
    var choosing: Bool
    var name: String
    var nameError: String?
    var days: [WeekdayChoice]
    var daysError: String?
    var steps: [Step]
    var stepsError: String?
    /// Where the form goes: a new quest, or the player's own quest being changed (#32).
    var action = "/quests"
    var title = "New quest"
    var revision: String?
    var editing = false

    init(draft: QuestDraft?, problem: FieldProblem?, csrf: String, calendar: Calendar) {
        self.csrf = csrf
        templates = RoutineTemplates.all.map { t in
            Template(
                name: t.name, steps: t.suggestedTasks.isEmpty ? "Your own steps" : t.suggestedTasks.joined(separator: " · "),
                link: LocalLink.to("/quests/new", [("template", t.name)]))
        }
        choosing = draft == nil
        let draft = draft ?? QuestDraft(name: "", days: Array(WeekdayNumber.all), tasks: [])
        name = draft.name
        days = WeekdayChoice.week(calendar, checked: draft.days)
        steps = (draft.tasks + Array(repeating: "", count: max(draft.extraSteps, 0))).enumerated().map { i, text in
            Step(number: i + 1, value: text, id: i < draft.taskIDs.count ? draft.taskIDs[i] : "", error: problem?.field == "tasks[\(i)]" ? problem?.message : nil)
        }
        nameError = problem?.field == "name" ? problem?.message : nil
        daysError = problem?.field == "days" ? problem?.message : nil
        stepsError = problem?.field == "tasks" ? problem?.message : nil
    }
}

struct QuestSavedView: Encodable {
    /// The quest's name as stored; nil shows "Your quest".
    var name: String?
    // Stored, not computed: templates see stored properties only.
    var onBoxNow: Bool
    var afterQuest: Bool
    var offline: Bool

    init(name: String?, box: String) {
        self.name = name
        onBoxNow = box == "now"
        afterQuest = box == "after-quest"
        offline = !onBoxNow && !afterQuest
    }
}
