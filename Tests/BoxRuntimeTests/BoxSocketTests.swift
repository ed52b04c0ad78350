import BoxProtocol
import BoxRuntime
import Foundation
import GPIO
import QuestCore
@testable import QuestStore
import Testing

/// Polls `condition` every 20 ms for up to `seconds`; true once it holds.
func eventually(within seconds: Double = 2, _ condition: () throws -> Bool) rethrows -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// Reads events until `stop` says the one wanted has come (or 3 s pass); returns them all.
func events(from client: BoxClient, until stop: (BoxMessage) -> Bool) throws -> [BoxMessage] {
    var seen: [BoxMessage] = []
    while let m = try client.readMessage(timeoutMs: 3_000) {
        seen.append(m)
        if stop(m) { break }
    }
    return seen
}

extension DaemonTests {
    static func control(
        allowPress: Bool = true, clients: Int = 4, reserved: Int = 4, idleSeconds: Double = 10, queue: Int = 256 * 1024
    ) -> (String) -> BoxDaemon.ControlOptions {
        { path in
            var options = BoxDaemon.ControlOptions(socketPath: path, maximumClients: clients, allowPress: allowPress, soundDevice: { "null" })
            options.maximumQueuedBytes = queue
            options.reservedClients = reserved
            options.idleSeconds = idleSeconds
            return options
        }
    }

    /// Another process's connections to the rig's store (the CLI, the web app).
    func otherWriter(_ rig: Rig) throws -> QuestDatabase { try QuestDatabase(path: rig.db.path) }

    @Test("socket: hello, state, and every screen of a quest in order; nothing while active tells the time (GAME-2)")
    func socketStream() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        let client = try BoxClient(path: rig.socketPath)
        #expect(client.hello.protocol == BoxProtocol.version && client.hello.box?.board == "questbox-sim" && client.hello.box?.phase == "idle")
        let subscribed = try client.request(BoxRequest(command: "subscribe"))
        guard case .idle(let idle)? = subscribed.screen?.screen else { Issue.record("no idle screen: \(subscribed)"); return }
        #expect(idle.quests.map(\.name) == ["Daily Quest"])

        try rig.press("BTN_LOCK")
        var seen = try events(from: client) { $0.screen?.kind == "estimating" }
        usleep(150_000)
        try rig.press("BTN_LOCK")  // lock in
        let activeEvents = try events(from: client) { $0.screen?.kind == "active" }
        seen += activeEvents
        usleep(250_000)
        try rig.press("BTN_STOP")
        let afterStop = try events(from: client) { $0.screen?.kind == "reveal" }
        seen += afterStop
        #expect(seen.compactMap { $0.screen?.kind } == ["estimating", "active", "reveal"])
        #expect(seen.contains { $0.event == "press" && $0.button == "lock" && $0.pressed == true })
        #expect(seen.contains { $0.event == "led" && $0.pattern == "active" } && seen.contains { $0.event == "sound" && $0.sound == "lock_in" })
        // The active screen's fields: the estimate, never a time.
        let activeLine = try #require(activeEvents.last).line()
        let object = try #require(try JSONSerialization.jsonObject(with: activeLine) as? [String: Any])
        let screen = try #require(object["screen"] as? [String: Any])
        #expect(Set(screen.keys) == ["kind", "questName", "taskName", "taskNumber", "taskCount", "estimateSeconds"])
        // No line carries a monotonic time or elapsed field at all.
        for m in seen { #expect(!String(decoding: m.line(), as: UTF8.self).contains("Nanos")) }
        guard case .reveal(let reveal)? = afterStop.last?.screen?.screen else { Issue.record("no reveal"); return }
        #expect(reveal.actualSeconds > 0.2)
        let state = try client.request(BoxRequest(command: "state", id: "s1"))
        #expect(state.id == "s1" && state.ok == true && state.box?.phase == "revealing" && state.screen?.kind == "reveal")
    }

