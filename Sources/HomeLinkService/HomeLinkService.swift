import BoxProtocol
import Foundation
import HomeLink
import Logging
import MQTT
import QuestCore
import QuestStore
import SystemClock
import Synchronization

/// #34: `questbox link`, a process of its own beside the box: it follows the box over its
/// socket (as the web app does) and the store (the one truth), and tells the house through an
/// MQTT broker (Home Assistant's discovery). Nothing here can slow the box: the box drops a
/// socket client that falls behind, and the broker's network is libmosquitto's thread.
/// Commands from the broker (remind now, mute) go to the box as socket requests, through
/// the same checks as any other client's.
public final class HomeLinkService {
    public struct Options: Sendable {
        public var socketPath: String
        public var version: String
        /// A CA certificate to trust for `mqtts://` instead of the system's ($QUESTBOX_MQTT_CA).
        public var caFile: String?
        /// How often the settings are read again (a parent's change is followed within this).
        public var settingsSeconds: Double = 2
        /// How often the facts are gathered without a change told by the box (a reminder
        /// becomes "missed" with time, a day ends).
        public var refreshSeconds: Double = 30
        /// A push's time limit per attempt, and the waits before its retries.
        public var pushTimeoutMs = 10_000
        public var pushRetryDelays: [Double] = [2, 8, 30]
        /// The box's name and web app as the house's other boxes show them.
        public var name = Options.hostName()
        public var webURL: String?

        /// The machine's name (gethostname: no DNS lookup, which a broken network would stall).
        static func hostName() -> String {
            var buffer = [CChar](repeating: 0, count: 256)
            guard gethostname(&buffer, buffer.count - 1) == 0 else { return "questbox" }
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return name.isEmpty ? "questbox" : name
        }

        public init(socketPath: String, version: String, caFile: String? = nil) {
            self.socketPath = socketPath
            self.version = version
            self.caFile = caFile
        }
    }

    let database: QuestDatabase
    let options: Options
    let calendar: Calendar
    /// #48: how pushes write a time of day, the box's locale's (`SystemLocale`).
    let clockStyle: ClockStyle
    let logger: Logger
    let now: @Sendable () -> Date

    private var box: BoxClient?
    private var boxBoard: String?
    private var screenKind: String?
    private var screenQuest: String?
    private var nextBoxAttempt = 0.0
    private var boxWasOnline: Bool?

    private var configuration: LinkConfiguration?
    private var problem: String?
    private var connection: MQTTConnection?
    private var lastSettingsRead = -Double.infinity
    private var lastGathered = -Double.infinity
    private var factsChanged = true
    private var facts: BoxFacts?
    private var lastWeek: (day: Date, completed: Date?, reflection: WeeklyReflection?)?
    /// What the last gathering read from the store, and the store's stamp before it.
    private var lastRead: (stamp: QuestDatabase.ChangeStamp, at: Date, world: QuestWorld, sessions: [GameSession])?
    /// Gatherings, and how many of them read the store (logged when the link stops).
    private var gatherings = 0
    private var storeReads = 0
    /// The retained payload last handed over per topic, and whether everything must go again.
    private var sent: [String: String] = [:]
    private var configTopics: Set<String> = []
    /// The routines' retained topics last published (nil before the first facts).
    private var routineTopics: Set<String>?
    /// The settings' link part (the pushes' addresses and choices).
    private var link = HomeLinkSettings()
    private var recordedMQTT: String??
    /// The box's own id, read with the settings (a restore may bring another).
    private var boxID = "0000000000"
    /// The house's other boxes as heard, and as last written to the store.
    private var heard: [String: HeardBox] = [:]
    private var written: [String: HouseBox] = [:]
    /// What waits to be written: other boxes change often in a big house, and the parent's
    /// page can be a few seconds behind (one write per `houseWriteSeconds` at most).
    private var unwritten: [String: HouseBox] = [:]
    private var lastHouseWrite = -Double.infinity
    /// The house's commands, bounded (a flood costs a count, not a line or a request each).
    private var commandGate = HouseCommandGate()
    private var droppedUntold = 0
    private var lastDropTold = -Double.infinity
    static let houseWriteSeconds = 5.0
    private lazy var notifier = PushNotifier(
        logger: logger, caFile: options.caFile, timeoutMs: options.pushTimeoutMs, delays: options.pushRetryDelays,
        failed: { [database] problem in try? database.homeLink.recordPushProblem(problem, at: Date()) },
        delivered: { [database] in try? database.homeLink.recordPushProblem(nil, at: Date()) })

