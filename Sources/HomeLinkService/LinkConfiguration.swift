import HomeLink
import MQTT
import QuestStore

/// #34: the MQTT link as the settings ask for it: off, or a broker with its topics. Two equal
/// configurations keep one connection; any change makes a new one.
struct LinkConfiguration: Equatable {
    var broker: BrokerAddress
    var username: String?
    var password: String?
    var topics: LinkTopics
    /// Home Assistant's discovery prefix; nil: none.
    var discoveryPrefix: String?
    var caFile: String?
    var version: MQTTConnection.Options.Version

    /// nil when MQTT is off; a setting that cannot be used (a hand-edited store) is off, with
    /// its line in `problem`.
    static func from(_ link: HomeLinkSettings, boxID: String, caFile: String?) -> (LinkConfiguration?, problem: String?) {
        guard let url = link.mqttURL, !url.isEmpty else { return (nil, nil) }
        let broker: BrokerAddress
        switch BrokerAddress.parse(url) {
        case .success(let b): broker = b
        case .failure(let p): return (nil, "mqtt.url: \"\(url)\" \(p)")
        }
        let base = link.mqttTopic ?? LinkTopic.standard(boxID: boxID)
        if let p = LinkTopic.problem(base) { return (nil, "mqtt.topic: \"\(base)\" \(p)") }
        if let prefix = link.mqttDiscovery, let p = LinkTopic.problem(prefix) { return (nil, "mqtt.discovery: \"\(prefix)\" \(p)") }
        return (LinkConfiguration(
            broker: broker, username: link.mqttUsername, password: link.mqttPassword, topics: LinkTopics(base: base),
            discoveryPrefix: link.mqttDiscovery, caFile: caFile, version: link.mqttProtocol == "5" ? .v5 : .v311), nil)
    }
}
