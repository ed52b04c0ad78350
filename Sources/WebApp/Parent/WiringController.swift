import BoxProtocol
import Foundation
import Hummingbird
import QuestCore

/// `/parent/wiring` (PAR-1): the wiring check. While the page is open the box holds its
/// buttons (a press starts no quest) and each press lights its tile on the page, live;
/// each LED colour, buzzer pattern and sound can be tried from the page (the box's
/// `test-output`, refused while a quest runs). The outputs work without JavaScript; the
/// live tiles need it.
struct WiringController {
    let box: BoxLink
    let forms: PageForms
    let wiringEvents: BoxEventRelay

    /// What the page offers, in the order it shows them.
    static let buttons: [WiringChoice] = [
        WiringChoice("lock", "Big button"), WiringChoice("stop", "Stop"), WiringChoice("up", "Up"), WiringChoice("down", "Down"),
    ]
    static let leds: [WiringChoice] = LEDColor.allCases.filter { $0 != .off }.map { WiringChoice($0.rawValue, $0.rawValue.capitalized) }
    static let buzzerPatterns: [WiringChoice] = BuzzerPattern.testable.map { pattern in
        let labels = ["tap": "Tap", "celebration": "Celebration", "reveal-spot_on": "Reveal: spot on", "reveal-close": "Reveal: close",
                      "reveal-off": "Reveal: off", "reveal-way_off": "Reveal: way off"]
        return WiringChoice(pattern.name, labels[pattern.name] ?? pattern.name)
    }
    static let sounds: [WiringChoice] = SoundID.allCases.map { sound in
        let words = sound.rawValue.split(separator: "_").joined(separator: " ")
        return WiringChoice(sound.rawValue, words.prefix(1).uppercased() + words.dropFirst())
    }

    /// One output to try: its kind (`led`, `buzzer`, `sound`) and value, checked against the
    /// page's lists before the box is asked.
    struct Trial: Equatable {
        var kind: String
        var value: String

        static let kinds: [(kind: String, noun: String, choices: [WiringChoice])] = [
            ("led", "an LED colour", WiringController.leds), ("buzzer", "a buzzer pattern", WiringController.buzzerPatterns),
            ("sound", "a sound", WiringController.sounds),
        ]

        /// The one output named in `fields`, or the one-line problem with the field it names.
        static func from(_ fields: (String) -> String?) -> Result<Trial, Problem> {
            let named = kinds.compactMap { k in fields(k.kind).map { (k, $0) } }
            guard named.count == 1, let (kind, value) = named.first else {
                return .failure(Problem(field: "", message: "name one output: led, buzzer or sound"))
            }
            guard kind.choices.contains(where: { $0.id == value }) else {
                let shown = DisplayText.escaped(String(value.prefix(40)))
                return .failure(Problem(field: kind.kind, message: "\(kind.kind): \"\(shown)\" is not \(kind.noun) (\(kind.choices.map(\.id).joined(separator: ", ")))"))
            }
            return .success(Trial(kind: kind.kind, value: value))
        }

        struct Problem: Error {
            var field: String
            var message: String
            var api: APIProblem { APIProblem(field: field, message: message) }
        }

        var request: BoxRequest {
            BoxRequest(command: "test-output", led: kind == "led" ? value : nil, buzzer: kind == "buzzer" ? value : nil, sound: kind == "sound" ? value : nil)
        }

        /// What the box does now, in the page's words.
        var done: String {
            let label = Self.kinds.first { $0.kind == kind }?.choices.first { $0.id == value }?.label ?? value
            return switch kind {
            case "led": "The LED shows \(label.lowercased()) for 2 seconds"
            case "buzzer": "The buzzer plays “\(label)”"
            default: "The box plays “\(label)”"
            }
        }
    }

