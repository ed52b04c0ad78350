import Foundation
import QuestStore
import Testing
@testable import QuestReports

/// The link's settings as `questbox settings` and the web app set them (SettingsCatalog).
@Suite("#34: the house's settings")
struct LinkSettingsTests {
    @Test("mqtt.protocol takes 3.1.1 (the default) or 5, refuses anything else in one line; a value the store cannot keep is refused before anything is written")
    func protocolSetting() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("link-settings-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try QuestDatabase(path: folder + "/questbox.sqlite")
        #expect(try db.settings.current().link.mqttProtocol == "3.1.1")
        #expect(try SettingsCatalog.set("mqtt.protocol", to: "5", in: db.settings).value == "5")
        #expect(try db.settings.current().link.mqttProtocol == "5")
        for bad in ["4", "5.0", "mqtt5", ""] {
            #expect {
                try SettingsCatalog.set("mqtt.protocol", to: bad, in: db.settings)
            } throws: { "\($0)".contains("mqtt.protocol") && "\($0)".contains("3.1.1 | 5") && !"\($0)".contains("\n") }
        }
        #expect(try db.settings.current().link.mqttProtocol == "5", "a refused value wrote nothing")
        #expect(SettingsCatalog.choices(for: "mqtt.protocol") == ["3.1.1", "5"])
        var edited = try db.settings.current()
        edited.link.mqttProtocol = "6"
        #expect(edited.link.problem?.hasPrefix("mqtt.protocol:") == true)
        #expect(throws: (any Error).self) { try db.settings.update { $0.link.mqttProtocol = "6" } }
    }
}