    public init(database: QuestDatabase, options: Options, calendar: Calendar = .current,
                clockStyle: ClockStyle = .ofThisBox(),
                logger: Logger, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.options = options
        self.calendar = calendar
        self.clockStyle = clockStyle
        self.logger = logger
        self.now = now
    }

    /// Runs until `stop` says so (checked at least every 200 ms); then tells the broker the
    /// box is offline and closes.
    public func run(stop: () -> Bool) {
        logger.info("link started", metadata: ["socket": "\(options.socketPath)"])
        while !stop() {
            turn()
        }
        shutDown()
    }

    /// One turn: settings, the box's socket (waits up to 200 ms for it), the broker, the facts.
    func turn() {
        let t = monotonicSeconds()
        if t - lastSettingsRead >= options.settingsSeconds {
            lastSettingsRead = t
            followSettings()
        }
        followBox(at: t)
        handleBroker()
        tellIgnored(at: monotonicSeconds())
        if !unwritten.isEmpty, t - lastHouseWrite >= Self.houseWriteSeconds {
            lastHouseWrite = t
            writeHouse()
        }
        if factsChanged || t - lastGathered >= options.refreshSeconds {
            lastGathered = t
            factsChanged = false
            publishFacts()
        }
    }

    // MARK: settings

    private func followSettings() {
        let settings: StoredSettings
        do {
            settings = try database.settings.current()
            boxID = try database.boxID()
        } catch {
            logger.error("reading the settings failed", metadata: ["error": "\(error)"])
            return
        }
        link = settings.link
        let (wanted, problem) = LinkConfiguration.from(settings.link, boxID: boxID, caFile: options.caFile)
        if problem != self.problem {
            if let problem { logger.error("MQTT is off: a setting cannot be used", metadata: ["problem": "\(problem)"]) }
            self.problem = problem
        }
        if wanted == nil { record(mqtt: problem.map { "off: \($0)" }) }
        guard wanted != configuration else { return }
        disconnect()
        configuration = wanted
        guard let wanted else { return }
        do {
            var connect = MQTTConnection.Options(
                host: wanted.broker.host, port: wanted.broker.port, tls: wanted.broker.tls, caFile: wanted.caFile, username: wanted.username,
                password: wanted.password, clientID: "questbox-\(boxID)", will: (wanted.topics.availability, "offline"))
            // The house's commands, this box's own routine topics and discovery configs (to clear
            // those of routines gone), and the other boxes on the broker.
            connect.version = wanted.version
            connect.subscriptions = [wanted.topics.remindCommand, wanted.topics.muteCommand, wanted.topics.routinePattern]
                + (wanted.discoveryPrefix.map { [HomeAssistantDiscovery.configPattern(prefix: $0, device: device())] } ?? [])
                + ["state", "info", "availability"].map { "questbox/+/\($0)" }
            connection = try MQTTConnection(connect)
            logger.notice("MQTT broker", metadata: ["broker": "\(wanted.broker.description)", "topic": "\(wanted.topics.base)"])
        } catch {
            logger.error("MQTT cannot start", metadata: ["broker": "\(wanted.broker.description)", "error": "\(error)"])
        }
    }

    /// Says "offline" (a clean disconnect does not send the will) and lets the broker go.
    private func disconnect() {
        guard let connection, let configuration else { return }
        if connection.publish(topic: configuration.topics.availability, payload: "offline", retain: true) {
            // Up to half a second for the word to leave (never longer: a broker that stopped
            // reading gets the will instead, when it notices).
            for _ in 0..<25 where connection.isConnected { usleep(20_000) }
        }
        connection.close()
        self.connection = nil
        sent = [:]
        configTopics = []
    }

    private func shutDown() {
        tellIgnored(at: .infinity)
        notifier.stop()
        if configuration != nil { record(mqtt: "the link stopped") }
        disconnect()
        logger.info("link stopped", metadata: ["gatherings": "\(gatherings)", "store_reads": "\(storeReads)"])
    }

    // MARK: the box