    @Test("a routine another process imports is offered at once: idle screen and the quest-available LED within 1 s")
    func followsOtherWriters() throws {
        let rig = try rig(routines: [], control: Self.control())
        defer { rig.stop() }
        // The loop draws its first screen once it runs; wait for it (a busy machine is slow to start).
        let emptyIdle = eventually(within: 10) {
            guard case .idle(let before)? = rig.display.lastShown else { return false }
            return before.quests.isEmpty
        }
        guard emptyIdle else { Issue.record("not an empty idle screen: \(String(describing: rig.display.lastShown))"); return }
        let other = try otherWriter(rig)
        try other.routines.save(Self.everyDay)
        let offered = try eventually(within: 1) {
            guard case .idle(let s)? = rig.display.lastShown else { return false }
            let blue = try rig.gpio.outputValue(line: "LED_BLUE")
            return s.quests.map(\.name) == ["Daily Quest"] && blue == true
        }
        #expect(offered, "the imported routine was not offered within 1 s")
        // Settings follow too: mute silences the next sound without a restart.
        #expect(!rig.sound.muted)
        try other.settings.update { $0.soundEnabled = false }
        #expect(eventually(within: 1) { rig.sound.muted })
    }

    @Test("restore while the box runs: the box follows the restored store, and the next play adds to it")
    func restoreWhileRunning() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        // A backup with history: 3 quests played in another box's store.
        let elsewhere = rig.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let source = try QuestDatabase(path: elsewhere + "/questbox.sqlite")
        try source.routines.save(Self.everyDay)
        for day in 0..<3 { try playQuest(source, routine: Self.everyDay, at: Date().addingTimeInterval(Double(-3 + day) * 86_400)) }
        let restoredXP = try source.profile().totalXP
        let backup = try source.backups.make(to: elsewhere + "/backup.sqlite", now: Date())
        try source.close()
        #expect(restoredXP > 0)

