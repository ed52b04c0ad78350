import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestStore
import Testing
@testable import WebApp

@Suite("The parent's wiring check (PAR-1)")
struct WiringPageTests {
    @Test("/parent/wiring: a tile per button, and each LED colour, buzzer pattern and sound asks the box's test-output; names are checked first", arguments: [TestingSetup.router, .live])
    func outputs(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var browser = try await signedInParent(client)
            let (status, page) = try await browser.get(client, "/parent/wiring")
            #expect(status == .ok)
            for button in ["lock", "stop", "up", "down"] { #expect(page.contains("data-button=\"\(button)\"")) }
            #expect(page.contains("name=\"led\" value=\"magenta\"") && !page.contains("value=\"off\""))
            #expect(page.contains("name=\"buzzer\" value=\"reveal-way_off\"") && page.contains("name=\"sound\" value=\"level_up\""))
            #expect(page.contains("<script src=\"/assets/wiring.js\" defer></script>"))

            let lit = try await browser.post(client, "/parent/wiring", [("led", "red")])
            #expect(lit.status == .seeOther && lit.headers[.location] == "/parent/wiring?led=red")
            #expect(box.commands.filter { $0 == "test-output" }.count == 1)
            let (_, after) = try await browser.get(client, "/parent/wiring?led=red")
            #expect(after.contains("The LED shows red for 2 seconds."))
            let (_, sounded) = try await browser.get(client, "/parent/wiring?sound=level_up")
            #expect(sounded.contains("The box plays “Level up”."))

            let purple = try await browser.post(client, "/parent/wiring", [("led", "<b>purple")])
            #expect(purple.status == .unprocessableContent)
            let purplePage = String(buffer: purple.body)
            #expect(purplePage.contains("led: &quot;&lt;b&gt;purple&quot; is not an LED colour (red, green, blue, yellow, cyan, magenta, white)"))
            let two = try await browser.post(client, "/parent/wiring", [("led", "red"), ("sound", "stop")])
            #expect(two.status == .unprocessableContent && String(buffer: two.body).contains("name one output: led, buzzer or sound"))
            #expect(box.commands.filter { $0 == "test-output" }.count == 1, "nothing refused reaches the box")

            let forged = try await browser.post(client, "/parent/wiring", [("led", "red")], csrf: "00")
            #expect(forged.status == .forbidden)

            box.refusals.withLock { $0["test-output"] = "test-output: a quest is running (active); wiring checks wait until it ends" }
            let refused = try await browser.post(client, "/parent/wiring", [("buzzer", "tap")])
            #expect(refused.status == .conflict && String(buffer: refused.body).contains("a quest is running (active)"))
        }
    }

    @Test("with no box the page says offline and trying an output says so (503); signed out, pages redirect and the API says 401")
    func offlineAndSignedOut() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let anonymous = try await client.execute(uri: "/parent/wiring", method: .get)
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/parent")
            #expect(try await client.execute(uri: "/parent/wiring/events", method: .get).status == .seeOther)
            #expect(try await client.execute(uri: "/api/v1/parent/wiring", method: .get).status == .unauthorized)