    private func followBox(at t: Double) {
        guard let box else {
            if t >= nextBoxAttempt { connectBox(at: t) }
            if box == nil { usleep(200_000) }
            return
        }
        do {
            switch try box.next(timeoutMs: 200) {
            case .message(let message): boxSaid(message)
            case .timedOut: break
            case .closed: lostBox(at: t, reason: "the box closed the connection")
            }
        } catch {
            lostBox(at: t, reason: "\(error)")
        }
    }

    private func connectBox(at t: Double) {
        do {
            let client = try BoxClient(path: options.socketPath)
            let reply = try client.request(BoxRequest(command: "subscribe"))
            box = client
            boxBoard = client.hello.box?.board
            screenKind = reply.screen?.kind ?? "idle"
            screenQuest = Self.quest(of: reply.screen, inPlay: nil)
            factsChanged = true
            if boxWasOnline != true { logger.notice("box online", metadata: ["board": "\(boxBoard ?? "?")"]) }
            boxWasOnline = true
        } catch {
            nextBoxAttempt = t + 2
            if boxWasOnline != false {
                logger.warning("box offline", metadata: ["reason": "\(error)"])
                boxWasOnline = false
                screenKind = nil
                factsChanged = true
            }
        }
    }

    private func lostBox(at t: Double, reason: String) {
        box = nil
        screenKind = nil
        screenQuest = nil
        factsChanged = true
        nextBoxAttempt = t + 0.5
        boxWasOnline = false
        logger.warning("box offline", metadata: ["reason": "\(reason)"])
    }

    private func boxSaid(_ message: BoxMessage) {
        guard message.type == "event" else { return }
        switch message.event {
        case "screen":
            let kind = message.screen?.kind
            let quest = Self.quest(of: message.screen, inPlay: screenQuest)
            // An idle screen comes after anything the store may have taken (a quest's end, a
            // pause, the sound switch); the estimate's steps (many a second) read nothing.
            if kind != screenKind || quest != screenQuest || kind == "idle" { factsChanged = true }
            screenKind = kind ?? screenKind
            screenQuest = quest
        case "reminder", "box":
            factsChanged = true
        default:
            break
        }
    }

    /// The quest in play after `screen`: a reveal names no quest and keeps the one in play
    /// (#48: "Quest in play" flickered to "" on every task's reveal).
    static func quest(of screen: ScreenPayload?, inPlay previous: String?) -> String? {
        switch screen?.screen {
        case .estimating(let s): s.questName
        case .active(let s): s.questName
        case .reveal: previous
        default: nil
        }
    }

    // MARK: the broker

    private func handleBroker() {
        guard let connection, let configuration else { return }
        let (incoming, dropped) = connection.drain()
        droppedUntold += dropped
        for message in incoming {
            switch message {
            case .connected:
                logger.notice("MQTT connected", metadata: ["broker": "\(configuration.broker.description)"])
                record(mqtt: "connected to \(configuration.broker.description)")
                // Subscribed by the connection itself, before anything is published.
                sent = [:]
                factsChanged = true
            case .disconnected(let reason):
                logger.warning("MQTT not connected", metadata: ["broker": "\(configuration.broker.description)", "reason": "\(reason)"])
                record(mqtt: "not connected to \(configuration.broker.description): \(reason)")
            case .message(let topic, let payload, let retained):
                received(topic: topic, payload: payload, retained: retained, configuration)
            }
        }
    }

    /// A flood told once per window: the commands ignored after the window's first, and the
    /// messages the full inbox dropped unread.
    private func tellIgnored(at t: Double) {
        if let summary = commandGate.summary(at: t) {
            var metadata: Logger.Metadata = ["ignored": "\(summary.total)"]
            for (reason, count) in summary.counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { metadata[reason.rawValue] = "\(count)" }
            logger.warning("MQTT commands ignored", metadata: metadata)
        }
        if droppedUntold > 0, t - lastDropTold >= HouseCommandGate.windowSeconds {
            logger.warning("MQTT: messages from the broker dropped (too many at once)", metadata: ["dropped": "\(droppedUntold)"])
            droppedUntold = 0
            lastDropTold = t
        }
    }

