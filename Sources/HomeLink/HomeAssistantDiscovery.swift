import Foundation
import QuestCore

/// One MQTT message the box publishes.
public struct LinkMessage: Equatable, Sendable {
    public var topic: String
    public var payload: String
    public var retain: Bool

    public init(topic: String, payload: String, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }
}

/// The box's topics under its base (`mqtt.topic`, default `questbox/<box id>`), as
/// docs/mqtt.md lists them.
public struct LinkTopics: Equatable, Sendable {
    public var base: String

    public init(base: String) { self.base = base }

    /// "online" or "offline" (retained; the broker says "offline" for a box that vanished).
    public var availability: String { base + "/availability" }
    /// The facts as one JSON object (retained).
    public var state: String { base + "/state" }
    /// Who the box is: `{"name", "web", "board"}` (retained), for the other boxes of the house.
    public var info: String { base + "/info" }
    /// One JSON object per happening (not retained).
    public var event: String { base + "/event" }
    /// "ON" or "OFF": the routine done today (retained).
    public func routine(_ key: String) -> String { base + "/routine/" + key }
    /// Every routine's topic (to find those of routines gone).
    public var routinePattern: String { base + "/routine/+" }
    /// The last reminder's time (ISO 8601, retained), only once there was one: Home
    /// Assistant's timestamp sensor takes no "null" (2024.3 logged every state message).
    public var lastReminder: String { base + "/last_reminder" }
    /// Home Assistant's button (any payload) and switch ("ON" / "OFF").
    public var remindCommand: String { base + "/remind/set" }
    public var muteCommand: String { base + "/mute/set" }
}

/// What is published for a set of facts: the retained state, the routines, the events, and
/// Home Assistant's discovery configs (one device, its entities tied to the topics above).
public enum LinkPublication {
    /// Who the box is, for the other boxes' parents: its host name and web app.
    public static func info(name: String, web: String, board: String, topics: LinkTopics) -> LinkMessage {
        LinkMessage(topic: topics.info, payload: json(["name": name, "web": web, "board": board]), retain: true)
    }

    /// The retained facts: the state object and one topic per routine.
    public static func retained(_ facts: BoxFacts, topics: LinkTopics) -> [LinkMessage] {
        var state: [String: Any] = [
            "state": facts.state, "quest": facts.quest ?? "", "level": facts.level, "xp": facts.xp, "streak": facts.streak,
            "quests_today": facts.questsToday, "muted": facts.muted, "reminder_missed": facts.reminderMissed,
        ]
        state["last_week_accuracy"] = facts.lastWeekAccuracy ?? NSNull()
        state["last_reminder"] = facts.lastReminder.map { iso8601($0) } ?? NSNull()
        state["last_reminder_quest"] = facts.lastReminderQuest ?? NSNull()
        return [LinkMessage(topic: topics.state, payload: json(state), retain: true)]
            + facts.routines.map { LinkMessage(topic: topics.routine($0.key), payload: $0.doneToday ? "ON" : "OFF", retain: true) }
            + (facts.lastReminder.map { [LinkMessage(topic: topics.lastReminder, payload: iso8601($0), retain: true)] } ?? [])
    }

    /// #48: a house command the box did not carry out, told on the event topic so Home
    /// Assistant sees why nothing happened ("offline", or the box's own refusal).
    public static func refused(command: String, reason: String, topics: LinkTopics) -> LinkMessage {
        let words = DisplayText.escaped(String(reason.prefix(120)))
        return LinkMessage(topic: topics.event, payload: json(["event_type": "command_refused", "command": command, "reason": words]), retain: false)
    }

    /// A happening on the event topic (Home Assistant's event entity reads `event_type`).
    public static func event(_ happening: BoxHappening, topics: LinkTopics) -> LinkMessage {
        var payload: [String: Any] = ["event_type": happening.eventType]
        switch happening {
        case .questDone(let quest, let count, let streak):
            payload["quest"] = quest
            payload["quests_today"] = count
            payload["streak"] = streak
        case .reminder(let quest), .reminderMissed(let quest): payload["quest"] = quest
        case .levelUp(let level): payload["level"] = level
        case .streakMilestone(let days): payload["streak"] = days
        case .questPaused: break
        }
        return LinkMessage(topic: topics.event, payload: json(payload), retain: false)
    }

