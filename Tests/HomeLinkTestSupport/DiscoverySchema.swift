import Foundation
import HomeLink

/// Home Assistant's MQTT discovery schema as written down from its docs and its MQTT
/// platform schemas (2024.3 … 2026): the keys each component takes (an unknown key is dropped
/// by Home Assistant without a word, so a typo would pass unseen), the required ones, the
/// availability forms, the device and origin blocks, and `default_entity_id` in place of the
/// `object_id` 2026 dropped.
public enum DiscoverySchema {
    public struct Problem: Error, CustomStringConvertible { public var description: String }

    static let required: [String: [String]] = [
        "sensor": ["state_topic"], "binary_sensor": ["state_topic"], "button": ["command_topic"], "switch": ["command_topic"],
        "event": ["state_topic", "event_types"],
    ]
    /// What every entity may carry (MQTT_ENTITY_COMMON_SCHEMA and the availability schema).
    static let common: Set<String> = [
        "name", "unique_id", "default_entity_id", "availability_topic", "availability", "availability_mode", "availability_template",
        "payload_available", "payload_not_available", "device", "origin", "icon", "entity_category", "enabled_by_default",
        "json_attributes_topic", "json_attributes_template", "qos", "encoding", "entity_picture",
    ]
    static let byComponent: [String: Set<String>] = [
        "sensor": ["state_topic", "value_template", "device_class", "state_class", "unit_of_measurement", "options", "expire_after",
                   "force_update", "suggested_display_precision", "last_reset_value_template"],
        "binary_sensor": ["state_topic", "value_template", "device_class", "payload_on", "payload_off", "expire_after", "force_update", "off_delay"],
        "button": ["command_topic", "command_template", "payload_press", "retain", "device_class"],
        "switch": ["command_topic", "command_template", "state_topic", "value_template", "payload_on", "payload_off", "state_on", "state_off",
                   "optimistic", "retain", "device_class"],
        "event": ["state_topic", "value_template", "event_types", "device_class"],
    ]
    static let deviceKeys: Set<String> = [
        "identifiers", "connections", "name", "manufacturer", "model", "model_id", "sw_version", "hw_version", "serial_number",
        "configuration_url", "suggested_area", "via_device",
    ]
    static let availabilityKeys: Set<String> = ["topic", "payload_available", "payload_not_available", "value_template"]
    static let sensorDeviceClasses: Set<String> = ["enum", "timestamp", "duration", "date"]

    public static func check(_ configs: [LinkMessage], prefix: String, device: LinkDevice, topics: LinkTopics) throws {
        var ids = Set<String>(), entityIDs = Set<String>()
        for message in configs {
            func fail(_ why: String) -> Problem { Problem(description: "\(message.topic): \(why)") }
            let parts = message.topic.split(separator: "/").map(String.init)
            guard parts.count == 5, parts[0] == prefix, parts[2] == device.nodeID, parts[4] == "config", let keys = required[parts[1]],
                  let allowed = byComponent[parts[1]]
            else { throw fail("not <prefix>/<component>/<node>/<object>/config of a known component") }
            guard message.retain else { throw fail("not retained") }
            guard let config = try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any] else { throw fail("not a JSON object") }
            if let unknown = Set(config.keys).subtracting(common.union(allowed)).sorted().first { throw fail("\(unknown) is not a key of \(parts[1])") }
            for key in keys + ["unique_id", "name", "device", "default_entity_id"] where config[key] == nil { throw fail("no \(key)") }
            guard let id = config["unique_id"] as? String, ids.insert(id).inserted else { throw fail("unique_id repeated") }
            // default_entity_id: the whole entity id, in the config's own component.
            guard let entityID = config["default_entity_id"] as? String, entityID == "\(parts[1]).\(device.nodeID)_\(parts[3])",
                  entityID.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" || $0 == "." }), entityIDs.insert(entityID).inserted
            else { throw fail("default_entity_id is not <component>.<node>_<object>") }
            guard let block = config["device"] as? [String: Any], (block["identifiers"] as? [String]) == [device.nodeID],
                  block["sw_version"] as? String == device.version, block["model"] as? String == device.board,
                  block["name"] as? String == device.name, Set(block.keys).isSubset(of: deviceKeys)
            else { throw fail("the device block is not this box: \(config["device"] ?? "none")") }
            if let url = block["configuration_url"] {
                guard let url = url as? String, url == device.configurationURL, url.hasPrefix("http://") || url.hasPrefix("https://") else {
                    throw fail("configuration_url \(url) is not the box's web app")
                }
            }
            // Availability: a topic, or a list (Home Assistant takes one form, never both).
            switch (config["availability_topic"], config["availability"]) {
            case (let topic as String, nil):
                guard topic == topics.availability else { throw fail("availability elsewhere") }
            case (nil, let list as [[String: Any]]):
                guard list.contains(where: { $0["topic"] as? String == topics.availability }),
                      list.allSatisfy({ ($0["topic"] as? String)?.hasPrefix(topics.base + "/") == true && Set($0.keys).isSubset(of: availabilityKeys) }),
                      ["all", "any", "latest"].contains(config["availability_mode"] as? String ?? "latest")
                else { throw fail("an availability list without the link's topic, or with a key Home Assistant does not take") }
            default:
                throw fail("availability_topic and availability together, or neither")
            }
            for key in ["state_topic", "command_topic"] {
                if let topic = config[key] as? String, !topic.hasPrefix(topics.base + "/") { throw fail("\(key) outside the box's topic") }
            }
            if let deviceClass = config["device_class"] as? String, parts[1] == "sensor", !sensorDeviceClasses.contains(deviceClass) {
                throw fail("sensor device_class \(deviceClass) not one this box uses")
            }
            if config["device_class"] as? String == "enum", config["state_class"] != nil || config["unit_of_measurement"] != nil || config["options"] == nil {
                throw fail("an enum sensor takes options and no state class or unit")
            }
            if config["device_class"] as? String == "timestamp", config["value_template"] != nil || (config["state_topic"] as? String) == topics.state {
                // A timestamp sensor on the shared state would read its null (2024.3 logs
                // "Invalid state message" on every state message).
                throw fail("a timestamp sensor reads the shared state")
            }
        }
    }
}