    private func received(topic: String, payload: [UInt8], retained: Bool, _ configuration: LinkConfiguration) {
        if let (id, apply) = HeardBox.parse(topic: topic, payload: payload, ownID: boxID) {
            heardOf(id, payload.isEmpty && topic.hasSuffix("/state"), apply)
            return
        }
        if topic == configuration.topics.remindCommand || topic == configuration.topics.muteCommand {
            let isRemind = topic == configuration.topics.remindCommand
            let asked = HouseCommandGate.command(remind: isRemind, payload: payload)
            switch commandGate.admit(asked, retained: retained, at: monotonicSeconds()) {
            case .pass:
                logger.info("MQTT command received", metadata: ["topic": "\(topic)"])
                switch asked {
                case .remind: command(BoxRequest(command: "remind"))
                case .mute(let on): command(BoxRequest(command: "mute", action: on ? "on" : "off"))
                case .notACommand: break
                }
            case .ignored(let reason, tell: true):
                // The first of its window; the rest of the window is counted (`tellIgnored`).
                logger.warning("MQTT command ignored", metadata: [
                    "topic": "\(topic)", "reason": "\(reason.rawValue)",
                    "payload": "\(DisplayText.escaped(String(decoding: payload.prefix(20), as: UTF8.self)))",
                ])
            case .ignored(_, tell: false):
                break
            }
        } else if topic.hasPrefix(configuration.topics.base + "/routine/"), !payload.isEmpty, let current = routineTopics, !current.contains(topic) {
            // A routine deleted while the link was away: its retained topic cleared.
            connection?.publish(topic: topic, payload: "", retain: true)
            logger.info("MQTT: an old routine's topic cleared", metadata: ["topic": "\(topic)"])
        } else if topic.hasSuffix("/config"), !payload.isEmpty, !configTopics.isEmpty, !configTopics.contains(topic) {
            // A config of this box that it no longer has (a routine deleted while the link was
            // away): cleared, so Home Assistant drops the entity.
            connection?.publish(topic: topic, payload: "", retain: true)
            logger.info("MQTT: an old entity cleared", metadata: ["topic": "\(topic)"])
        }
    }

    /// Another box of the house: written to the store (the parent's page) when what is shown changes.
    private func heardOf(_ id: String, _ gone: Bool, _ apply: (inout HeardBox) -> Void) {
        do {
            if gone {
                heard[id] = nil
                unwritten[id] = nil
                if written.removeValue(forKey: id) != nil { try database.homeLink.recordHouseBox(nil, removing: id) }
                return
            }
            guard heard[id] != nil || heard.count < HouseBox.maximumKept else { return }
            var box = heard[id] ?? HeardBox()
            apply(&box)
            heard[id] = box
            guard let state = box.state else { return }
            let shown = HouseBox(boxID: id, name: box.name ?? id, state: box.online ? state : "offline", web: box.web, seenAt: now())
            if let before = written[id], before.name == shown.name, before.state == shown.state, before.web == shown.web {
                unwritten[id] = nil
                return
            }
            unwritten[id] = shown
        } catch {
            logger.error("writing another box failed", metadata: ["box": "\(id)", "error": "\(error)"])
        }
    }

    private func writeHouse() {
        for (id, box) in unwritten {
            do {
                try database.homeLink.recordHouseBox(box)
                written[id] = box
            } catch {
                logger.error("writing another box failed", metadata: ["box": "\(id)", "error": "\(error)"])
            }
        }
        unwritten = [:]
    }

    /// A command from the house, to the box as any client's request; its refusal is logged.
    private func command(_ request: BoxRequest) {
        guard let box else {
            logger.warning("MQTT command while the box is offline", metadata: ["command": "\(request.command)"])
            tellRefused(request, reason: "the box is offline")
            return
        }
        do {
            let reply = try box.request(request, timeoutMs: 2_000) { boxSaid($0) }
            if reply.ok == true {
                if request.command == "remind" { commandGate.reminderTaken(at: monotonicSeconds()) }
                logger.notice("MQTT command", metadata: ["command": "\(request.command)", "action": "\(request.action ?? "-")"])
            } else {
                logger.warning("MQTT command refused", metadata: ["command": "\(request.command)", "error": "\(reply.error ?? "?")"])
                tellRefused(request, reason: reply.error ?? "refused")
            }
            factsChanged = true
        } catch {
            lostBox(at: monotonicSeconds(), reason: "\(error)")
            tellRefused(request, reason: "the box is offline")
        }
    }

