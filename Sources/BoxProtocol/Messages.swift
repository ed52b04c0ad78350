import Foundation
import QuestCore

/// The running box's local socket speaks JSON lines (docs/box-protocol.md, schema in
/// docs/box-protocol.schema.json): a client sends requests, the box answers each with one
/// reply and pushes events to clients that subscribed.
public enum BoxProtocol {
    /// Raised when a message changes incompatibly; clients check the hello line.
    public static let version = 1
    /// A request line longer than this is refused (and skipped up to its newline).
    public static let maximumLineBytes = 64 * 1024
    public static let commands = ["subscribe", "state", "reload", "test-output", "press", "touch", "button-check", "claim", "pair", "remind", "mute"]
}

/// A button pushed over the socket (`press`, `touch`): "down" holds it until "up"; "tap"
/// is a press whose release the box's debounce read finds.
public enum SocketPress: String, CaseIterable, Sendable {
    case down, up, tap
}

/// One line from a client.
public struct BoxRequest: Codable, Equatable, Sendable {
    public var command: String
    /// Echoed in the reply, so a client can match replies to requests.
    public var id: String?
    /// `press`: the button role and "down", "up" or "tap"; `button-check`'s action is
    /// "start" (the default) or "stop"; `mute`'s is "on" or "off".
    public var button: String?
    public var action: String?
    /// `test-output`: an LED colour, a buzzer pattern, a sound name (any of them).
    public var led: String?
    public var buzzer: String?
    public var sound: String?
    /// `claim` (PAR-2): the claim's name (`action` "start", the default, or "stop"), and
    /// whether it replaces a PIN already set, and (#47) the asking page's code of 3 digits,
    /// which the box shows beside its question.
    public var claim: String?
    public var reset: Bool?
    public var match: String?
    /// `pair` (PRIV-1): the phone's name at the box (`action` "show", the default, "done" or
    /// "stop"), and for "show" the six-digit code the box gives.
    public var pair: String?
    public var code: String?

    public init(
        command: String, id: String? = nil, button: String? = nil, action: String? = nil, led: String? = nil, buzzer: String? = nil,
        sound: String? = nil, claim: String? = nil, reset: Bool? = nil, match: String? = nil, pair: String? = nil, code: String? = nil
    ) {
        self.command = command
        self.id = id
        self.button = button
        self.action = action
        self.led = led
        self.buzzer = buzzer
        self.sound = sound
        self.claim = claim
        self.reset = reset
        self.match = match
        self.pair = pair
        self.code = code
    }

    /// Reads one request line; the error is the one line the reply carries.
    public static func parse(_ line: some Collection<UInt8>) -> Result<BoxRequest, BoxProtocolError> {
        guard line.count <= BoxProtocol.maximumLineBytes else {
            return .failure(BoxProtocolError("request longer than \(BoxProtocol.maximumLineBytes) bytes"))
        }
        let request: BoxRequest
        do {
            request = try JSONDecoder().decode(BoxRequest.self, from: Data(line))
        } catch DecodingError.keyNotFound(let key, _) {
            return .failure(BoxProtocolError("\(key.stringValue): missing"))
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            return .failure(BoxProtocolError("\(context.codingPath.map(\.stringValue).joined(separator: ".")): wrong type"))
        } catch {
            return .failure(BoxProtocolError("not a JSON object on one line"))
        }
        guard BoxProtocol.commands.contains(request.command) else {
            return .failure(BoxProtocolError("command: \"\(DisplayText.escaped(String(request.command.prefix(40))))\" is unknown (commands: \(BoxProtocol.commands.joined(separator: ", ")))"))
        }
        return .success(request)
    }
}

