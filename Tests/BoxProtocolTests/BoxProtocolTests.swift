import BoxProtocol
import Foundation
import QuestCore
import Testing

@Suite("box protocol (docs/box-protocol.schema.json)")
struct BoxProtocolTests {
    static let schemaPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/box-protocol.schema.json").path

    let validator: SchemaValidator
    init() throws { validator = try SchemaValidator(file: Self.schemaPath) }

    func object(_ data: Data) throws -> Any { try JSONSerialization.jsonObject(with: data) }

    func messageProblems(_ m: BoxMessage) throws -> [String] {
        let line = m.line()
        #expect(line.last == 0x0A && !line.dropLast().contains(0x0A), "one line")
        return validator.problems(try object(line.dropLast()), against: validator.resolve("#/$defs/message"))
    }

    static let cal: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        return c
    }()

    /// Every effect of a whole quest (all ratings, a level-up, a personal best), as events.
    func questEvents() -> [BoxMessage] {
        let tasks = (1...4).map { RoutineTask(id: UUID(), name: "t\($0)", displayName: "Task \($0)") }
        let routine = Routine(id: UUID(), name: "r", displayName: "Morning", activeDays: Array(1...7), tasks: tasks)
        var world = QuestWorld(routines: [routine], profile: PlayerProfile(totalXP: 90, sessionsCompleted: 5), calendar: Self.cal, bootID: "b")
        // Last week had a quest: its reflection comes before this one (REFL-1).
        let start = Date(timeIntervalSince1970: 1_780_000_000), lastWeek = start.addingTimeInterval(-7 * 86_400)
        let played = GameSession(
            id: UUID(), routineID: routine.id, routineDisplayName: "Morning", startedAt: lastWeek, startedMonotonicNanos: 0, bootID: "a",
            completedAt: lastWeek.addingTimeInterval(300), status: .completed, isCalibration: false)
        let snapshot = EstimationSnapshot(
            taskID: tasks[0].id, taskDisplayName: "Task 1", routineDisplayName: "Morning", estimatedSeconds: 120, actualSeconds: 130,
            recordedAt: lastWeek.addingTimeInterval(200), isCalibration: false)
        world.pendingReflection = WeeklyReflectionEngine.pendingReflection(
            snapshots: [snapshot], sessions: [played], now: start, calendar: Self.cal, dismissedWeek: nil)
        var sim = QuestSimulator(state: QuestState(world: world), wallClockStart: start, ids: .random)
        sim.start()
        let s: Int64 = 1_000_000_000
        var t = s
        func tap(_ role: ButtonRole) {
            sim.press(role, at: t)
            sim.release(role, at: t + 80_000_000)
            t += s
        }
        tap(.lock)  // the reflection
        tap(.lock)
        for actual in [120, 150, 200, 600] as [Int64] {
            tap(.lock)
            t += actual * s - s
            tap(.stop)
            tap(.lock)
        }
        sim.advance(to: t + 60 * s)
        return sim.allEffects.flatMap { BoxMessage.events(for: $0) }
    }

    @Test("every event of a quest, hello, replies and box status keep the schema")
    func messagesKeepTheSchema() throws {
        let events = questEvents()
        #expect(Set(events.compactMap { $0.screen?.kind }) == ["idle", "reflection", "estimating", "active", "reveal", "summary"])
        #expect(events.contains { $0.event == "reflection" && $0.reflection?.questsCompleted == 1 })
        #expect(Set(events.compactMap { $0.pattern }).isSuperset(of: ["reveal-spot_on", "reveal-close", "reveal-off", "reveal-way_off", "celebration"]))
        let box = BoxStatus(board: "questbox-sim", soundDevice: "null", clockTrusted: true, dataVersion: 3, unsavedPlays: 0, phase: "idle", buttonCheck: true)
        var state = BoxMessage.reply(to: BoxRequest(command: "state", id: "7"))
        state.screen = events.first?.screen
        state.box = box
        var reload = BoxMessage.reply(to: BoxRequest(command: "reload"))
        reload.applied = "after-quest"
        let others: [BoxMessage] = [
            .hello(box), state, reload, .reply(to: BoxRequest(command: "press"), error: "press: no"),
            .refusal(BoxProtocolError("not a JSON object on one line")), .event("press") { $0.button = "lock"; $0.pressed = true },
            .event("box") { $0.box = box }, .event("reminder") { $0.routine = "Morning" },
            .event("claim") { $0.claim = ClaimUpdate(id: "claim-0a1b", progress: .ended, reason: .questStarted) },
            .event("screen") { $0.screen = ScreenPayload(.claim(ClaimScreen(reset: true, holding: false, match: "471"))) },
        ]
        for m in events + others { #expect(try messageProblems(m) == [], "\(String(decoding: m.line(), as: UTF8.self))") }
    }

    @Test("the schema has teeth: an elapsed time on the active screen, an unknown field or type is refused")
    func schemaRefuses() throws {
        let message = try #require(questEvents().first { $0.screen?.kind == "active" })
        var json = try #require(try object(message.line().dropLast()) as? [String: Any])
        var screen = try #require(json["screen"] as? [String: Any])
        screen["elapsedSeconds"] = 12
        json["screen"] = screen
        #expect(validator.problems(json, against: validator.resolve("#/$defs/message")) == [".screen: matches 0 of the oneOf choices"])
        #expect(!validator.problems(["type": "gossip"], against: validator.resolve("#/$defs/message")).isEmpty)
        #expect(!validator.problems(["type": "event", "lockMonotonicNanos": 5], against: validator.resolve("#/$defs/message")).isEmpty)
        #expect(!validator.problems(["type": "reply", "ok": 1], against: validator.resolve("#/$defs/message")).isEmpty)
        #expect(!validator.problems(["command": "claim", "claim": "a b\u{1B}"], against: validator.resolve("#/$defs/request")).isEmpty)
    }

    @Test("requests: what clients send keeps the schema; every bad line is one reply naming the problem")
    func requests() throws {
        let samples = [
            BoxRequest(command: "subscribe"), BoxRequest(command: "state", id: "a"), BoxRequest(command: "reload"),
            BoxRequest(command: "test-output", led: "red", buzzer: "reveal-close", sound: "level_up"),
            BoxRequest(command: "press", button: "stop", action: "down"),
            BoxRequest(command: "button-check", action: "stop"),
            BoxRequest(command: "claim", action: "start", claim: "claim-0a1b", reset: true, match: "047"),
        ]
        for r in samples {
            let data = try JSONEncoder().encode(r)
            #expect(validator.problems(try object(data), against: validator.resolve("#/$defs/request")) == [])
            #expect(try BoxRequest.parse([UInt8](data)).get() == r)
        }
        let bad: [(String, String)] = [
            ("{", "not a JSON object on one line"),
            ("[]", "not a JSON object on one line"),
            (#"{"id":"x"}"#, "command: missing"),
            (#"{"command":5}"#, "command: wrong type"),
            (#"{"command":"state","id":7}"#, "id: wrong type"),
            (#"{"command":"rm -rf\u001b[2J"}"#, #"command: "rm -rf\u{1B}[2J" is unknown (commands: subscribe, state, reload, test-output, press, touch, button-check, claim, pair, remind, mute)"#),
        ]
        for (line, message) in bad {
            guard case .failure(let error) = BoxRequest.parse(Array(line.utf8)) else { Issue.record("accepted \(line)"); continue }
            #expect(error.description == message)
        }
        let long = [UInt8](repeating: 0x20, count: BoxProtocol.maximumLineBytes + 1)
        guard case .failure(let error) = BoxRequest.parse(long) else { Issue.record("accepted a long line"); return }
        #expect(error.description == "request longer than 65536 bytes")
    }

    @Test("screens round-trip through their flat form")
    func screenRoundTrip() throws {
        let claim = BoxMessage.event("screen") { $0.screen = ScreenPayload(.claim(ClaimScreen(reset: false, holding: true, match: "471"))) }
        for m in questEvents() + [claim] {
            guard let screen = m.screen else { continue }
            #expect(try BoxMessage.decode(m.line().dropLast()).screen == screen)
        }
    }

    @Test("the socket is found where the box puts it")
    func socketPath() {
        #expect(BoxSocketPath.forDaemon(dataDirectory: "/d", environment: [:]) == "/d/questbox.sock")
        #expect(BoxSocketPath.forDaemon(dataDirectory: "/d", environment: ["RUNTIME_DIRECTORY": "/run/questbox"]) == "/run/questbox/questbox.sock")
        #expect(BoxSocketPath.forDaemon(dataDirectory: "/d", environment: ["QUESTBOX_SOCKET": "/tmp/x.sock", "RUNTIME_DIRECTORY": "/run/q"]) == "/tmp/x.sock")
        #expect(BoxSocketPath.forClient(dataDirectory: "/d", environment: [:]) { $0 == "/run/questbox/questbox.sock" } == "/run/questbox/questbox.sock")
        #expect(BoxSocketPath.forClient(dataDirectory: "/d", environment: [:]) { _ in true } == "/d/questbox.sock")
        #expect(BoxSocketPath.forClient(dataDirectory: "/d", environment: [:]) { _ in false } == "/d/questbox.sock")
    }
}