    /// #48: Home Assistant hears why a command did nothing (its event entity).
    private func tellRefused(_ request: BoxRequest, reason: String) {
        guard let connection, let configuration, connection.isConnected else { return }
        let message = LinkPublication.refused(command: request.command, reason: reason, topics: configuration.topics)
        _ = connection.publish(topic: message.topic, payload: message.payload, retain: false)
    }

    /// The broker's connection for the health page, written only when it changes.
    private func record(mqtt text: String?) {
        guard recordedMQTT != .some(text) else { return }
        recordedMQTT = .some(text)
        do { try database.homeLink.recordMQTT(text, at: now()) } catch { logger.error("writing the link's status failed", metadata: ["error": "\(error)"]) }
    }

    /// The happenings `notify.on` names, to the player's or the parent's address.
    private func push(_ happenings: [BoxHappening], facts: BoxFacts, calendar cal: Calendar) {
        guard let player = link.notifyURL else { return }
        for happening in happenings {
            let at = facts.lastReminder.map { clockStyle.text(ClockTime(of: $0, calendar: cal)) }
            guard let message = PushMessage.of(happening, reminderAt: at), link.notifyOn.contains(message.kind) else { continue }
            notifier.send(message, to: message.forParent ? (link.notifyParentURL ?? player) : player)
        }
    }

    /// PAR-2: a PIN reset waiting its 24 hours is pushed to the parent's own address once
    /// (kept in the store, so a link restarted meanwhile still tells it).
    private func tellPINReset(now date: Date, calendar cal: Calendar) {
        guard let parent = link.notifyParentURL else { return }
        do {
            guard let reset = try database.parentPIN.pinReset(), reset.state == .waiting, !reset.pushed else { return }
            let message = PushMessage.pinResetAsked(
                asked: CalendarWords.day(reset.askedAt, now: date, calendar: cal, clock: clockStyle), from: reset.from,
                effective: CalendarWords.day(reset.takesEffectAt, now: date, calendar: cal, clock: clockStyle))
            notifier.send(message, to: parent)
            try database.parentPIN.markPINResetPushed(at: date)
            logger.notice("push: a new parent PIN was asked for", metadata: ["from": "\(reset.from)"])
        } catch {
            logger.error("reading the PIN reset failed", metadata: ["error": "\(error)"])
        }
    }

    /// BACK-1: a week without a backup leaving the box is told to the parent's own address,
    /// once a week (kept in the store).
    private func remindOfBackups(now date: Date, calendar cal: Calendar) {
        guard let parent = link.notifyParentURL else { return }
        do {
            guard let due = try database.backups.reminderDue(now: date) else { return }
            let message = PushMessage.backupReminder(
                date: CalendarWords.day(due.newest.createdAt, now: date, calendar: cal, clock: clockStyle), size: ByteText.format(due.newest.sizeBytes))
            notifier.send(message, to: parent)
            try database.backups.markReminder(at: date)
            logger.notice("push: keep a backup off the box", metadata: ["newest": "\(due.newest.fileName)"])
        } catch {
            logger.error("reading the backups failed", metadata: ["error": "\(error)"])
        }
    }

    private func device() -> LinkDevice {
        LinkDevice(boxID: boxID, board: boxBoard ?? "unknown", version: options.version, name: shortName, web: webURL)
    }

    /// The box's host name without its domain, and its web app, as the house is told them.
    private var shortName: String { options.name.split(separator: ".").first.map(String.init) ?? options.name }
    private var webURL: String { options.webURL ?? "http://\(shortName).local:8080/" }

    // MARK: facts