    public static func json(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func iso8601(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }
}

/// #34: another box heard on the same broker under the standard topics (`questbox/<id>/…`).
public struct HeardBox: Equatable, Sendable {
    public var name: String?
    public var state: String?
    public var web: String?
    public var online = true

    public init() {}

    /// The box and what a message on `topic` says of it; nil for a topic that is not another
    /// box's state, info or availability.
    public static func parse(topic: String, payload: [UInt8], ownID: String) -> (id: String, apply: (inout HeardBox) -> Void)? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "questbox", parts[1].count == 10, parts[1].allSatisfy(\.isHexDigit), String(parts[1]) != ownID,
              payload.count <= 4_096
        else { return nil }
        let id = String(parts[1])
        let json = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
        switch parts[2] {
        case "state":
            let state = json?["state"] as? String
            return (id, { $0.state = state })
        case "info":
            // #47: only an address of the home network's form, rebuilt from its parts.
            // A name without the characters that act instead of showing (bidi overrides
            // reorder the parent's page, U+2028 breaks its line): the one rule, DisplayText.
            let name = (json?["name"] as? String).map { text in
                String(String.UnicodeScalarView(text.unicodeScalars.filter { !DisplayText.isControl($0) }).prefix(128))
            }
            let web = (json?["web"] as? String).flatMap(HouseWebAddress.parse)?.url
            return (id, { $0.name = name; $0.web = web })
        case "availability":
            let online = String(decoding: payload, as: UTF8.self) == "online"
            return (id, { $0.online = online })
        default:
            return nil
        }
    }
}

/// The box as Home Assistant's MQTT discovery sees it: one device, its entities.
public struct LinkDevice: Equatable, Sendable {
    public var boxID: String
    /// The board profile's name (the device's model).
    public var board: String
    /// `questbox --version`.
    public var version: String
    /// The box's own name (its host name): two boxes are two devices a parent tells apart.
    public var name: String
    /// The box's web app, Home Assistant's "Visit" link; nil unless http(s).
    public var configurationURL: String?

    public init(boxID: String, board: String, version: String, name: String = "TimeQuest Box", web: String? = nil) {
        self.boxID = boxID
        self.board = board
        self.version = version
        let shown = DisplayText.escaped(String(name.prefix(64)))
        self.name = shown.isEmpty ? "TimeQuest Box" : shown
        self.configurationURL = web.flatMap { ($0.hasPrefix("http://") || $0.hasPrefix("https://")) && $0.count <= 512 && !$0.contains(where: \.isWhitespace) ? $0 : nil }
    }

    /// Home Assistant's node id and the prefix of every entity's unique id.
    public var nodeID: String { "questbox_" + boxID }
}

public enum HomeAssistantDiscovery {
    /// One entity: its component, object id, and config beyond what every entity has.
    struct Entity {
        var component: String
        var objectID: String
        var config: [String: Any]
        /// A command only the running box carries out (Remind, Mute).
        var needsTheBox = false
    }

    /// The retained configs for `facts`' routines (a config per entity) under `prefix`.
    public static func configs(device: LinkDevice, routines: [BoxFacts.RoutineToday], topics: LinkTopics, prefix: String) -> [LinkMessage] {
        entities(routines: routines, topics: topics).map { entity in
            var config = entity.config
            config["unique_id"] = "\(device.nodeID)_\(entity.objectID)"
            // Home Assistant 2025.10 on: `default_entity_id` (the whole id) replaces `object_id`.
            config["default_entity_id"] = "\(entity.component).\(device.nodeID)_\(entity.objectID)"
            if entity.needsTheBox {
                // A command the box must carry out is unavailable while its daemon is down,
                // not only while the link is (#48).
                config["availability"] = [
                    ["topic": topics.availability, "payload_available": "online", "payload_not_available": "offline"],
                    ["topic": topics.state, "value_template": "{{ 'offline' if value_json.state == 'offline' else 'online' }}",
                     "payload_available": "online", "payload_not_available": "offline"],
                ]
                config["availability_mode"] = "all"
            } else {
                config["availability_topic"] = topics.availability
                config["payload_available"] = "online"
                config["payload_not_available"] = "offline"
            }
            var block: [String: Any] = [
                "identifiers": [device.nodeID], "name": device.name, "manufacturer": "TimeQuest Box", "model": device.board,
                "sw_version": device.version,
            ]
            if let url = device.configurationURL { block["configuration_url"] = url }
            config["device"] = block
            config["origin"] = ["name": "questbox-link", "sw_version": device.version] as [String: Any]
            return LinkMessage(topic: configTopic(prefix: prefix, component: entity.component, device: device, objectID: entity.objectID), payload: LinkPublication.json(config), retain: true)
        }
    }

