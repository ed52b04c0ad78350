import Foundation
import QuestCore
import GRDB

/// #34: how the box reaches the house: an MQTT broker (Home Assistant's discovery under
/// `mqttDiscovery`, nil: none) and pushes to phones. nil fields are off or the default. The
/// store checks only the shape every field shares (length, no control characters); what a
/// value means (a URL, a topic) is checked by the settings catalog before it is written.
public struct HomeLinkSettings: Equatable, Sendable {
    /// Any of these fields, in bytes.
    public static let maximumBytes = 512

    public var mqttURL: String?
    public var mqttUsername: String?
    /// Never shown back (`settings list` says "(set)").
    public var mqttPassword: String?
    /// nil: `questbox/<box id>`.
    public var mqttTopic: String?
    /// Home Assistant's discovery prefix; nil: no discovery.
    public var mqttDiscovery: String? = "homeassistant"
    public var notifyURL: String?
    public var notifyParentURL: String?
    /// What is pushed (`notify.on`): reminder, reminder-missed, quest-paused, quest-done,
    /// level-up, streak-milestone.
    public var notifyOn: [String] = ["reminder"]
    /// The MQTT protocol: "3.1.1" (every broker takes it) or "5".
    public var mqttProtocol = "3.1.1"
    public static let mqttProtocols = ["3.1.1", "5"]

    public init(
        mqttURL: String? = nil, mqttUsername: String? = nil, mqttPassword: String? = nil, mqttTopic: String? = nil,
        mqttDiscovery: String? = "homeassistant", notifyURL: String? = nil, notifyParentURL: String? = nil, notifyOn: [String] = ["reminder"],
        mqttProtocol: String = "3.1.1"
    ) {
        self.mqttURL = mqttURL
        self.mqttUsername = mqttUsername
        self.mqttPassword = mqttPassword
        self.mqttTopic = mqttTopic
        self.mqttDiscovery = mqttDiscovery
        self.notifyURL = notifyURL
        self.notifyParentURL = notifyParentURL
        self.notifyOn = notifyOn
        self.mqttProtocol = mqttProtocol
    }

    static func words(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map(String.init)
    }

    /// The first field the store cannot keep, as one line naming it; nil when all can be kept.
    public var problem: String? {
        if !Self.mqttProtocols.contains(mqttProtocol) { return "mqtt.protocol: \"\(mqttProtocol)\" is not 3.1.1 or 5" }
        let fields: [(String, String?)] = [
            ("mqtt.url", mqttURL), ("mqtt.username", mqttUsername), ("mqtt.password", mqttPassword), ("mqtt.topic", mqttTopic),
            ("mqtt.discovery", mqttDiscovery), ("notify.url", notifyURL), ("notify.parent-url", notifyParentURL),
            ("notify.on", notifyOn.joined(separator: " ")),
        ]
        for (key, value) in fields {
            guard let value else { continue }
            if value.utf8.count > Self.maximumBytes { return "\(key): longer than \(Self.maximumBytes) bytes" }
            if value.unicodeScalars.contains(where: DisplayText.isControl) { return "\(key): has a control character" }
        }
        return nil
    }
}

extension QuestDatabase {
    /// #34: the box's own id (10 hex digits, made once by the migration that added it): its
    /// MQTT topic and Home Assistant's device identifier, stable across restarts and updates.
    public func boxID() throws -> String {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT boxId FROM boxIdentity WHERE id = 1 AND \(RowRules.valid("boxIdentity"))")
        } ?? "0000000000"
    }
}

/// #34: what `questbox link` last saw, for the parent's health page: the broker's connection
/// ("connected" or why not) and the last push that failed (cleared by the next that goes).
public struct LinkStatus: Equatable, Sendable {
    public var mqtt: String?
    public var mqttAt: Date?
    public var pushProblem: String?
    public var pushProblemAt: Date?

    public init(mqtt: String? = nil, mqttAt: Date? = nil, pushProblem: String? = nil, pushProblemAt: Date? = nil) {
        self.mqtt = mqtt
        self.mqttAt = mqttAt
        self.pushProblem = pushProblem
        self.pushProblemAt = pushProblemAt
    }
}

extension QuestDatabase {
    /// What `questbox link` writes down, over the store's one writer.
    public var homeLink: HomeLinkStore { HomeLinkStore(pool: pool) }
}