    private func publishFacts() {
        let date = now()
        let gathered: BoxFacts
        let cal: Calendar
        do {
            let (world, sessions) = try storeRead(at: date)
            cal = world.calendar
            gathered = BoxFacts.gather(
                world: world, sessions: sessions, screenKind: screenKind, screenQuest: screenQuest,
                lastWeek: try lastWeekReflection(world: world, now: date), now: date)
        } catch {
            logger.error("reading the store failed", metadata: ["error": "\(error)"])
            return
        }
        let happenings = BoxHappening.between(facts, gathered)
        // From here on a change is told as a happening (the first facts are the baseline).
        if facts == nil { logger.info("following the box", metadata: ["state": "\(gathered.state)"]) }
        facts = gathered
        for happening in happenings { logger.info("happening", metadata: ["event": "\(happening.eventType)"]) }
        push(happenings, facts: gathered, calendar: cal)
        tellPINReset(now: date, calendar: cal)
        remindOfBackups(now: date, calendar: cal)
        guard let connection, let configuration, connection.isConnected else { return }
        var messages: [LinkMessage] = []
        if sent[configuration.topics.availability] == nil {
            messages.append(LinkMessage(topic: configuration.topics.availability, payload: "online", retain: true))
        }
        if let prefix = configuration.discoveryPrefix {
            let configs = HomeAssistantDiscovery.configs(device: device(), routines: gathered.routines, topics: configuration.topics, prefix: prefix)
            let topics = Set(configs.map(\.topic))
            for gone in configTopics.subtracting(topics) {
                messages.append(LinkMessage(topic: gone, payload: "", retain: true))
                sent[gone] = nil
            }
            configTopics = topics
            messages += configs
        }
        messages.append(LinkPublication.info(name: shortName, web: webURL, board: boxBoard ?? "unknown", topics: configuration.topics))
        let retained = LinkPublication.retained(gathered, topics: configuration.topics)
        // A routine gone takes its retained topic with it (#48), as its config goes.
        let routineTopics = Set(gathered.routines.map { configuration.topics.routine($0.key) })
        for gone in (self.routineTopics ?? []).subtracting(routineTopics) {
            messages.append(LinkMessage(topic: gone, payload: "", retain: true))
            sent[gone] = nil
        }
        self.routineTopics = routineTopics
        messages += retained
        for message in messages where sent[message.topic] != message.payload {
            if connection.publish(topic: message.topic, payload: message.payload, retain: message.retain) {
                sent[message.topic] = message.payload
            } else {
                // Not taken (the broker is behind): tried again at the next gathering.
                factsChanged = true
                break
            }
        }
        for happening in happenings {
            let event = LinkPublication.event(happening, topics: configuration.topics)
            if !connection.publish(topic: event.topic, payload: event.payload, retain: false) {
                logger.warning("MQTT: an event was dropped (the broker is behind)", metadata: ["event": "\(happening.eventType)"])
            }
        }
    }

    /// The world and today's sessions, read again only when the store has moved since the last
    /// read (anyone's commit) or the day has changed: a gathering of an unchanged store (every
    /// `refreshSeconds`, every box message) costs no reads (#49: the whole world each second
    /// took the HIL house's link a third of a vCPU under emulation). The time-dependent facts
    /// are worked out from it at each gathering.
    private func storeRead(at date: Date) throws -> (QuestWorld, [GameSession]) {
        // The stamp before the read: a commit made while reading is seen at the next gathering.
        let stamp = try database.changeStamp()
        gatherings += 1
        if let lastRead, lastRead.stamp == stamp, lastRead.world.calendar.isDate(lastRead.at, inSameDayAs: date) {
            return (lastRead.world, lastRead.sessions)
        }
        let world = try database.loadWorld(calendar: calendar, bootID: "", taskMemory: false)
        let today = world.calendar.dateInterval(of: .day, for: date).map { $0.start..<$0.end }
        let sessions = try database.plays.sessions(startedIn: today).filter { world.calendar.isDate($0.startedAt, inSameDayAs: date) }
        lastRead = (stamp, date, world, sessions)
        storeReads += 1
        return (world, sessions)
    }

    /// Last week's reflection, computed again only when the day or the last completed quest
    /// changes (it reads the whole history).
    private func lastWeekReflection(world: QuestWorld, now date: Date) throws -> WeeklyReflection? {
        let cal = world.calendar
        let day = cal.startOfDay(for: date)
        let completed = world.plays.map(\.completedAt).max()
        if let lastWeek, lastWeek.day == day, lastWeek.completed == completed { return lastWeek.reflection }
        var reflection: WeeklyReflection?
        if let start = WeeklyReflectionEngine.weekBounds(containing: date, calendar: cal)?.start,
           let previous = cal.date(byAdding: .day, value: -3, to: start)
        {
            reflection = WeeklyReflectionEngine.computeReflection(snapshots: try database.plays.snapshots(), sessions: try database.plays.sessions(), weekContaining: previous, calendar: cal)
        }
        lastWeek = (day, completed, reflection)
        return reflection
    }

    private func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