public struct BoxProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What the box says about itself (the `box` event and the `state` reply).
public struct BoxStatus: Codable, Equatable, Sendable {
    public var board: String
    /// The ALSA PCM in use, or nil when the box runs silent.
    public var soundDevice: String?
    public var clockTrusted: Bool
    /// Counts the times the box re-read the store (starts at 1).
    public var dataVersion: Int
    /// Plays kept in memory because the store could not take them yet.
    public var unsavedPlays: Int
    /// The quest loop's phase: idle, estimating, active, revealing, summary.
    public var phase: String
    /// A button check holds the buttons: presses are told and start nothing.
    public var buttonCheck: Bool
    /// The box's version (`questbox --version`) and whole minutes since it started (on
    /// CLOCK_MONOTONIC; coarse, and about the box, never a task); nil from a box older than
    /// #32's health page.
    public var version: String?
    public var upMinutes: Int?

    public init(
        board: String, soundDevice: String?, clockTrusted: Bool, dataVersion: Int, unsavedPlays: Int, phase: String, buttonCheck: Bool = false,
        version: String? = nil, upMinutes: Int? = nil
    ) {
        self.version = version
        self.upMinutes = upMinutes
        self.board = board
        self.soundDevice = soundDevice
        self.clockTrusted = clockTrusted
        self.dataVersion = dataVersion
        self.unsavedPlays = unsavedPlays
        self.phase = phase
        self.buttonCheck = buttonCheck
    }

    enum CodingKeys: String, CodingKey { case board, soundDevice, clockTrusted, dataVersion, unsavedPlays, phase, buttonCheck, version, upMinutes }

    /// A box from before button checks sends no `buttonCheck`: it holds none.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            board: try c.decode(String.self, forKey: .board), soundDevice: try c.decodeIfPresent(String.self, forKey: .soundDevice),
            clockTrusted: try c.decode(Bool.self, forKey: .clockTrusted), dataVersion: try c.decode(Int.self, forKey: .dataVersion),
            unsavedPlays: try c.decode(Int.self, forKey: .unsavedPlays), phase: try c.decode(String.self, forKey: .phase),
            buttonCheck: try c.decodeIfPresent(Bool.self, forKey: .buttonCheck) ?? false,
            version: try c.decodeIfPresent(String.self, forKey: .version), upMinutes: try c.decodeIfPresent(Int.self, forKey: .upMinutes))
    }
}

/// A screen as one flat object: its `kind` (idle, estimating, active, reveal, summary) beside
/// its fields. The active screen has no time field (GAME-2).
public struct ScreenPayload: Codable, Equatable, Sendable {
    public var screen: Screen

    public init(_ screen: Screen) { self.screen = screen }

    enum Key: String, CodingKey { case kind }

    public var kind: String { screen.kind }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(kind, forKey: .kind)
        switch screen {
        case .idle(let s): try s.encode(to: encoder)
        case .estimating(let s): try s.encode(to: encoder)
        case .active(let s): try s.encode(to: encoder)
        case .reveal(let s): try s.encode(to: encoder)
        case .summary(let s): try s.encode(to: encoder)
        case .reflection(let r): try r.encode(to: encoder)
        case .claim(let c): try c.encode(to: encoder)
        case .pairing(let p): try p.encode(to: encoder)
        case .intro(let i): try i.encode(to: encoder)
        }
    }

    public init(from decoder: Decoder) throws {
        let kind = try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .kind)
        switch kind {
        case "idle": screen = .idle(try IdleScreen(from: decoder))
        case "estimating": screen = .estimating(try EstimatingScreen(from: decoder))
        case "active": screen = .active(try ActiveScreen(from: decoder))
        case "reveal": screen = .reveal(try RevealScreen(from: decoder))
        case "summary": screen = .summary(try SummaryScreen(from: decoder))
        case "reflection": screen = .reflection(try WeeklyReflection(from: decoder))
        case "claim": screen = .claim(try ClaimScreen(from: decoder))
        case "pairing": screen = .pairing(try PairingScreen(from: decoder))
        case "intro": screen = .intro(try IntroScreen(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: try decoder.container(keyedBy: Key.self), debugDescription: "unknown screen \(kind)")
        }
    }
}