        let other = try otherWriter(rig)
        try other.backups.restore(from: elsewhere + "/" + backup.fileName, now: Date())
        let level = LevelCalculator.level(fromTotalXP: restoredXP)
        #expect(eventually(within: 1) {
            if case .idle(let s)? = rig.display.lastShown { s.level == level && s.calibrationSessionsLeft == 0 } else { false }
        }, "the idle screen does not show the restored level")
        // The restored plays may fall in last week: its reflection comes first (REFL-1).
        if case .idle(let s)? = rig.display.lastShown, s.reflection != nil {
            try rig.press("BTN_LOCK")
            #expect(eventually { if case .reflection? = rig.display.lastShown { true } else { false } })
            usleep(150_000)
        }
        // One play on the box: stored on top of the restored history, and shown so.
        try rig.press("BTN_LOCK")
        usleep(150_000)
        try rig.press("BTN_LOCK")
        usleep(300_000)
        try rig.press("BTN_STOP")
        usleep(150_000)
        try rig.press("BTN_LOCK")  // next: the summary
        usleep(150_000)
        try rig.press("BTN_LOCK")  // the second task
        usleep(150_000)
        try rig.press("BTN_LOCK")
        usleep(300_000)
        try rig.press("BTN_STOP")
        usleep(150_000)
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .summary = rig.display.lastShown { true } else { false } })
        guard case .summary(let summary)? = rig.display.lastShown else { return }
        let stored = try other.profile()
        #expect(stored.sessionsCompleted == 4 && stored.totalXP == restoredXP + summary.sessionXP)
        #expect(summary.totalXP == stored.totalXP)
    }

    @Test("a change during a quest waits for its end: a routine removed mid-quest finishes the quest")
    func changeDuringQuest() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        try rig.press("BTN_LOCK")
        usleep(150_000)
        try rig.press("BTN_LOCK")  // task one runs
        let other = try otherWriter(rig)
        #expect(try other.routines.remove(named: Self.everyDay.name))
        usleep(300_000)
        guard case .active? = rig.display.lastShown else { Issue.record("the quest was disturbed: \(String(describing: rig.display.lastShown))"); return }
        for line in ["BTN_STOP", "BTN_LOCK", "BTN_LOCK", "BTN_STOP", "BTN_LOCK"] {
            try rig.press(line)
            usleep(line == "BTN_LOCK" ? 300_000 : 150_000)
        }
        #expect(eventually { if case .summary = rig.display.lastShown { true } else { false } })
        #expect(try other.plays.sessions().first?.status == .completed && other.plays.estimations().count == 2)
        try rig.press("BTN_LOCK")  // back to idle: now the removal applies
        #expect(eventually { if case .idle(let s)? = rig.display.lastShown { s.quests.isEmpty } else { false } })
    }

    @Test("bad lines get an error reply and the connection stays; a full house refuses the next client; press and test-output have their rules")
    func protocolErrors() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control(allowPress: false, clients: 2, reserved: 1))
        defer { rig.stop() }
        let client = try BoxClient(path: rig.socketPath)
        try client.write(Data("{not json\n".utf8))
        #expect(try client.readMessage(timeoutMs: 2_000)?.error == "not a JSON object on one line")
        try client.write(Data(repeating: 0x41, count: 70_000) + Data("\n".utf8))
        #expect(try client.readMessage(timeoutMs: 2_000)?.error == "request longer than 65536 bytes")
        try client.write(Data(#"{"command":"dance"}"#.utf8) + Data("\n".utf8))
        #expect(try client.readMessage(timeoutMs: 2_000)?.error?.hasPrefix(#"command: "dance" is unknown"#) == true)
        #expect(try client.request(BoxRequest(command: "state")).ok == true)

        let second = try BoxClient(path: rig.socketPath)
        // This test runs as the box's own user: one reserved place more, then a full house.
        let reserved = try BoxClient(path: rig.socketPath)
        #expect(throws: BoxProtocolError.self) { try BoxClient(path: rig.socketPath) }
        _ = (second, reserved)
        try client.write(Data(" \n".utf8))
        #expect(try client.readMessage(timeoutMs: 2_000)?.error == "an empty line is not a request")

        let press = try client.request(BoxRequest(command: "press", button: "lock"))
        #expect(press.ok == false && press.error?.hasPrefix("press: this board's buttons are pressed by hand") == true)
        let bad = try client.request(BoxRequest(command: "test-output", led: "purple"))
        #expect(bad.ok == false && bad.error?.hasPrefix(#"led: "purple" is not a colour"#) == true)
        #expect(try client.request(BoxRequest(command: "test-output", led: "red", buzzer: "tap")).ok == true)
        #expect(eventually { (try? rig.gpio.outputValue(line: "LED_RED")) == true && (try? rig.gpio.outputValue(line: "LED_GREEN")) == false })
        try rig.press("BTN_LOCK")  // a quest starts: no wiring checks now
        usleep(150_000)
        let refused = try client.request(BoxRequest(command: "test-output", sound: "lock_in"))
        #expect(refused.ok == false && refused.error?.contains("a quest is running") == true)
    }

    @Test("#31 idle clients cannot shut the box's services out: one that neither subscribes nor asks is closed; subscribers stay; the box's own user has reserved places")
    func idleClientsClosed() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control(clients: 2, reserved: 2, idleSeconds: 1.5))
        defer { rig.stop() }
        let watcher = try BoxClient(path: rig.socketPath)
        _ = try watcher.request(BoxRequest(command: "subscribe"))
        let idle = [try BoxClient(path: rig.socketPath), try BoxClient(path: rig.socketPath), try BoxClient(path: rig.socketPath)]
        // The house is full now (2 + 2 reserved); the idle ones are closed within the idle time.
        for client in idle { #expect((try? client.readMessage(timeoutMs: 8_000)) == .some(nil), "an idle client was kept") }
        #expect(try watcher.request(BoxRequest(command: "state")).ok == true, "the subscriber was closed")
        let web = try BoxClient(path: rig.socketPath)
        #expect(try web.request(BoxRequest(command: "state")).ok == true)
        usleep(300_000)
        #expect(try web.request(BoxRequest(command: "state")).ok == true, "asking keeps a client")
    }

    @Test("press over the socket drives the quest where the board allows it")
    func socketPress() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        let client = try BoxClient(path: rig.socketPath)
        #expect(try client.request(BoxRequest(command: "press", button: "lock")).ok == true)
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })
        #expect(try client.request(BoxRequest(command: "press", button: "up", action: "down")).ok == true)
        usleep(1_500_000)  // held: the estimate repeats upward
        #expect(try client.request(BoxRequest(command: "press", button: "up", action: "up")).ok == true)
        guard case .estimating(let s)? = rig.display.lastShown else { Issue.record("not estimating"); return }
        #expect(s.estimateSeconds > 150, "held up for 1.5 s: \(s.estimateSeconds)")
        let wrong = try client.request(BoxRequest(command: "press", button: "start"))
        #expect(wrong.ok == false && wrong.error == #"button: "start" is not one of lock, stop, up, down"#)
    }

    @Test("#33 touch over the socket drives the quest on a board whose buttons are pressed by hand (a paired touch kiosk is its buttons too)")
    func socketTouch() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control(allowPress: false))
        defer { rig.stop() }
        let client = try BoxClient(path: rig.socketPath)
        #expect(try client.request(BoxRequest(command: "press", button: "lock")).ok == false)
        #expect(try client.request(BoxRequest(command: "touch", button: "lock", action: "down")).ok == true)
        #expect(try client.request(BoxRequest(command: "touch", button: "lock", action: "up")).ok == true)
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })
        let wrong = try client.request(BoxRequest(command: "touch", button: "lock", action: "wiggle"))
        #expect(wrong.ok == false && wrong.error == #"action: "wiggle" is not one of down, up, tap"#)
    }

    @Test("button-check: the holder is told each press, which starts no quest; the box lets go when the holder leaves or stops")
    func buttonCheckHeldByAClient() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        let watcher = try BoxClient(path: rig.socketPath)
        _ = try watcher.request(BoxRequest(command: "subscribe"))
        var holder: BoxClient? = try BoxClient(path: rig.socketPath)
        let held = try #require(holder).request(BoxRequest(command: "button-check"))
        #expect(held.ok == true && held.box?.buttonCheck == true)
        #expect(eventually { if case .idle(let s)? = rig.display.lastShown { s.notice == QuestMachine.buttonCheckNotice } else { false } })

        try rig.press("BTN_LOCK")
        let told = try events(from: try #require(holder)) { $0.event == "press" && $0.pressed == false }
        #expect(told.contains { $0.event == "press" && $0.button == "lock" && $0.pressed == true })
        #expect(try watcher.request(BoxRequest(command: "state")).box?.phase == "idle")
        // Socket presses are held too (the simulated box's buttons).
        #expect(try watcher.request(BoxRequest(command: "press", button: "lock")).ok == true)
        usleep(150_000)
        #expect(try watcher.request(BoxRequest(command: "state")).box?.phase == "idle")
        let wrong = try watcher.request(BoxRequest(command: "button-check", action: "pause"))
        #expect(wrong.ok == false && wrong.error == #"action: "pause" is not one of start, stop"#)

        holder = nil  // the page went away: the check ends with its connection
        let after = try events(from: watcher) { $0.event == "box" && $0.box?.buttonCheck == false }
        #expect(after.last?.box?.buttonCheck == false)
        #expect(eventually { if case .idle(let s)? = rig.display.lastShown { s.notice == nil } else { false } })
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })

        // Not during a quest; and a holder's own "stop" lets go too (after the quest).
        let refused = try watcher.request(BoxRequest(command: "button-check"))
        #expect(refused.ok == false && refused.error?.contains("a quest is running (estimating)") == true)
    }

    @Test("PAR-2 claim: the idle box asks on its screen; kernel-stamped STOP and DOWN held 3 s confirm it to the asker; a quest's presses never do")
    func claimConfirmedByTheAct() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        let asker = try BoxClient(path: rig.socketPath)
        // During a quest the claim waits: the box keeps its screen, and lock-in counts for the quest.
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })
        var seen: [BoxMessage] = []
        let taken = try asker.request(BoxRequest(command: "claim", claim: "c-1", reset: false, match: "471")) { seen.append($0) }
        #expect(taken.ok == true)
        // Told before the reply (the box steps the machine while answering).
        #expect(seen.compactMap(\.claim) == [ClaimUpdate(id: "c-1", progress: .waiting)])
        usleep(150_000)
        let lockIn = rig.now()
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .active = rig.display.lastShown { true } else { false } })
        // STOP and DOWN held together during the task (DOWN first: STOP's press would end it).
        try rig.gpio.edge(line: "BTN_DOWN", rising: true, atNanos: lockIn + 300_000_000)
        try rig.gpio.edge(line: "BTN_STOP", rising: true, atNanos: lockIn + 2_500_000_000)
        usleep(3_500_000)
        try rig.gpio.edge(line: "BTN_DOWN", rising: false, atNanos: rig.now())
        try rig.gpio.edge(line: "BTN_STOP", rising: false, atNanos: rig.now() + 10_000_000)
        let revealed = try events(from: asker) { $0.screen?.kind == "reveal" }
        #expect(!revealed.contains { $0.event == "claim" }, "a quest's presses moved the claim: \(revealed.compactMap(\.claim))")
        // The second task, played through; then the summary left, and the idle box asks.
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })
        usleep(150_000)
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .active = rig.display.lastShown { true } else { false } })
        usleep(2_200_000)                                 // past GAME-4's guard
        try rig.press("BTN_STOP")
        #expect(eventually { if case .reveal = rig.display.lastShown { true } else { false } })
        usleep(150_000)
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .summary = rig.display.lastShown { true } else { false } })
        usleep(150_000)
        #expect(!(try events(from: asker) { $0.screen?.kind == "summary" }).contains { $0.event == "claim" })
        try rig.press("BTN_UP")
        let shown = try events(from: asker) { $0.event == "claim" }
        #expect(shown.last?.claim == ClaimUpdate(id: "c-1", progress: .shown))
        #expect(eventually { rig.display.lastShown == .claim(ClaimScreen(reset: false, holding: false, match: "471")) })
        #expect(try asker.request(BoxRequest(command: "state")).screen?.kind == "claim")
        // The act: both pressed after the box asked, held 3 s.
        let act = rig.now()
        try rig.gpio.edge(line: "BTN_STOP", rising: true, atNanos: act)
        try rig.gpio.edge(line: "BTN_DOWN", rising: true, atNanos: act + 50_000_000)
        // Nothing else is told during the 3 s: read with a longer wait than `events` has.
        var confirmed: [BoxMessage] = []
        while let m = try asker.readMessage(timeoutMs: 6_000) {
            confirmed.append(m)
            if m.claim?.progress == .confirmed || m.claim?.progress == .ended { break }
        }
        confirmed = confirmed.filter { $0.claim != nil }
        #expect(confirmed.compactMap(\.claim?.progress) == [.holding, .confirmed])
        #expect(rig.now() - act >= QuestMachine.claimHoldNanos, "confirmed before 3 s")
        try rig.gpio.edge(line: "BTN_STOP", rising: false, atNanos: rig.now())
        try rig.gpio.edge(line: "BTN_DOWN", rising: false, atNanos: rig.now() + 10_000_000)
        #expect(eventually { if case .idle(let s)? = rig.display.lastShown { s.notice == ScreenPhrases.claimAllowed } else { false } })
    }

    @Test("PRIV-1 pair: the idle box shows a phone's code and says yes; another phone, a claim or a quest is refused in one line; done only while it shows; a kernel-stamped press takes it away")
    func phoneCode() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        let web = try BoxClient(path: rig.socketPath)
        #expect(try web.request(BoxRequest(command: "pair", pair: "phone-1", code: "538102")).ok == true)
        #expect(eventually { rig.display.lastShown == .pairing(PairingScreen(code: "538102")) })
        #expect(try web.request(BoxRequest(command: "state")).screen?.kind == "pairing")
        let second = try web.request(BoxRequest(command: "pair", pair: "phone-2", code: "111111"))
        #expect(second.ok == false && second.error == "pair: the box shows another phone's code; one at a time")
        let claim = try web.request(BoxRequest(command: "claim", claim: "c-1", match: "471"))
        #expect(claim.ok == true, "a claim is taken and waits")
        #expect(rig.display.lastShown == .pairing(PairingScreen(code: "538102")), "the code stays while the claim waits")
        _ = try web.request(BoxRequest(command: "claim", action: "stop", claim: "c-1"))
        #expect(try web.request(BoxRequest(command: "pair", action: "done", pair: "phone-1")).ok == true)
        #expect(eventually { if case .idle(let s)? = rig.display.lastShown { s.notice == ScreenPhrases.phonePaired } else { false } })
        let late = try web.request(BoxRequest(command: "pair", action: "done", pair: "phone-1"))
        #expect(late.ok == false && late.error?.contains("no longer shows that code") == true)

        #expect(try web.request(BoxRequest(command: "pair", pair: "phone-3", code: "204060")).ok == true)
        #expect(eventually { rig.display.lastShown == .pairing(PairingScreen(code: "204060")) })
        try rig.press("BTN_UP")
        #expect(eventually { if case .idle = rig.display.lastShown { true } else { false } })
        #expect(try web.request(BoxRequest(command: "pair", action: "done", pair: "phone-3")).ok == false, "a button took it away")
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })
        let playing = try web.request(BoxRequest(command: "pair", pair: "phone-4", code: "204060"))
        #expect(playing.ok == false && playing.error?.contains("a quest is running (estimating)") == true)
        for code in [nil, "", "12345", "1234567", "12345a", "١٢٣٤٥٦"] {
            let bad = try web.request(BoxRequest(command: "pair", pair: "phone-5", code: code))
            #expect(bad.ok == false, "\(code.debugDescription)")
        }
    }

    @Test("PAR-2 claim: the asker leaving takes it back; LOCK plays and ends it; #47: a second claim is refused while one stands; a bad name, code or action is one line")
    func claimEnds() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        let watcher = try BoxClient(path: rig.socketPath)
        _ = try watcher.request(BoxRequest(command: "subscribe"))
        var asker: BoxClient? = try BoxClient(path: rig.socketPath)
        #expect(try #require(asker).request(BoxRequest(command: "claim", claim: "c-2", match: "471")).ok == true)
        #expect(eventually { if case .claim = rig.display.lastShown { true } else { false } })
        asker = nil
        let cancelled = try events(from: watcher) { $0.claim?.progress == .ended }
        #expect(cancelled.last?.claim == ClaimUpdate(id: "c-2", progress: .ended, reason: .cancelled))
        #expect(eventually { if case .idle = rig.display.lastShown { true } else { false } })

        let player = try BoxClient(path: rig.socketPath)
        #expect(try player.request(BoxRequest(command: "claim", claim: "c-3", reset: true, match: "471")).ok == true)
        #expect(eventually { rig.display.lastShown == .claim(ClaimScreen(reset: true, holding: false, match: "471")) })
        // #47: while it stands, another client's claim is refused and the box keeps the first.
        let second = try watcher.request(BoxRequest(command: "claim", claim: "c-5", match: "208"))
        #expect(second.ok == false && second.error == "claim: the box shows another claim; one at a time")
        #expect(rig.display.lastShown == .claim(ClaimScreen(reset: true, holding: false, match: "471")))
        try rig.press("BTN_LOCK")
        let ended = try events(from: player) { $0.claim?.progress == .ended }
        #expect(ended.last?.claim == ClaimUpdate(id: "c-3", progress: .ended, reason: .questStarted))
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })

        let nameless = try watcher.request(BoxRequest(command: "claim"))
        #expect(nameless.ok == false && nameless.error == "claim: give the claim a name of 1 to 64 letters, digits or dashes")
        let hostile = try watcher.request(BoxRequest(command: "claim", claim: "x\u{1B}[2J"))
        #expect(hostile.ok == false)
        for match in [nil, "", "12", "1234", "12a", "١٢٣"] {
            let unmatched = try watcher.request(BoxRequest(command: "claim", claim: "c-6", match: match))
            #expect(unmatched.ok == false && unmatched.error == "claim: give the code the asking page shows (match), 3 digits", "\(match ?? "nil")")
        }
        let wrong = try watcher.request(BoxRequest(command: "claim", action: "pause", claim: "c-4"))
        #expect(wrong.ok == false && wrong.error == #"action: "pause" is not one of start, stop"#)
        let notOurs = try watcher.request(BoxRequest(command: "claim", action: "stop", claim: "c-9"))
        #expect(notOurs.ok == false && notOurs.error == #"claim: "c-9" is not the claim the box shows"#)
    }

    @Test("#31 a restore holds the box: refused while a quest is in play; once held, a press starts no quest until it lets go")
    func restoreHold() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })
        guard case .refused(let reason) = BoxHold.take(socketPath: rig.socketPath) else { Issue.record("held during a quest"); return }
        #expect(reason == "a quest is being played on the box; restore once it is over (nothing was changed)")
        // The player pauses the quest (stop held 3 s); then the box can be held.
        let t = rig.now()
        try rig.gpio.edge(line: "BTN_STOP", rising: true, atNanos: t)
        usleep(3_300_000)
        try rig.gpio.edge(line: "BTN_STOP", rising: false, atNanos: rig.now())
        #expect(eventually { if case .idle = rig.display.lastShown { true } else { false } })
        guard case .held(let hold) = BoxHold.take(socketPath: rig.socketPath) else { Issue.record("not held when idle"); return }
        usleep(150_000)
        try rig.press("BTN_LOCK")
        usleep(300_000)
        #expect(rig.daemon.state.phase.name == "idle", "a press started a quest during the restore")
        hold.release()
        #expect(eventually { !rig.daemon.state.buttonCheck })
        usleep(150_000)
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .estimating = rig.display.lastShown { true } else { false } })
        #expect(BoxHold.take(socketPath: rig.directory + "/none.sock").isNoBox)
    }

    @Test("button-check stop: two holders, the box lets go only when both have")
    func buttonCheckTwoHolders() throws {
        let rig = try rig(routines: [Self.everyDay], control: Self.control())
        defer { rig.stop() }
        let first = try BoxClient(path: rig.socketPath)
        let second = try BoxClient(path: rig.socketPath)
        #expect(try first.request(BoxRequest(command: "button-check")).box?.buttonCheck == true)
        #expect(try second.request(BoxRequest(command: "button-check", action: "start")).box?.buttonCheck == true)
        #expect(try first.request(BoxRequest(command: "button-check", action: "stop")).box?.buttonCheck == true)
        #expect(try second.request(BoxRequest(command: "button-check", action: "stop")).box?.buttonCheck == false)
    }

    @Test("a client that stops reading is dropped; the box and the other clients go on")
    func slowClientDropped() throws {
        let rig = try rig(routines: [], control: Self.control(queue: 16 * 1024))
        defer { rig.stop() }
        let slow = try BoxClient(path: rig.socketPath)
        try slow.send(BoxRequest(command: "subscribe"))  // … and never reads again
        let fast = try BoxClient(path: rig.socketPath)
        // Each wiring check pushes its events to the slow subscriber.
        for i in 0..<4_000 {
            let reply = try fast.request(BoxRequest(command: "test-output", sound: "estimate_tick"))
            #expect(reply.ok == true, "request \(i)")
            if reply.ok != true { break }
        }
        // The slow client was closed: after what it had buffered, the stream ends.
        var ended = false
        for _ in 0..<100_000 { if try slow.readLine(timeoutMs: 2_000) == nil { ended = true; break } }
        #expect(ended)
        #expect(try fast.request(BoxRequest(command: "state")).ok == true)
    }

    @Test("REFL-1 on the box: last week's reflection before the first quest, sent to subscribers; one lock press goes on, never again")
    func reflectionOnTheBox() throws {
        let lastWeek = try #require(Calendar.current.date(byAdding: .day, value: -7, to: Date()))
        let rig = try rig(routines: [Self.everyDay], control: Self.control(), prepare: { db, _ in
            try playQuest(db, routine: Self.everyDay, at: lastWeek)
        })
        defer { rig.stop() }
        let client = try BoxClient(path: rig.socketPath)
        _ = try client.request(BoxRequest(command: "subscribe"))
        try rig.press("BTN_LOCK")
        let seen = try events(from: client) { $0.event == "reflection" }
        let reflection = try #require(seen.last?.reflection)
        #expect(reflection.questsCompleted == 1 && reflection.daysPlayedThisWeek == 1)
        #expect(seen.contains { $0.screen?.kind == "reflection" } && seen.contains { $0.event == "led" && $0.pattern == "reflection" })
        #expect(try client.request(BoxRequest(command: "state")).box?.phase == "reflection")
        usleep(150_000)
        try rig.press("BTN_LOCK")
        _ = try events(from: client) { $0.screen?.kind == "estimating" }
        #expect(try rig.db.reflectionTracking().dismissedWeek == reflection.weekIdentifier)
        // Abandon, come back: the quest starts at once, and a re-read of the store keeps it so.
        try rig.gpio.edge(line: "BTN_STOP", rising: true, atNanos: rig.now())
        #expect(eventually(within: 6) { if case .idle? = rig.display.lastShown { true } else { false } })  // a 3 s hold abandons
        try rig.gpio.edge(line: "BTN_STOP", rising: false, atNanos: rig.now())
        #expect(try client.request(BoxRequest(command: "reload")).ok == true)
        usleep(150_000)
        try rig.press("BTN_LOCK")
        let again = try events(from: client) { $0.screen?.kind == "estimating" }
        #expect(!again.contains { $0.event == "reflection" || $0.screen?.kind == "reflection" })
    }

    @Test("REFL-1: a reflection dismissed elsewhere (the web app) is not offered after the box re-reads the store")
    func reflectionDismissedElsewhere() throws {
        let lastWeek = try #require(Calendar.current.date(byAdding: .day, value: -7, to: Date()))
        let rig = try rig(routines: [Self.everyDay], control: Self.control(), prepare: { db, _ in
            try playQuest(db, routine: Self.everyDay, at: lastWeek)
        })
        defer { rig.stop() }
        guard case .idle(let before)? = rig.display.lastShown, let reflection = before.reflection else {
            Issue.record("no reflection pending at idle"); return
        }
        try otherWriter(rig).plays.apply(.reflectionDismissed(weekIdentifier: reflection.weekIdentifier), wallClockTrusted: true)
        #expect(eventually { if case .idle(let s)? = rig.display.lastShown { s.reflection == nil } else { false } })
        try rig.press("BTN_LOCK")
        #expect(eventually { if case .estimating? = rig.display.lastShown { true } else { false } })
    }

    @Test("idle with a subscribed client: still no wake-ups")
    func idleWakeupsWithClient() throws {
        let rig = try rig(routines: [], control: Self.control())
        defer { rig.stop() }
        let client = try BoxClient(path: rig.socketPath)
        _ = try client.request(BoxRequest(command: "subscribe"))
        usleep(400_000)
        let before = rig.daemon.wakeups
        usleep(600_000)
        #expect(rig.daemon.wakeups == before)
    }
}