/// #34: what the house link writes down for the parent's pages: the broker's connection, the
/// last failed push and the other boxes it heard. An area of the store with its own records.
public struct HomeLinkStore: Sendable {
    let pool: any DatabaseWriter

    public func status() throws -> LinkStatus {
        try pool.read { db in
            guard try db.tableExists("linkStatus"),
                  let row = try Row.fetchOne(db, sql: "SELECT * FROM linkStatus WHERE id = 1 AND \(RowRules.valid("linkStatus"))")
            else { return LinkStatus() }
            return LinkStatus(
                mqtt: row["mqtt"], mqttAt: (row["mqttAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                pushProblem: row["pushProblem"], pushProblemAt: (row["pushProblemAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// The broker's connection as the link sees it (nil: MQTT off).
    public func recordMQTT(_ text: String?, at date: Date) throws {
        try recordStatus("mqtt", text, at: date)
    }

    /// A push that failed (nil: the last one went through).
    public func recordPushProblem(_ text: String?, at date: Date) throws {
        try recordStatus("pushProblem", text, at: date)
    }

    /// One of the link's status lines and its time (`<column>At`), in one transaction.
    private func recordStatus(_ column: String, _ text: String?, at date: Date) throws {
        try pool.write { db in
            try db.execute(sql: "INSERT INTO linkStatus (id) VALUES (1) ON CONFLICT(id) DO NOTHING")
            try db.execute(
                sql: "UPDATE linkStatus SET \(column) = ?, \(column)At = ? WHERE id = 1",
                arguments: [text.map { QuestDatabase.storable($0, bytes: 400) }, text == nil ? nil : date.timeIntervalSince1970])
        }
    }
}

extension QuestDatabase {
    /// Text from another program or the network as the store keeps it: no control
    /// characters, at most `bytes` bytes, cut between characters.
    static func storable(_ text: String, bytes limit: Int) -> String {
        var out = ""
        for ch in text where !ch.unicodeScalars.contains(where: DisplayText.isControl) {
            if out.utf8.count + ch.utf8.count > limit { break }
            out.append(ch)
        }
        return out
    }
}

/// #34: another box on the same broker, as its link last told it.
public struct HouseBox: Equatable, Sendable {
    public var boxID: String
    public var name: String
    public var state: String
    /// Its web app, when it said (`http://name.local:8080/`).
    public var web: String?
    public var seenAt: Date

    public init(boxID: String, name: String, state: String, web: String?, seenAt: Date) {
        self.boxID = boxID
        self.name = name
        self.state = state
        self.web = web
        self.seenAt = seenAt
    }

    /// At most this many are kept (the most recently heard).
    public static let maximumKept = 64
}

extension HomeLinkStore {
    public func houseBoxes() throws -> [HouseBox] {
        try pool.read { db in
            guard try db.tableExists("houseBox") else { return [] }
            return try Row.fetchAll(db, sql: "SELECT * FROM houseBox WHERE \(RowRules.valid("houseBox")) ORDER BY name, boxId").map {
                HouseBox(boxID: $0["boxId"], name: $0["name"], state: $0["state"], web: $0["web"], seenAt: Date(timeIntervalSince1970: $0["seenAt"]))
            }
        }
    }

    /// Keeps what the link heard of another box (values cut to what the store keeps); the
    /// oldest beyond `HouseBox.maximumKept` go. A box gone from the broker (empty state) is removed.
    public func recordHouseBox(_ box: HouseBox?, removing boxID: String? = nil) throws {
        try pool.write { db in
            if let boxID { try db.execute(sql: "DELETE FROM houseBox WHERE boxId = ?", arguments: [boxID]) }
            guard let box else { return }
            func clean(_ text: String, _ limit: Int) -> String { QuestDatabase.storable(text, bytes: limit) }
            try db.execute(
                sql: "INSERT OR REPLACE INTO houseBox (boxId, name, state, web, seenAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [clean(box.boxID, 64), clean(box.name, 128).isEmpty ? "?" : clean(box.name, 128), clean(box.state, 32).isEmpty ? "?" : clean(box.state, 32),
                            box.web.map { clean($0, 256) }, box.seenAt.timeIntervalSince1970])
            try db.execute(sql: """
                DELETE FROM houseBox WHERE boxId NOT IN (SELECT boxId FROM houseBox ORDER BY seenAt DESC LIMIT \(HouseBox.maximumKept))
                """)
        }
    }
}
