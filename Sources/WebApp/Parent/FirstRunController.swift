import BoardProfile
import BoxProtocol
import Foundation
import Hummingbird
import Logging
import QuestCore
import QuestReports
import QuestStore

/// #32: a fresh install set up from a phone, as Pi-hole and OctoPrint lead theirs. Before a
/// PIN exists `/parent` is a checklist: choose the board (with its wiring picture; the box,
/// waiting for one, starts with it), then claim the box at its buttons and set the PIN.
/// Behind the PIN a "Getting started" panel offers a first routine from a starting point
/// and the wiring check (press each button once). Each step can be done later; the box
/// plays as soon as it has a board and a routine.
///
/// Who may choose the board: anyone on the home network, but only while the box has neither
/// a PIN nor a board (a fresh install; the box cannot ask for the act at its buttons before
/// it knows them). From then on the board is a parent's setting.
struct FirstRunController {
    let box: BoxLink
    let forms: PageForms
    let calendar: Calendar
    let clockStyle: ClockStyle
    let logger: Logger
    let settings: any FamilySettings
    let records: any BoxRecords

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.post("/parent/first-run/board") { request, _ in
            let form = try await forms.changeForm(request, limit: 1024)
            let settings = try self.settings.current()
            // #48: a board the box could not start with may be chosen again (the list stays).
            var chosenFailed = false
            if let chosen = settings.boardName { chosenFailed = try await startFailed(board: chosen) }
            guard !settings.hasPIN, settings.boardName == nil || chosenFailed else {
                throw HTTPError(.forbidden, message: "The board is chosen now; a parent changes it in the settings (Board).")
            }
            let name = form.value("board") ?? ""
            // The settings' own check (a profile the box can find), in the page's words.
            guard name != "none", SettingsCatalog.problem(setting: "board", to: name, routines: []) == nil else {
                return try await page(request, problem: SettingsController.pageProblem(setting: "board", value: name), status: .unprocessableContent)
            }
            try SettingsCatalog.set("board", to: name, in: self.settings)
            logger.notice("board chosen on the first run", metadata: ["board": "\(name)"])
            return .redirect(to: "/parent")
        }
        // A board's wiring picture, drawn from its profile (an <img>, so nothing in it runs).
        router.get("/boards/:name/wiring.svg") { _, context in
            // Only the named profile is read and drawn; a name is never a path.
            guard let name = context.parameters.get("name"), StoredSettings.isBoardName(name),
                  let profile = try? BoardCatalog.resolve(name, in: BoardCatalog.searchDirectories()),
                  let svg = try? WiringDiagram.svg(for: profile)
            else { throw HTTPError(.notFound, message: "No wiring picture for that board.") }
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: svg)))
        }
    }

    /// The board profiles the box can find, with their wiring pictures (none for a simulated
    /// board, whose lines are not on a Raspberry Pi header).
    struct Board: Encodable {
        var name: String
        var description: String
        var hasPicture: Bool
        var problem: String?
    }

    static func boards() -> [Board] {
        BoardCatalog.available(in: BoardCatalog.searchDirectories()).map { found in
            do {
                let profile = try BoardProfile.load(path: found.path)
                return Board(name: found.name, description: profile.description, hasPicture: WiringDiagram.canDraw(profile))
            } catch {
                return Board(name: found.name, description: "", hasPicture: false, problem: "cannot be read: \(error)")
            }
        }
    }

    /// #48: the box is silent and wrote down that it could not start with `board`.
    func startFailed(board: String?) async throws -> Bool {
        guard case .offline = await box.ask(BoxRequest(command: "state")) else { return false }
        let record = try records.boxStart()
        return record?.state == .failed && record?.board == board
    }

    /// `/parent` before a PIN exists.
    func page(_ request: Request, problem: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let stored = try self.settings.current().boardName
        let running: String? = switch await box.ask(BoxRequest(command: "state")) {
        case .online(let reply): reply.box?.board
        case .offline: nil
        }
        // #48: what the silent box wrote down of its start (waiting, starting, could not start).
        let down = running == nil && stored != nil
            ? BoxDownWords.of(try records.boxStart(), storedBoard: stored, now: Date(), calendar: calendar, clock: clockStyle) : nil
        let offerBoards = running == nil && (stored == nil || down?.failed == true)
        let view = FirstRunView(
            // Real boards first (those with a header to wire); the simulated ones after them.
            runningBoard: running, storedBoard: stored,
            boards: offerBoards ? Self.boards().filter { $0.problem == nil }.sorted { $0.hasPicture && !$1.hasPicture } : [],
            problem: problem, boxDown: down)
        return try forms.formPage("parent-first-run", for: request, status: status) { csrf in
            var v = view
            v.csrf = csrf
            return v
        }
    }
}

struct FirstRunView: Encodable {
    var csrf = ""
    var runningBoard: String?
    var storedBoard: String?
    var boards: [FirstRunController.Board]
    var problem: String?
    // Stored, not computed: templates see stored properties only.
    var chooseBoard: Bool
    var boxStarting: Bool
    var boxRunning: Bool
    /// #48: the box is silent: what it wrote down of its start, in the page's words.
    var boxDown: String?
    var startFailed: Bool

    init(runningBoard: String?, storedBoard: String?, boards: [FirstRunController.Board], problem: String?, boxDown: BoxDownWords? = nil) {
        self.runningBoard = runningBoard
        self.storedBoard = storedBoard
        self.boards = boards
        self.problem = problem
        boxRunning = runningBoard != nil
        startFailed = boxDown?.failed == true
        chooseBoard = runningBoard == nil && (storedBoard == nil || startFailed)
        boxStarting = runningBoard == nil && storedBoard != nil && !startFailed
        self.boxDown = boxDown?.line
    }
}

/// The parent area's "Getting started" panel: what a fresh box still lacks.
struct GettingStarted: Encodable {
    struct Starter: Encodable { var link: String; var name: String; var tasks: String }
    var needsRoutine: Bool
    var starters: [Starter]
    var needsBoard: Bool
    var show: Bool

    init(hasRoutine: Bool, hasBoard: Bool) {
        needsRoutine = !hasRoutine
        needsBoard = !hasBoard
        starters = RoutineStarter.all.map {
            Starter(link: LocalLink.to("/parent/routines/new", [("starter", $0.name)]), name: $0.displayName, tasks: $0.tasks.map(\.displayName).joined(separator: " · "))
        }
        show = needsRoutine || needsBoard
    }
}
