import Foundation
import Hummingbird
import QuestCore
import QuestStore

/// `/me` (#32, seeds 003 and 004): what the player owns. Her switches (sounds, hints, her
/// reminders), which a parent can lock, and her own quests, to change or set aside. Like
/// her quest form it asks no PIN (a page of the box's home network, with the CSRF check);
/// a locked switch is refused in the same SQL statement that would change it.
struct MeController {
    let box: BoxLink
    let forms: PageForms
    let routines: any RoutineLibrary
    let settings: any FamilySettings

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.get("/me") { request, _ in try page(request) }
        router.post("/me/switches") { request, _ in
            let form = try await forms.changeForm(request, limit: 1024)
            guard let playerSwitch = form.value("switch").flatMap(PlayerSwitch.init(rawValue:)),
                  let on = form.value("on").flatMap({ ["true": true, "false": false][$0] })
            else { throw HTTPError(.badRequest, message: "A switch is its name and on=true or on=false.") }
            guard try self.settings.setPlayerSwitch(playerSwitch, on: on) else {
                return try page(request, problem: "\(SwitchView.label(playerSwitch)) is locked by a parent.", status: .conflict)
            }
            let box = await self.box.reload().appliedText
            return .redirect(to: LocalLink.to("/me", [("switched", playerSwitch.rawValue), ("box", box)]))
        }
    }

    func page(_ request: Request, problem: String? = nil, status: HTTPResponse.Status = .ok) throws -> Response {
        let settings = try self.settings.current()
        let quests = try routines.all().filter { $0.createdBy == .player && $0.isActive }
        let switched = request.uri.queryParameters["switched"].flatMap { PlayerSwitch(rawValue: String($0)) }
        let removed = request.uri.queryParameters["removed"].flatMap { UUID(uuidString: String($0)) }
        // The removed quest's name from the store, never from the address (#31).
        let removedName = try removed.flatMap { try routines.withID($0) }.flatMap { $0.createdBy == .player ? $0.displayName : nil }
        return try forms.formPage("me", for: request, status: status) { csrf in
            MeView(
                csrf: csrf, switches: PlayerSwitch.allCases.map { SwitchView($0, settings: settings.game) },
                quests: quests.map { MeView.Quest(id: $0.id.uuidString, name: $0.displayName, steps: $0.tasks.map(\.displayName).joined(separator: " · ")) },
                done: switched.map { "\(SwitchView.label($0)): saved." } ?? removedName.map { "“\($0)” is set aside. Its plays stay in your stats; a parent can bring it back." },
                problem: problem)
        }
    }
}

struct SwitchView: Encodable {
    var key: String
    var label: String
    var state: String
    /// The value the button sends: the other one.
    var next: String
    var button: String
    var locked: Bool

    init(_ playerSwitch: PlayerSwitch, settings: GameSettings) {
        key = playerSwitch.rawValue
        label = Self.label(playerSwitch)
        let on = playerSwitch.isOn(in: settings)
        switch playerSwitch {
        case .mute:
            state = on ? "Off" : "On"
            button = on ? "Turn sounds on" : "Turn sounds off"
        case .hints:
            state = on ? "Shown" : "Off"
            button = on ? "Turn hints off" : "Show hints"
        case .reminders:
            state = on ? "On" : "Off"
            button = on ? "Turn reminders off" : "Turn reminders on"
        }
        next = on ? "false" : "true"
        locked = settings.lockedSwitches.contains(playerSwitch)
    }

    static func label(_ playerSwitch: PlayerSwitch) -> String {
        switch playerSwitch {
        case .mute: "Sounds"
        case .hints: "Hints before a guess"
        case .reminders: "Reminders"
        }
    }
}

struct MeView: Encodable {
    struct Quest: Encodable { var id: String; var name: String; var steps: String }
    var csrf: String
    var switches: [SwitchView]
    var quests: [Quest]
    var done: String?
    var problem: String?
    var noQuests: Bool

    init(csrf: String, switches: [SwitchView], quests: [Quest], done: String?, problem: String?) {
        self.csrf = csrf
        self.switches = switches
        self.quests = quests
        self.done = done
        self.problem = problem
        noQuests = quests.isEmpty
    }
}