/// One completed two-task quest written as the box writes it, at `date`.
func playQuest(_ db: QuestDatabase, routine: Routine, at date: Date) throws {
    let session = GameSession(
        id: UUID(), routineID: routine.id, routineDisplayName: routine.displayName, startedAt: date, startedMonotonicNanos: 1,
        bootID: "other-box", isCalibration: false)
    try db.plays.apply(.sessionStarted(session), wallClockTrusted: true)
    var xp = GameRules.standard.xpSessionCompletionBonus
    for (i, task) in routine.tasks.enumerated() {
        let result = TimeEstimationScorer.score(estimated: 60, actual: 61)
        let e = TaskEstimation(
            id: UUID(), sessionID: session.id, taskID: task.id, taskDisplayName: task.displayName, routineDisplayName: routine.displayName,
            orderIndex: i, result: result, xpEarned: XPEngine.xpForEstimation(rating: result.rating), isCalibration: false,
            recordedAt: date, lockMonotonicNanos: 1, stopMonotonicNanos: 61_000_000_001, bootID: "other-box")
        xp += e.xpEarned
        try db.plays.apply(.estimationCompleted(e), wallClockTrusted: true)
    }
    var done = session
    done.completedAt = date
    done.status = .completed
    done.xpEarned = xp
    try db.plays.apply(.sessionCompleted(done), wallClockTrusted: true)
}
