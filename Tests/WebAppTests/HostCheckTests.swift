import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import QuestStore
import QuestReports
import SystemClock
import Testing
@testable import WebApp

/// #31 DNS rebinding: only an address, localhost, the machine's own name (and .local) or a
/// name in `web.hosts` is answered.
@Suite("Host check (DNS rebinding, #31)")
struct HostCheckTests {
    @Test("a foreign Host is 421 with one line on every kind of request; addresses, localhost and the machine's names are answered", arguments: [TestingSetup.router, .live])
    func rebinding(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let app = try await buildApplication(args)
        let machine = (AllowedHostNames.machineName() ?? "questbox").lowercased()
        try await app.test(setup) { client in
            for host in ["rebind.attacker.example:8080", "rebind.attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io", "evil\u{1B}[2J"] {
                for (method, path) in [(HTTPRequest.Method.get, "/api/v1/stats"), (.get, "/parent"), (.post, "/parent/claim"), (.post, "/api/v1/quests")] {
                    let response = try await client.execute(uri: path, method: method, headers: [.host: host, .secFetchSite: "same-origin"])
                    #expect(response.status == .misdirectedRequest, "\(host) \(path): \(response.status)")
                    let body = String(buffer: response.body)
                    #expect(body.contains("is not a name of this box; a parent can add it in the settings (web.hosts).") && !body.contains("\u{1B}"))
                }
            }
            for host in ["127.0.0.1:8080", "localhost", "LOCALHOST:80", "[::1]:8080", "192.168.1.20", machine, "\(machine.split(separator: ".").first ?? "")".lowercased() + ".local:8080"] {
                let response = try await client.execute(uri: "/api/v1/stats", method: .get, headers: [.host: host])
                #expect(response.status == .ok, "\(host): \(response.status)")
            }
            // A name the parent lists is answered within 2 s of the change.
            try SettingsCatalog.set("web.hosts", to: "questbox.home.arpa kitchen-box", in: db.settings)
            try await Task.sleep(for: .milliseconds(2_100))
            let listed = try await client.execute(uri: "/api/v1/stats", method: .get, headers: [.host: "Questbox.Home.Arpa.:8080"])
            #expect(listed.status == .ok)
        }
    }

    @Test("Host headers read strictly; web.hosts takes host names only, up to 8, and reads back")
    func parsing() throws {
        #expect(HostHeader.host(of: "Box.Local:8080") == "box.local")
        #expect(HostHeader.host(of: "[::1]:80") == "[::1]")
        #expect(HostHeader.host(of: "[::1]x") == nil && HostHeader.host(of: "a:99999") == nil && HostHeader.host(of: "a:") == nil)
        #expect(HostHeader.isAddress("10.0.0.7") && HostHeader.isAddress("[fe80::1]") && !HostHeader.isAddress("10.0.0") && !HostHeader.isAddress("example"))
        #expect(WebHosts.parse("none") == [] && WebHosts.parse(" ") == [])
        #expect(WebHosts.parse("QuestBox.home.arpa., kitchen-box") == ["questbox.home.arpa", "kitchen-box"])
        for bad in ["-box", "a..b", "a b_c", "127.0.0.1", String(repeating: "a", count: 64), "ü.example", (1...9).map { "h\($0)" }.joined(separator: " ")] {
            #expect(WebHosts.parse(bad) == nil, "\(bad)")
        }
        let (_, db) = try TestArguments.fresh()
        #expect(throws: StoreError.self) { try SettingsCatalog.set("web.hosts", to: "evil\u{1B}", in: db.settings) }
        #expect(try SettingsCatalog.set("web.hosts", to: "box.lan", in: db.settings).value == "box.lan")
        #expect(try SettingsCatalog.set("web.hosts", to: "none", in: db.settings).value == "none")
    }
}