            var browser = try await signedInParent(client)
            let (_, page) = try await browser.get(client, "/parent/wiring")
            #expect(page.contains("Box offline"))
            let tried = try await browser.post(client, "/parent/wiring", [("sound", "lock_in")])
            #expect(tried.status == .serviceUnavailable && String(buffer: tried.body).contains("The box is offline"))
            try await client.execute(uri: "/parent/wiring/events", method: .get, headers: browser.cookieHeader) { response in
                let body = String(buffer: response.body)
                #expect(body.hasPrefix("retry: 5000\n\nevent: check\ndata: {\"listening\":false,\"reason\":\"cannot reach the box (the box is not running)\"}"), "\(body)")
                #expect(!body.contains(args.socketPath))
            }
        }
    }

    @Test("the page's event stream holds a button check on the box and relays its presses; when the box goes, the page is told")
    func pressesRelayed() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let browser = try await signedInAPIParent(client)
            let cookies = browser.cookieHeader
            async let stream = client.execute(uri: "/parent/wiring/events", method: .get, headers: cookies)
            try await PresenceTests.waitFor("the relay holds a button check") { box.commands.contains("button-check") && box.subscriberCount == 1 }
            box.emit(#"{"type":"event","event":"press","button":"lock","pressed":true}"#)
            box.emit(#"{"type":"event","event":"led","pattern":"test-red"}"#)
            box.emit(#"{"type":"event","event":"press","button":"lock","pressed":false}"#)
            try await Task.sleep(for: .milliseconds(200))
            box.disconnectAll()
            let body = String(buffer: try await stream.body)
            #expect(body.contains("event: check\ndata: {\"listening\":true}\n\n"), "\(body)")
            #expect(body.contains("event: press\ndata: {\"button\":\"lock\",\"pressed\":true}\n\nevent: press\ndata: {\"button\":\"lock\",\"pressed\":false}\n\n"))
            #expect(!body.contains("led"), "the wiring page gets presses and the check's state only")
            #expect(body.hasSuffix("event: check\ndata: {\"listening\":false,\"reason\":\"the box stopped\"}\n\n"))
        }
    }

    @Test("API: GET lists what can be checked; POST tries one output (422 for an unknown name, 409 when the box refuses, 503 offline)")
    func api() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let browser = try await signedInAPIParent(client)
            let list = try await client.execute(uri: "/api/v1/parent/wiring", method: .get, headers: browser.cookieHeader)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: list.body)) as? [String: Any])
            #expect(json["online"] as? Bool == true && json["phase"] as? String == "idle")
            let choices = try #require(json["choices"] as? [String: [[String: String]]])
            #expect(choices["buttons"]?.map { $0["id"] ?? "" } == ["lock", "stop", "up", "down"])
            #expect(choices["sounds"]?.count == 12 && choices["leds"]?.count == 7 && choices["buzzerPatterns"]?.count == 6)

            // The API document names exactly the outputs the page offers.
            let document = try await client.execute(uri: "/api/openapi.json", method: .get)
            let paths = try #require(try JSONSerialization.jsonObject(with: Data(buffer: document.body)) as? [String: Any])["paths"] as? [String: Any]
            let operation = ((paths?["/api/v1/parent/wiring"] as? [String: Any])?["post"] as? [String: Any])?["requestBody"] as? [String: Any]
            let body = ((operation?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
            let fields = try #require(body?["properties"] as? [String: [String: [String]]])
            #expect(fields["led"]?["enum"] == WiringController.leds.map(\.id))
            #expect(fields["buzzer"]?["enum"] == WiringController.buzzerPatterns.map(\.id))
            #expect(fields["sound"]?["enum"] == WiringController.sounds.map(\.id))

            func post(_ body: String, token: Bool = true) async throws -> TestResponse {
                try await client.execute(uri: "/api/v1/parent/wiring", method: .post, headers: browser.jsonHeaders(token: token), body: ByteBuffer(string: body))
            }
            let ok = try await post(#"{"buzzer":"celebration"}"#)
            #expect(ok.status == .ok && String(buffer: ok.body).contains(#""message":"The buzzer plays “Celebration”""#))
            #expect(try await post(#"{"buzzer":"celebration"}"#, token: false).status == .forbidden)
            let unknown = try await post(#"{"sound":"fanfare"}"#)
            #expect(unknown.status == .unprocessableContent && String(buffer: unknown.body).contains(#""field":"sound""#))
            #expect(try await post("[1]").status == .badRequest)
            box.refusals.withLock { $0["test-output"] = "test-output: a quest is running (estimating); wiring checks wait until it ends" }
            #expect(try await post(#"{"led":"blue"}"#).status == .conflict)
            box.stop()
            box.disconnectAll()
            #expect(try await post(#"{"led":"blue"}"#).status == .serviceUnavailable)
        }
    }
}