    public static func configTopic(prefix: String, component: String, device: LinkDevice, objectID: String) -> String {
        "\(prefix)/\(component)/\(device.nodeID)/\(objectID)/config"
    }

    /// Where this box's configs live (to find and clear those of routines gone).
    public static func configPattern(prefix: String, device: LinkDevice) -> String { "\(prefix)/+/\(device.nodeID)/+/config" }

    static func entities(routines: [BoxFacts.RoutineToday], topics: LinkTopics) -> [Entity] {
        func sensor(_ id: String, _ name: String, _ template: String, _ extra: [String: Any] = [:]) -> Entity {
            var config: [String: Any] = ["name": name, "state_topic": topics.state, "value_template": template]
            config.merge(extra) { _, new in new }
            return Entity(component: "sensor", objectID: id, config: config)
        }
        var list = [
            sensor("state", "State", "{{ value_json.state }}", ["device_class": "enum", "options": BoxFacts.states, "icon": "mdi:timer-sand"]),
            sensor("quest", "Quest in play", "{{ value_json.quest }}", ["icon": "mdi:flag-checkered"]),
            sensor("level", "Level", "{{ value_json.level }}", ["state_class": "measurement", "icon": "mdi:star-circle"]),
            sensor("xp", "XP", "{{ value_json.xp }}", ["state_class": "total_increasing", "unit_of_measurement": "XP", "icon": "mdi:star-four-points"]),
            sensor("streak", "Streak", "{{ value_json.streak }}", ["state_class": "measurement", "unit_of_measurement": "d", "icon": "mdi:fire"]),
            sensor("quests_today", "Quests done today", "{{ value_json.quests_today }}", ["state_class": "measurement", "icon": "mdi:check-all"]),
            sensor("last_week_accuracy", "Last week's accuracy", "{{ value_json.last_week_accuracy }}", ["state_class": "measurement", "unit_of_measurement": "%", "icon": "mdi:bullseye-arrow"]),
            Entity(component: "sensor", objectID: "last_reminder", config: [
                "name": "Last reminder", "state_topic": topics.lastReminder, "device_class": "timestamp", "icon": "mdi:bell-ring",
            ]),
            Entity(component: "binary_sensor", objectID: "reminder_missed", config: [
                "name": "Reminder missed", "state_topic": topics.state, "value_template": "{{ 'ON' if value_json.reminder_missed else 'OFF' }}",
                "payload_on": "ON", "payload_off": "OFF", "icon": "mdi:bell-alert",
            ]),
            Entity(component: "event", objectID: "activity", config: [
                "name": "Activity", "state_topic": topics.event, "event_types": BoxHappening.eventTypes, "icon": "mdi:timeline-check",
            ]),
            Entity(component: "button", objectID: "remind", config: [
                "name": "Remind now", "command_topic": topics.remindCommand, "payload_press": "PRESS", "icon": "mdi:bell-ring-outline",
            ], needsTheBox: true),
            Entity(component: "switch", objectID: "mute", config: [
                "name": "Mute", "command_topic": topics.muteCommand, "state_topic": topics.state,
                "value_template": "{{ 'ON' if value_json.muted else 'OFF' }}", "payload_on": "ON", "payload_off": "OFF",
                "state_on": "ON", "state_off": "OFF", "icon": "mdi:volume-off",
            ], needsTheBox: true),
        ]
        for routine in routines {
            list.append(Entity(component: "binary_sensor", objectID: "done_\(routine.key)", config: [
                "name": "\(routine.name) done today", "state_topic": topics.routine(routine.key), "payload_on": "ON", "payload_off": "OFF",
                "icon": "mdi:checkbox-marked-circle-outline",
            ]))
        }
        return list
    }
}