    func addRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("wiring") { request, _ in
            let trial = try? Trial.from { request.uri.queryParameters[Substring($0)].map(String.init) }.get()
            return try await page(request, done: trial?.done, problem: nil)
        }
        parent.post("wiring") { request, _ in
            let form = try await forms.changeForm(request)
            switch Trial.from({ form.value($0) }) {
            case .failure(let problem):
                return try await page(request, done: nil, problem: problem.message, status: .unprocessableContent)
            case .success(let trial):
                switch await self.box.testOutput(trial.request) {
                case .success:
                    return .redirect(to: LocalLink.to("/parent/wiring", [(trial.kind, trial.value)]))
                case .failure(.refused(let reason)):
                    return try await page(request, done: nil, problem: reason, status: .conflict)
                case .failure(.offline):
                    return try await page(request, done: nil, problem: "The box is offline: start it to try its outputs.", status: .serviceUnavailable)
                }
            }
        }
        parent.get("wiring/events") { _, context in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody(asyncSequence: wiringEvents.stream(client: context.clientName)))
        }
    }

    func addAPIRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("wiring") { _, _ in WiringList(await self.box.state()) }
        parent.post("wiring") { request, _ in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            let buffer = try await FormBody.collect(request, limit: 1024, what: "A wiring check")
            guard let body = strictJSON([String: String].self, from: buffer) else {
                return try APIProblem(field: "", message: "expected {\"led\": \"red\"}, {\"buzzer\": \"tap\"} or {\"sound\": \"lock_in\"}").json(status: .badRequest)
            }
            let trial: Trial
            switch Trial.from({ body[$0] }) {
            case .failure(let problem): return try problem.api.json(status: .unprocessableContent)
            case .success(let t): trial = t
            }
            switch await self.box.testOutput(trial.request) {
            case .success: return try WiringDone(tested: trial.kind, value: trial.value, message: trial.done).json(status: .ok)
            case .failure(.refused(let reason)): return try APIProblem(field: "", message: reason).json(status: .conflict)
            case .failure(.offline(let reason)): return try APIProblem(field: "", message: "box offline: \(reason)").json(status: .serviceUnavailable)
            }
        }
    }

    func page(_ request: Request, done: String?, problem: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let box = await self.box.state()
        return try forms.formPage("parent-wiring", for: request, status: status) { csrf in
            WiringView(csrf: csrf, box: box, done: done, problem: problem)
        }
    }
}

/// One thing the wiring check offers: the box's name for it and the page's.
struct WiringChoice: Encodable, Sendable {
    var id: String
    var label: String

    init(_ id: String, _ label: String) {
        self.id = id
        self.label = label
    }
}

/// Everything the wiring check offers (the page's lists and the API's).
struct WiringChoices: Encodable {
    var buttons = WiringController.buttons
    var leds = WiringController.leds
    var buzzerPatterns = WiringController.buzzerPatterns
    var sounds = WiringController.sounds
}

struct WiringView: Encodable {
    var csrf: String
    var offline: Bool
    var questRunning: String?
    var done: String?
    var problem: String?
    var choices = WiringChoices()

    init(csrf: String, box: BoxLink.State, done: String?, problem: String?) {
        self.csrf = csrf
        self.done = done
        self.problem = problem
        switch box {
        case .online(let reply):
            offline = false
            if let phase = reply.box?.phase, phase != "idle" { questRunning = phase }
        case .offline:
            offline = true
        }
    }
}

/// `GET /api/v1/parent/wiring`: what can be checked, and whether the box can be asked now.
struct WiringList: ResponseEncodable {
    var online: Bool
    var phase: String?
    var buttonCheck: Bool?
    var choices = WiringChoices()

    init(_ box: BoxLink.State) {
        switch box {
        case .online(let reply):
            online = true
            phase = reply.box?.phase
            buttonCheck = reply.box?.buttonCheck
        case .offline:
            online = false
        }
    }
}

struct WiringDone: Encodable {
    var tested: String
    var value: String
    var message: String
}
