import BoxProtocol
import Foundation
import HomeLink
import HomeLinkTestSupport
import MQTT
import QuestStore
import Testing
import TestSupport

/// #34 end to end: a real Mosquitto on a loopback port, the simulated box and `questbox-link`
/// as a family runs them, and an observer subscribed as Home Assistant is.
@Suite("#34: questbox link against a real Mosquitto", .serialized)
struct LinkEndToEndTests {
    /// The box's topic, read from the store's own id.
    func base(_ rig: LinkRig) throws -> String {
        LinkTopic.standard(boxID: try QuestDatabase(path: "\(rig.data)/questbox.sqlite").boxID())
    }

    func state(_ observer: Observer, _ base: String, seconds: Double = 10, _ accept: @escaping ([String: Any]) -> Bool) -> [String: Any]? {
        Observer.json(observer.wait(for: base + "/state", seconds: seconds) { Observer.json($0).map(accept) ?? false })
    }

    @Test("discovery as Home Assistant requires it; the state within 1 s of a press; remind now and mute reach the box; #48: the quest through its reveal, a refusal told, a routine gone cleared")
    func discoveryStateAndCommands() throws {
        let rig = try LinkRig()
        defer { rig.stop() }
        let broker = try Broker(directory: rig.directory)
        try rig.startLinked(to: broker, environment: ["QUESTBOX_NAME": "kitchen-box.home.arpa"])
        let observer = try Observer(port: broker.port)
        let base = try base(rig)
        #expect(observer.wait(for: base + "/availability") { $0 == "online" } != nil, "\(rig.linkLog)")
        #expect(state(observer, base) { $0["state"] as? String == "idle" } != nil, "\(rig.linkLog)")

        // Retained configs, the device named by the box's board.
        let node = "questbox_" + base.split(separator: "/").last!
        _ = observer.wait(for: "homeassistant/sensor/\(node)/state/config") { $0.contains("\"model\":\"questbox-sim\"") }
        let configs = observer.latest(under: "homeassistant/").filter { $0.key.hasSuffix("/config") && !$0.value.isEmpty }
        let device = LinkDevice(
            boxID: String(base.split(separator: "/").last!), board: "questbox-sim",
            version: try #require(Observer.json(configs["homeassistant/sensor/\(node)/state/config"])?["device"] as? [String: Any])["sw_version"] as? String ?? "",
            name: "kitchen-box", web: "http://kitchen-box.local:8080/")
        #expect(configs.count == 13, "12 entities and one routine: \(configs.keys.sorted())")
        try DiscoverySchema.check(
            configs.map { LinkMessage(topic: $0.key, payload: $0.value, retain: true) }, prefix: "homeassistant", device: device, topics: LinkTopics(base: base))

        // #48: a parent locked the sound switch: Home Assistant hears why its switch did nothing.
        let store = try QuestDatabase(path: "\(rig.data)/questbox.sqlite")
        try store.settings.update { $0.game.lockedSwitches = [.mute] }
        _ = try rig.ask(BoxRequest(command: "reload"))   // as the CLI and the web app tell the box
        observer.connection.publish(topic: base + "/mute/set", payload: "ON", retain: false)
        let refused = Observer.json(observer.wait(for: base + "/event") { $0.contains("command_refused") })
        #expect(refused?["command"] as? String == "mute" && refused?["reason"] as? String == "mute: a parent locked the sound switch", "\(rig.linkLog)")
        #expect(try store.settings.current().soundEnabled == true)
        try store.settings.update { $0.game.lockedSwitches = [] }
        _ = try rig.ask(BoxRequest(command: "reload"))

        // REM-1 from Home Assistant's button: the chime's reminder is logged and told.
        observer.forget()
        #expect(observer.connection.publish(topic: base + "/remind/set", payload: "PRESS", retain: false), "the observer could not publish")
        let event = Observer.json(observer.wait(for: base + "/event") { $0.contains("\"reminder\"") })
        #expect(event?["quest"] as? String == "Morning Quest", "\(rig.linkLog)")
        #expect(state(observer, base) { $0["last_reminder_quest"] as? String == "Morning Quest" } != nil)
        #expect(try QuestDatabase(path: "\(rig.data)/questbox.sqlite").plays.remindersSounded().count == 1)

        // A press on the box: the state follows within a second.
        observer.forget()
        let pressed = Date()
        try rig.ask(BoxRequest(command: "press", button: "lock", action: "tap"))
        let estimating = state(observer, base, seconds: 5) { $0["state"] as? String == "estimating" }
        #expect(estimating?["quest"] as? String == "Morning Quest")
        let took = observer.heard.first { $0.topic == base + "/state" && $0.payload.contains("\"estimating\"") }.map { $0.at.timeIntervalSince(pressed) }
        #expect((took ?? 99) < 1.0, "the state came \(took ?? -1) s after the press")

        // The mute switch: written by the box through its own path, told back as the switch's state.
        observer.connection.publish(topic: base + "/mute/set", payload: "ON", retain: false)
        #expect(state(observer, base) { $0["muted"] as? Bool == true } != nil, "\(rig.linkLog)")
        #expect(try QuestDatabase(path: "\(rig.data)/questbox.sqlite").settings.current().soundEnabled == false)

        // REM-1: a second reminder within 10 minutes of the one the box took goes no further
        // than the link, which says so in its log (the box refuses one during a quest anyway:
        // ControlCommandTests).
        observer.connection.publish(topic: base + "/remind/set", payload: "PRESS", retain: false)
        for _ in 0..<100 where !rig.linkLog.contains("reason=reminder_too_soon") { usleep(50_000) }
        #expect(rig.linkLog.contains("MQTT command ignored") && rig.linkLog.contains("reason=reminder_too_soon"), "\(rig.linkLog)")
        #expect(try QuestDatabase(path: "\(rig.data)/questbox.sqlite").plays.remindersSounded().count == 1)

        // #48: the quest stays named through the reveal ("Quest in play" flickered to "").
        try rig.ask(BoxRequest(command: "press", button: "lock", action: "tap"))
        #expect(state(observer, base, seconds: 5) { $0["state"] as? String == "active" }?["quest"] as? String == "Morning Quest")
        usleep(2_300_000)   // past GAME-4's 2 s guard
        try rig.ask(BoxRequest(command: "press", button: "stop", action: "tap"))
        #expect(state(observer, base, seconds: 5) { $0["state"] as? String == "revealing" }?["quest"] as? String == "Morning Quest", "\(rig.linkLog)")

        // #48: a routine deleted takes its retained topic along, as its entity's config.
        let db = try QuestDatabase(path: "\(rig.data)/questbox.sqlite")
        let routineTopic = base + "/routine/" + (try #require(try db.routines.all().first)).id.uuidString.lowercased().prefix(8)
        for routine in try db.routines.all() { _ = try db.routines.remove(id: routine.id) }
        #expect(observer.wait(for: routineTopic, seconds: 10) { $0.isEmpty } != nil, "\(rig.linkLog)")
        let later = try Observer(port: broker.port)
        #expect(later.wait(for: base + "/state", seconds: 5) { !$0.isEmpty } != nil)
        usleep(300_000)
        #expect(later.latest(under: base + "/routine/").filter { !$0.value.isEmpty }.isEmpty, "a later subscriber still gets the deleted routine's topic")
    }

    @Test("the broker restarts: the link connects again and republishes its retained configs; killed, its last will says offline")
    func restartAndLastWill() throws {
        let rig = try LinkRig()
        defer { rig.stop() }
        let broker = try Broker(directory: rig.directory)
        try rig.startLinked(to: broker)
        let base = try base(rig)
        let node = "questbox_" + base.split(separator: "/").last!
        var observer = try Observer(port: broker.port)
        #expect(observer.wait(for: base + "/availability") { $0 == "online" } != nil, "\(rig.linkLog)")

        broker.stop()
        try broker.start()
        // A new subscriber (nothing kept: persistence is off) gets the configs again, retained.
        observer = try Observer(port: broker.port)
        let config = observer.wait(for: "homeassistant/button/\(node)/remind/config", seconds: 20) { !$0.isEmpty }
        #expect(config != nil, "\(rig.linkLog)")
        #expect(observer.wait(for: base + "/availability", seconds: 5) { $0 == "online" } != nil)
        // The whole republish (13 configs), before a later subscriber comes: what the link publishes
        // while a subscriber is connected reaches it live, without the retained flag.
        func configs(_ o: Observer) -> Int { o.latest(under: "homeassistant/").filter { $0.key.hasSuffix("/config") && !$0.value.isEmpty }.count }
        for _ in 0..<250 where configs(observer) < 13 { usleep(20_000) }
        #expect(configs(observer) == 13, "\(rig.linkLog)")
        // And the broker keeps them: a subscriber that comes later gets every one, retained.
        let later = try Observer(port: broker.port)
        #expect(later.wait(for: base + "/availability", seconds: 5) { $0 == "online" } != nil)
        for _ in 0..<250 where configs(later) < 13 { usleep(20_000) }
        #expect(configs(later) == 13)
        let kept = later.heard.filter { $0.topic.hasSuffix("/config") || $0.topic == base + "/availability" }
        let firsts = Dictionary(kept.map { ($0.topic, $0.retained) }, uniquingKeysWith: { first, _ in first })
        #expect(firsts.count == 14 && firsts.values.allSatisfy { $0 }, "not retained: \(firsts.filter { !$0.value }.keys.sorted())")

        kill(rig.link!.processIdentifier, SIGKILL)
        rig.link!.waitUntilExit()
        #expect(observer.wait(for: base + "/availability", seconds: 10) { $0 == "offline" } != nil, "the broker told the last will")
    }

    @Test("credentials: a wrong password is refused in the log and publishes nothing; the right one connects; the password never shows")
    func credentials() throws {
        let rig = try LinkRig()
        defer { rig.stop() }
        let passwords = (rig.directory as NSString).appendingPathComponent("passwords")
        let made = try runProcess("/usr/bin/mosquitto_passwd", ["-b", "-c", passwords, "box", "right horse"])
        #expect(made.status == 0, "\(made.stderr)")
        let broker = try Broker(directory: rig.directory, extra: ["password_file \(passwords)"], anonymous: false)
        try rig.questbox(["settings", "set", "mqtt.url", "mqtt://127.0.0.1:\(broker.port)"])
        try rig.questbox(["settings", "set", "mqtt.username", "box"])
        try rig.questbox(["settings", "set", "mqtt.password", "wrong"])
        try rig.startBox()
        try rig.startLink()
        let base = try base(rig)
        let observer = try Observer(port: broker.port, username: "box", password: "right horse")
        for _ in 0..<100 where !rig.linkLog.contains("MQTT not connected") { usleep(50_000) }
        #expect(rig.linkLog.contains("not authori"), "\(rig.linkLog)")
        #expect(observer.wait(for: base + "/availability", seconds: 1) == nil)
        #expect(try rig.questbox(["settings", "get", "mqtt.password"]).contains("(set)"))
        #expect(!rig.linkLog.contains("wrong"))
        #expect(try QuestDatabase(path: "\(rig.data)/questbox.sqlite").homeLink.status().mqtt?.hasPrefix("not connected to mqtt://127.0.0.1:") == true, "the health page says why")

        try rig.questbox(["settings", "set", "mqtt.password", "right horse"])
        #expect(observer.wait(for: base + "/availability", seconds: 15) { $0 == "online" } != nil, "\(rig.linkLog)")
        #expect(!rig.linkLog.contains("right horse"))
        for _ in 0..<40 where try QuestDatabase(path: "\(rig.data)/questbox.sqlite").homeLink.status().mqtt?.hasPrefix("connected") != true { usleep(50_000) }
        #expect(try QuestDatabase(path: "\(rig.data)/questbox.sqlite").homeLink.status().mqtt?.hasPrefix("connected to mqtt://127.0.0.1:") == true)
    }

    @Test("mqtt.protocol 5: the link speaks MQTT 5 (the broker logs it), publishes and takes commands; set back to 3.1.1 live, it reconnects as 3.1.1")
    func protocolFive() throws {
        let rig = try LinkRig()
        defer { rig.stop() }
        let brokerLog = (rig.directory as NSString).appendingPathComponent("broker.log")
        let broker = try Broker(directory: rig.directory, extra: ["log_dest file \(brokerLog)", "log_type notice"])
        try rig.questbox(["settings", "set", "mqtt.protocol", "5"])
        try rig.startLinked(to: broker)
        let observer = try Observer(port: broker.port)
        let base = try base(rig)
        let client = "questbox-" + String(base.split(separator: "/").last!)
        func connectedAs(_ version: String) -> Bool {
            ((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "").contains("as \(client) (\(version),")
        }
        #expect(state(observer, base) { $0["state"] as? String == "idle" } != nil, "\(rig.linkLog)")
        #expect(connectedAs("p5"), "the broker's log: \((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "")")
        observer.connection.publish(topic: base + "/mute/set", payload: "ON", retain: false)
        #expect(state(observer, base) { $0["muted"] as? Bool == true } != nil, "\(rig.linkLog)")

        try rig.questbox(["settings", "set", "mqtt.protocol", "3.1.1"])
        // Mosquitto logs its own numbers: p2 is 3.1.1 (p1 3.1, p5 5).
        for _ in 0..<200 where !connectedAs("p2") { usleep(50_000) }
        #expect(connectedAs("p2"), "the link did not reconnect as 3.1.1: \((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "")")
        observer.connection.publish(topic: base + "/mute/set", payload: "OFF", retain: false)
        #expect(state(observer, base) { $0["muted"] as? Bool == false } != nil, "\(rig.linkLog)")
    }

    @Test("two boxes on one broker: each hears the other's name, state and web app (the parent's page lists them)")
    func twoBoxes() throws {
        let hallway = try LinkRig(), bedroom = try LinkRig()
        defer { hallway.stop(); bedroom.stop() }
        let broker = try Broker(directory: hallway.directory)
        for (rig, name) in [(hallway, "hallway"), (bedroom, "bedroom")] {
            try rig.questbox(["settings", "set", "mqtt.url", "mqtt://127.0.0.1:\(broker.port)"])
            try rig.startBox()
            try rig.startLink(environment: ["QUESTBOX_NAME": name, "QUESTBOX_WEB_URL": "http://\(name).local:8080/"])
        }
        let bedroomID = try QuestDatabase(path: "\(bedroom.data)/questbox.sqlite").boxID()
        var heard: [HouseBox] = []
        for _ in 0..<240 {
            heard = try QuestDatabase(path: "\(hallway.data)/questbox.sqlite").homeLink.houseBoxes()
            if heard.first?.state == "idle" && heard.first?.name == "bedroom" { break }
            usleep(50_000)
        }
        #expect(heard.map(\.boxID) == [bedroomID], "\(hallway.linkLog)")
        #expect(heard.first?.name == "bedroom" && heard.first?.web == "http://bedroom.local:8080/" && heard.first?.state == "idle")
        // The bedroom box plays: the hallway hears it.
        try bedroom.ask(BoxRequest(command: "press", button: "lock", action: "tap"))
        for _ in 0..<240 where try QuestDatabase(path: "\(hallway.data)/questbox.sqlite").homeLink.houseBoxes().first?.state != "estimating" { usleep(50_000) }
        #expect(try QuestDatabase(path: "\(hallway.data)/questbox.sqlite").homeLink.houseBoxes().first?.state == "estimating")
        // Its link stops: "offline" on the hallway's list.
        bedroom.link?.terminate()
        bedroom.link?.waitUntilExit()
        for _ in 0..<240 where try QuestDatabase(path: "\(hallway.data)/questbox.sqlite").homeLink.houseBoxes().first?.state != "offline" { usleep(50_000) }
        #expect(try QuestDatabase(path: "\(hallway.data)/questbox.sqlite").homeLink.houseBoxes().first?.state == "offline")
    }

    @Test("TLS (mqtts://) with a test CA: the link trusts the CA it is given and publishes")
    func tls() throws {
        let rig = try LinkRig()
        defer { rig.stop() }
        let dir = rig.directory
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/ca.key", "-out", "\(dir)/ca.pem", "-days", "2", "-subj", "/CN=TimeQuest test CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/server.key", "-out", "\(dir)/server.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", "\(dir)/server.csr", "-CA", "\(dir)/ca.pem", "-CAkey", "\(dir)/ca.key", "-CAcreateserial", "-out", "\(dir)/server.pem", "-days", "2",
             "-extfile", "\(dir)/san.cnf"],
        ]
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: "\(dir)/san.cnf", atomically: true, encoding: .utf8)
        for step in steps {
            let r = try runProcess("/usr/bin/openssl", step)
            try #require(r.status == 0, "openssl \(step[0]): \(r.stderr)")
        }
        // Mosquitto started as root reads its files as the mosquitto user: a test key may be read.
        chmod("\(dir)/server.key", 0o644)
        let broker = try Broker(directory: dir, extra: ["cafile \(dir)/ca.pem", "certfile \(dir)/server.pem", "keyfile \(dir)/server.key"])
        try rig.questbox(["settings", "set", "mqtt.url", "mqtts://localhost:\(broker.port)"])
        try rig.startBox()
        try rig.startLink(environment: ["QUESTBOX_MQTT_CA": "\(dir)/ca.pem"])
        let observer = try Observer(port: broker.port, tls: true, caFile: "\(dir)/ca.pem", host: "localhost")
        let base = try base(rig)
        #expect(observer.wait(for: base + "/availability", seconds: 15) { $0 == "online" } != nil, "\(rig.linkLog)")
        #expect(state(observer, base) { $0["state"] as? String == "idle" } != nil)
    }

    @Test("#49: gatherings of an unchanged store read nothing from it; a change made by another process is read and told")
    func readsOnlyWhatChanged() throws {
        let rig = try LinkRig()
        defer { rig.stop() }
        let broker = try Broker(directory: rig.directory)
        try rig.startLinked(to: broker)   // gathers every second
        let base = try base(rig)
        let observer = try Observer(port: broker.port)
        #expect(state(observer, base) { $0["state"] as? String == "idle" } != nil, "\(rig.linkLog)")
        usleep(6_000_000)   // five gatherings or so of a store nobody changed
        let db = try QuestDatabase(path: "\(rig.data)/questbox.sqlite")
        let routineTopic = base + "/routine/" + (try #require(try db.routines.all().first)).id.uuidString.lowercased().prefix(8)
        for routine in try db.routines.all() { _ = try db.routines.remove(id: routine.id) }
        #expect(observer.wait(for: routineTopic, seconds: 10) { $0.isEmpty } != nil, "the change was not read: \(rig.linkLog)")
        let link = try #require(rig.link)
        link.terminate()
        link.waitUntilExit()
        let stopped = try #require(rig.linkLog.split(separator: "\n").last { $0.contains("link stopped") }, "\(rig.linkLog)")
        func count(_ name: String) -> Int? {
            stopped.split(separator: " ").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        let gatherings = try #require(count("gatherings")), reads = try #require(count("store_reads"))
        #expect(reads >= 2, "the first read and the change's: \(stopped)")
        #expect(gatherings - reads >= 3, "\(gatherings) gatherings read the store \(reads) times: \(stopped)")
    }

    @Test("a broker that floods the command topics, stops reading (SIGSTOP), or is gone: the link lives on, the box plays on")
    func hostileBroker() throws {
        let rig = try LinkRig()
        defer { rig.stop() }
        let broker = try Broker(directory: rig.directory)
        try rig.startLinked(to: broker)
        let base = try base(rig)
        let observer = try Observer(port: broker.port)
        #expect(observer.wait(for: base + "/availability") { $0 == "online" } != nil, "\(rig.linkLog)")

        // The house listens to the box's state only, as Home Assistant does: the observer on
        // "#" hears its own flood too, and its inbox (256) full of it dropped the state the
        // link told at once (a link that bounds the flood is quick to tell it).
        let house = try Observer(port: broker.port, topics: [base + "/state"])
        #expect(house.wait(for: base + "/state") { !$0.isEmpty } != nil, "\(rig.linkLog)")
        // A flood: thousands of mute switches and junk; the link's inbox keeps the first ones.
        for i in 0..<3_000 {
            while !observer.connection.publish(topic: base + "/mute/set", payload: i % 3 == 0 ? "junk\u{1B}" : (i % 2 == 0 ? "ON" : "OFF"), retain: false) { usleep(1_000) }
        }
        try rig.ask(BoxRequest(command: "press", button: "lock", action: "tap"))
        #expect(state(house, base, seconds: 15) { $0["state"] as? String == "estimating" } != nil, "\(rig.linkLog)")
        #expect(rig.link?.isRunning == true)
        #expect(!rig.linkLog.contains("junk\u{1B}"), "a payload is logged escaped")
        // #47: a flood is told once per window, not a line per command (it was two each).
        let commandLines = rig.linkLog.split(separator: "\n").filter { $0.contains("MQTT command") }
        #expect(commandLines.count <= 40, "\(commandLines.count) lines for 3,000 commands")

        // The broker stops reading: the box answers its socket as before.
        broker.signal(SIGSTOP)
        let started = Date()
        for _ in 0..<20 { try rig.ask(BoxRequest(command: "state")) }
        #expect(Date().timeIntervalSince(started) < 5)
        broker.signal(SIGCONT)

        // Gone: the box plays on; back: the link catches up.
        broker.stop()
        try rig.ask(BoxRequest(command: "press", button: "stop", action: "tap"))
        #expect(rig.box?.isRunning == true && rig.link?.isRunning == true)
        try broker.start()
        let fresh = try Observer(port: broker.port)
        #expect(fresh.wait(for: base + "/state", seconds: 20) { !$0.isEmpty } != nil, "\(rig.linkLog)")
        // What the flood's windows ignored is told as a count once each window has ended.
        for _ in 0..<300 where !rig.linkLog.contains("MQTT commands ignored") { usleep(50_000) }
        #expect(rig.linkLog.contains("MQTT commands ignored") && rig.linkLog.contains("ignored="), "\(rig.linkLog)")
    }

    @Test("#47: a payload over 16 KiB is dropped unread and counted; one at the limit is kept")
    func outsizedPayload() throws {
        let directory = NSTemporaryDirectory() + "questbox-payload-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let broker = try Broker(directory: directory)
        defer { broker.stop() }
        var options = MQTTConnection.Options(host: "127.0.0.1", port: broker.port, tls: false, clientID: "payload-listener")
        options.subscriptions = ["big/#"]
        let listener = try MQTTConnection(options)
        defer { listener.close() }
        let sender = try Observer(port: broker.port, topics: [])
        var heard: [String: Int] = [:]
        var dropped = 0
        var sent = false
        for _ in 0..<250 where heard["big/kept"] == nil {
            let (incoming, lost) = listener.drain()
            dropped += lost
            for case .message(let topic, let payload, _) in incoming { heard[topic] = payload.count }
            if !sent, listener.isConnected, sender.connection.isConnected {
                let limit = Int(MQTTConnection.maximumPayload)
                sent = sender.connection.publish(topic: "big/dropped", payload: String(repeating: "x", count: limit + 1), retain: false)
                    && sender.connection.publish(topic: "big/kept", payload: String(repeating: "x", count: limit), retain: false)
            }
            usleep(20_000)
        }
        #expect(heard["big/kept"] == Int(MQTTConnection.maximumPayload))
        #expect(heard["big/dropped"] == nil && dropped == 1, "heard \(heard), dropped \(dropped)")
    }
}