/// Every line the box sends. `type` says which fields are there:
/// - `hello`: `protocol`, `box`;
/// - `reply`: `id`, `command`, `ok`, and `error` when not ok; `state` adds `screen`, `notice`,
///   `box`; `reload` adds `applied` ("now" or "after-quest");
/// - `event`: `event` is `screen` (`screen`, `notice`), `led` / `buzzer` (`pattern`), `sound`
///   (`sound`), `press` (`button`, `pressed`), `reminder` (`routine`), `reflection`
///   (`reflection`), `box` (`box`), `claim` (`claim`: a PIN claim moved on, PAR-2), `speak`
///   (`words`: what the voice says, #35), `speech-cut` (the voice stopped mid-word);
/// - `error`: `error`, then the box closes the connection (too many clients).
/// No message carries a monotonic time, so nothing tells a running task's elapsed time (GAME-2).
public struct BoxMessage: Codable, Equatable, Sendable {
    public var type: String
    public var `protocol`: Int?
    public var id: String?
    public var command: String?
    public var ok: Bool?
    public var error: String?
    public var event: String?
    public var screen: ScreenPayload?
    public var notice: String?
    public var pattern: String?
    public var sound: String?
    public var button: String?
    public var pressed: Bool?
    public var routine: String?
    public var reflection: WeeklyReflection?
    public var applied: String?
    public var box: BoxStatus?
    public var claim: ClaimUpdate?
    public var words: String?

    public init(type: String) { self.type = type }

    public static func hello(_ box: BoxStatus) -> BoxMessage {
        var m = BoxMessage(type: "hello")
        m.protocol = BoxProtocol.version
        m.box = box
        return m
    }

    public static func reply(to request: BoxRequest, error: String? = nil) -> BoxMessage {
        var m = BoxMessage(type: "reply")
        m.id = request.id
        m.command = request.command
        m.ok = error == nil
        m.error = error
        return m
    }

    /// The reply to a line that could not be read as a request.
    public static func refusal(_ error: BoxProtocolError) -> BoxMessage {
        var m = BoxMessage(type: "reply")
        m.ok = false
        m.error = error.description
        return m
    }

    public static func event(_ name: String, _ fill: (inout BoxMessage) -> Void = { _ in }) -> BoxMessage {
        var m = BoxMessage(type: "event")
        m.event = name
        fill(&m)
        return m
    }

    /// The events an effect of the machine is told as (timers and reads are not told). The
    /// weekly reflection is a screen and also its own `reflection` event.
    public static func events(for effect: QuestEffect, notice: String? = nil) -> [BoxMessage] {
        switch effect {
        case .display(.reflection(let r)):
            [.event("screen") { $0.screen = ScreenPayload(.reflection(r)); $0.notice = notice }, .event("reflection") { $0.reflection = r }]
        case .display(let screen): [.event("screen") { $0.screen = ScreenPayload(screen); $0.notice = notice }]
        case .playSound(let id): [.event("sound") { $0.sound = id.rawValue }]
        case .led(let pattern): [.event("led") { $0.pattern = pattern.name }]
        case .buzzer(let pattern): [.event("buzzer") { $0.pattern = pattern.name }]
        case .persist(.reminderSounded(_, let name, _)): [.event("reminder") { $0.routine = name }]
        case .claimChanged(let update): [.event("claim") { $0.claim = update }]
        case .speak(let words, _): [.event("speak") { $0.words = words }]
        case .cutSpeech: [.event("speech-cut")]
        case .persist, .scheduleTimer, .cancelTimer, .readButton: []
        }
    }

    /// One line of JSON with its newline.
    public func line() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return ((try? encoder.encode(self)) ?? Data(#"{"type":"error","error":"unencodable message"}"#.utf8)) + Data([0x0A])
    }

    public static func decode(_ line: Data) throws -> BoxMessage {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(BoxMessage.self, from: line)
    }
}
