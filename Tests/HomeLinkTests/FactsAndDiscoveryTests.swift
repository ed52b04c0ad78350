import Foundation
import HomeLink
import HomeLinkTestSupport
import QuestCore
import Testing

/// #34: what leaves the box (aggregates and its state, seed 003), how it changes, and Home
/// Assistant's discovery configs.
@Suite("NOTF-1 (#34): the box's facts, their happenings, and Home Assistant's discovery")
struct FactsAndDiscoveryTests {
    static let cal: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return c
    }()
    static func at(_ h: Int, _ m: Int, day: Int = 10) -> Date {
        cal.date(from: DateComponents(year: 2026, month: 6, day: day, hour: h, minute: m))!
    }
    static let morningID = UUID(uuidString: "6CA2DEDA-0000-4000-8000-000000000001")!
    static let eveningID = UUID(uuidString: "0BADCAFE-0000-4000-8000-000000000002")!
    static let morning = Routine(id: morningID, name: "morning", displayName: "Morning Quest", activeDays: Array(1...7), tasks: [
        RoutineTask(id: UUID(), name: "teeth", displayName: "Tooth Time"),
    ])
    static let evening = Routine(id: eveningID, name: "evening", displayName: "Evening Quest", activeDays: Array(1...7), tasks: [
        RoutineTask(id: UUID(), name: "bag", displayName: "Pack Bag"),
    ])

    func world(plays: [QuestPlay] = [], reminders: [UUID: Date] = [:], paused: [PausedQuest] = []) -> QuestWorld {
        var w = QuestWorld(routines: [Self.morning, Self.evening], profile: .derived(totalXP: 260, plays: plays, calendar: Self.cal), calendar: Self.cal, bootID: "b")
        w.plays = plays
        w.reminders = reminders
        w.pausedQuests = paused
        return w
    }

    func session(_ routine: UUID, startedAt: Date, status: SessionStatus = .completed) -> GameSession {
        GameSession(id: UUID(), routineID: routine, routineDisplayName: "x", startedAt: startedAt, startedMonotonicNanos: 0, bootID: "b", status: status, isCalibration: false)
    }

    @Test("the box's state from its screen: offline without the box, paused when a quest waits, the quest named only while in play")
    func states() {
        let now = Self.at(7, 30)
        let plain = world()
        let cases: [(String?, String)] = [(nil, "offline"), ("idle", "idle"), ("estimating", "estimating"), ("active", "active"), ("reveal", "revealing"), ("summary", "summary"), ("reflection", "idle"), ("claim", "idle")]
        for (kind, state) in cases {
            let facts = BoxFacts.gather(world: plain, sessions: [], screenKind: kind, screenQuest: "Morning Quest", lastWeek: nil, now: now)
            #expect(facts.state == state, "\(kind ?? "nil")")
            #expect((facts.quest != nil) == ["estimating", "active", "revealing"].contains(state), "\(state)")
        }
        let waiting = world(paused: [PausedQuest(session: session(Self.morningID, startedAt: Self.at(7, 0), status: .paused), estimations: [])])
        #expect(BoxFacts.gather(world: waiting, sessions: [], screenKind: "idle", screenQuest: nil, lastWeek: nil, now: now).state == "paused")
    }

    @Test("quests done today per routine and in all; level, XP and streak from the one standing")
    func totals() {
        let plays = [
            QuestPlay(routineID: Self.morningID, completedAt: Self.at(7, 20, day: 9), measuredTaskSeconds: 60),
            QuestPlay(routineID: Self.morningID, completedAt: Self.at(7, 20), measuredTaskSeconds: 60),
        ]
        let w = world(plays: plays)
        let facts = BoxFacts.gather(world: w, sessions: [], screenKind: "idle", screenQuest: nil, lastWeek: nil, now: Self.at(9, 0))
        #expect(facts.questsToday == 1)
        #expect(facts.routines.map(\.doneToday) == [true, false])
        #expect(facts.routines.map(\.key) == ["6ca2deda", "0badcafe"], "keys from the ids: a rename keeps the entity")
        let standing = PlayerStanding.of(w, rules: .standard, today: Self.at(9, 0))
        #expect(facts.level == standing.level && facts.xp == standing.totalXP && facts.streak == standing.streak)
        #expect(facts.streak == 2)
    }

    @Test("a reminder is missed 30 minutes on with no quest started; a quest started since answers it")
    func missedReminder() {
        let reminded = world(reminders: [Self.morningID: Self.at(7, 0)])
        func facts(_ now: Date, _ sessions: [GameSession] = []) -> BoxFacts {
            BoxFacts.gather(world: reminded, sessions: sessions, screenKind: "idle", screenQuest: nil, lastWeek: nil, now: now)
        }
        #expect(facts(Self.at(7, 29)).reminderMissed == false)
        #expect(facts(Self.at(7, 30)).reminderMissed == true)
        #expect(facts(Self.at(7, 30)).lastReminderQuest == "Morning Quest")
        #expect(facts(Self.at(7, 45), [session(Self.morningID, startedAt: Self.at(7, 10), status: .abandoned)]).reminderMissed == false)
        #expect(facts(Self.at(7, 45), [session(Self.eveningID, startedAt: Self.at(7, 10))]).reminderMissed == true, "another quest does not answer it")
        #expect(facts(Self.at(7, 45), [session(Self.morningID, startedAt: Self.at(6, 50))]).reminderMissed == true, "one started before it does not")
        #expect(facts(Self.at(7, 0, day: 11)).lastReminder == nil, "yesterday's reminder is not today's")
    }

    @Test("what happened between two gatherings; nothing on the first (a restart tells no old news)")
    func happenings() {
        let before = BoxFacts.gather(world: world(), sessions: [], screenKind: "idle", screenQuest: nil, lastWeek: nil, now: Self.at(7, 0))
        #expect(BoxHappening.between(nil, before).isEmpty)
        var after = before
        after.lastCompleted = Self.at(7, 20)
        after.lastCompletedQuest = "Morning Quest"
        after.questsToday = 1
        after.level = before.level + 1
        after.pausedSessions = [UUID()]
        after.lastReminder = Self.at(7, 0)
        after.lastReminderQuest = "Morning Quest"
        let told = BoxHappening.between(before, after)
        #expect(told == [.questDone(quest: "Morning Quest", questsToday: 1, streak: after.streak), .questPaused, .reminder(quest: "Morning Quest"), .levelUp(level: after.level)])
        var missed = after
        missed.reminderMissed = true
        #expect(BoxHappening.between(after, missed) == [.reminderMissed(quest: "Morning Quest")])
        #expect(BoxHappening.between(missed, missed).isEmpty, "told once")
    }

    @Test("seed 003: the state leaves only aggregates and the box's state, never a task, guess or duration")
    func privacy() throws {
        let facts = BoxFacts.gather(world: world(), sessions: [], screenKind: "active", screenQuest: "Morning Quest", lastWeek: nil, now: Self.at(7, 0))
        let messages = LinkPublication.retained(facts, topics: LinkTopics(base: "questbox/x"))
        let state = try #require(messages.first { $0.topic == "questbox/x/state" })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(state.payload.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["state", "quest", "level", "xp", "streak", "quests_today", "last_week_accuracy", "muted", "last_reminder", "last_reminder_quest", "reminder_missed"])
        #expect(object["state"] as? String == "active" && object["quest"] as? String == "Morning Quest")
        #expect(messages.filter { $0.topic.hasPrefix("questbox/x/routine/") }.map(\.payload) == ["OFF", "OFF"])
        #expect(messages.allSatisfy { $0.retain })
    }

    @Test("discovery: every config has what Home Assistant requires of its component, unique ids, the device and availability")
    func discovery() throws {
        let facts = BoxFacts.gather(world: world(), sessions: [], screenKind: "idle", screenQuest: nil, lastWeek: nil, now: Self.at(7, 0))
        let device = LinkDevice(boxID: "0a1b2c3d4e", board: "rpi4", version: "1.2.3", name: "hallway-box", web: "http://hallway-box.local:8080/")
        let topics = LinkTopics(base: "questbox/0a1b2c3d4e")
        let configs = HomeAssistantDiscovery.configs(device: device, routines: facts.routines, topics: topics, prefix: "homeassistant")
        try DiscoverySchema.check(configs, prefix: "homeassistant", device: device, topics: topics)
        let objects = configs.map(\.topic)
        #expect(objects.contains("homeassistant/binary_sensor/questbox_0a1b2c3d4e/done_6ca2deda/config"))
        #expect(objects.contains("homeassistant/button/questbox_0a1b2c3d4e/remind/config"))
        #expect(objects.contains("homeassistant/switch/questbox_0a1b2c3d4e/mute/config"))
        #expect(objects.contains("homeassistant/event/questbox_0a1b2c3d4e/activity/config"))
        #expect(configs.count == 12 + facts.routines.count)
        // #48: two boxes are two devices a parent tells apart, each with its web app.
        let block = try #require(Self.object(configs[0].payload)["device"] as? [String: Any])
        #expect(block["name"] as? String == "hallway-box" && block["configuration_url"] as? String == "http://hallway-box.local:8080/")
        // The commands the box carries out are unavailable while its daemon is down too.
        for object in ["button/questbox_0a1b2c3d4e/remind", "switch/questbox_0a1b2c3d4e/mute"] {
            let config = Self.object(try #require(configs.first { $0.topic == "homeassistant/\(object)/config" }).payload)
            let list = try #require(config["availability"] as? [[String: Any]])
            #expect(config["availability_mode"] as? String == "all" && list.map { $0["topic"] as? String } == [topics.availability, topics.state])
            #expect(list[1]["value_template"] as? String == "{{ 'offline' if value_json.state == 'offline' else 'online' }}")
        }
        // The schema has teeth: a typo, object_id, a timestamp on the shared state, both
        // availability forms are each refused.
        for (key, value) in [("state_topc", "x"), ("object_id", "x"), ("availability", "questbox/0a1b2c3d4e/availability")] as [(String, Any)] {
            var config = Self.object(configs[0].payload)
            config[key] = value
            let bad = LinkMessage(topic: configs[0].topic, payload: LinkPublication.json(config), retain: true)
            #expect(throws: DiscoverySchema.Problem.self, "\(key)") { try DiscoverySchema.check([bad], prefix: "homeassistant", device: device, topics: topics) }
        }
        let reminderConfig = try #require(configs.first { $0.topic.contains("/last_reminder/") })
        var shared = Self.object(reminderConfig.payload)
        shared["state_topic"] = topics.state
        shared["value_template"] = "{{ value_json.last_reminder }}"
        #expect(throws: DiscoverySchema.Problem.self) {
            try DiscoverySchema.check([LinkMessage(topic: reminderConfig.topic, payload: LinkPublication.json(shared), retain: true)], prefix: "homeassistant", device: device, topics: topics)
        }
        // A web address that is not http(s) is left out; an empty name is the product's.
        #expect(LinkDevice(boxID: "0a1b2c3d4e", board: "rpi4", version: "1", name: "", web: "javascript:alert(1)").configurationURL == nil)
        #expect(LinkDevice(boxID: "0a1b2c3d4e", board: "rpi4", version: "1", name: "", web: nil).name == "TimeQuest Box")
    }

    static func object(_ payload: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any] ?? [:]
    }

    @Test("#48: the last reminder has its own retained topic, published once there is one (never a null to a timestamp sensor)")
    func lastReminderTopic() throws {
        let topics = LinkTopics(base: "questbox/x")
        let none = BoxFacts.gather(world: world(), sessions: [], screenKind: "idle", screenQuest: nil, lastWeek: nil, now: Self.at(7, 0))
        #expect(!LinkPublication.retained(none, topics: topics).contains { $0.topic == topics.lastReminder })
        let reminded = BoxFacts.gather(world: world(reminders: [Self.morningID: Self.at(7, 5)]), sessions: [], screenKind: "idle", screenQuest: nil, lastWeek: nil, now: Self.at(7, 10))
        let message = try #require(LinkPublication.retained(reminded, topics: topics).first { $0.topic == topics.lastReminder })
        #expect(message.payload == "2026-06-10T05:05:00Z" && message.retain)
    }

    @Test("#48: a refused house command is told on the event topic with its reason, escaped and bounded")
    func refusedCommand() throws {
        let topics = LinkTopics(base: "questbox/x")
        let message = LinkPublication.refused(command: "mute", reason: "a parent locked the sound switch\u{1B}[2J" + String(repeating: "x", count: 300), topics: topics)
        let object = Self.object(message.payload)
        #expect(message.topic == topics.event && !message.retain)
        #expect(object["event_type"] as? String == "command_refused" && object["command"] as? String == "mute")
        let reason = try #require(object["reason"] as? String)
        #expect(reason.hasPrefix("a parent locked the sound switch") && !reason.contains("\u{1B}") && reason.count < 200)
        #expect(BoxHappening.eventTypes.contains("command_refused"))
    }
}
