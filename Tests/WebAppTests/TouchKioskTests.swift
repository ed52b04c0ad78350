import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestReports
import QuestStore
import SystemClock
import TestSupport
import Synchronization
import Testing
@testable import WebApp

/// #33: on a touch display the kiosk is the box: a kiosk a parent paired behind the PIN
/// presses the box's buttons through its socket; every other browser only looks.
@Suite("#33 touch kiosks")
struct TouchKioskTests {
    static func pairCode(_ page: String) -> String? {
        guard let range = page.range(of: #"enters <strong>[0-9]{6}</strong>"#, options: .regularExpression) else { return nil }
        return String(page[range].dropFirst(15).prefix(6))
    }

    @Test("a kiosk asks, a parent enters its code, and only then do its buttons press the box; a stranger's browser looks and presses nothing; unpaired, the buttons stop")
    func pairThenPress() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var kiosk = BrowserSession()
            var (status, page) = try await kiosk.get(client, "/kiosk")
            #expect(status == .ok && !page.contains("data-touch") && page.contains("Use this screen's buttons"))
            let early = try await kiosk.post(client, "/kiosk/press", [("button", "lock"), ("action", "down")])
            #expect(early.status == .forbidden, "not paired: view only")

            #expect(try await kiosk.post(client, "/kiosk/pair", []).status == .seeOther)
            let token = try #require(kiosk.cookies[KioskPairingRequests.cookieName])
            (_, page) = try await kiosk.get(client, "/kiosk")
            let code = try #require(Self.pairCode(page), "the kiosk shows its code")
            #expect(!page.contains("Use this screen's buttons") && !page.contains("data-touch"))
            let waiting = try await client.execute(uri: "/kiosk/pairing", method: .get, headers: kiosk.cookieHeader)
            #expect(String(buffer: waiting.body) == #"{"code":"\#(code)","paired":false}"# || String(buffer: waiting.body) == #"{"paired":false,"code":"\#(code)"}"#)
            #expect(try await kiosk.post(client, "/kiosk/pair", []).status == .seeOther)
            (_, page) = try await kiosk.get(client, "/kiosk")
            #expect(Self.pairCode(page) == code, "asking again keeps the code")

            // Only a signed-in parent pairs.
            var stranger = BrowserSession()
            _ = try await stranger.get(client, "/kiosk")
            let sneaky = try await stranger.post(client, "/parent/kiosks/pair", [("code", code), ("name", "Mine")])
            #expect(sneaky.headers[.location] != "/parent/kiosks?done=paired", "sent to sign in")
            #expect(try db.kiosks.all().isEmpty)

            var parent = try await signedInParent(client)
            (_, page) = try await parent.get(client, "/parent/kiosks")
            #expect(page.contains("No kiosk is paired"))
            let wrong = try await parent.post(client, "/parent/kiosks/pair", [("code", code == "000000" ? "000001" : "000000"), ("name", "Kitchen")])
            #expect(wrong.status == .unprocessableContent && String(buffer: wrong.body).contains("No kiosk shows that code now"))
            let badName = try await parent.post(client, "/parent/kiosks/pair", [("code", code), ("name", "\u{7}")])
            #expect(badName.status == .unprocessableContent && String(buffer: badName.body).contains("Give the kiosk a name"))
            let fresh = code  // a refused name leaves the code waiting
            let paired = try await parent.post(client, "/parent/kiosks/pair", [("code", String(fresh.prefix(3)) + " " + String(fresh.dropFirst(3))), ("name", "Kitchen display"), ("press", "on")])
            #expect(paired.status == .seeOther)
            #expect(try db.kiosks.all().map(\.name) == ["Kitchen display"])
            #expect(try db.kiosks.paired(token: token) != nil, "the kiosk's own token, kept since it asked")
            #expect(try await parent.post(client, "/parent/kiosks/pair", [("code", fresh), ("name", "Again")]).status == .unprocessableContent, "a code pairs once")

            (_, page) = try await kiosk.get(client, "/kiosk")
            #expect(page.contains(#"data-touch="1""#) && page.contains(#"data-button="lock""#))
            #expect(page.contains("data-csrf=\"\(kiosk.csrf)\""), "the buttons carry the page's token")
            let pairing = try await client.execute(uri: "/kiosk/pairing", method: .get, headers: kiosk.cookieHeader)
            #expect(String(buffer: pairing.body).contains(#""paired":true"#))
            let down = try await kiosk.post(client, "/kiosk/press", [("button", "lock"), ("action", "down")])
            #expect(down.status == .noContent)
            #expect(try await kiosk.post(client, "/kiosk/press", [("button", "lock"), ("action", "up")]).status == .noContent)
            #expect(box.touches.withLock { $0 } == ["lock down", "lock up"], "a touch, never a press of the box's own buttons")
            #expect(!box.commands.contains("press"))
            #expect(try await kiosk.post(client, "/kiosk/press", [("button", "start"), ("action", "down")]).status == .badRequest)
            #expect(try await kiosk.post(client, "/kiosk/press", [("button", "lock"), ("action", "down")], csrf: "00").status == .forbidden, "CSRF")

            // A stranger: no buttons, and neither a made-up token nor the kiosk's code pairs it.
            (_, page) = try await stranger.get(client, "/kiosk")
            #expect(!page.contains("data-touch"))
            stranger.cookies[KioskPairingRequests.cookieName] = KioskPairingStore.newToken()
            #expect(try await stranger.post(client, "/kiosk/press", [("button", "stop"), ("action", "tap")]).status == .forbidden)
            #expect(box.touches.withLock { $0.count } == 2)

            // The parent's list, then unpairing while STOP is held on the glass: the box lets
            // it go (the kiosk's own "up" would be refused), and the kiosk's next press is refused.
            #expect(try await kiosk.post(client, "/kiosk/press", [("button", "stop"), ("action", "down")]).status == .noContent)
            (_, page) = try await parent.get(client, "/parent/kiosks")
            #expect(page.contains("Kitchen display"))
            #expect(page.contains("presses the box"))
            #expect(page.components(separatedBy: "name=\"csrf\" value=\"\(parent.csrf)\"").count == 4, "each form has the token (pair, this browser, unpair)")
            let id = try #require(try db.kiosks.all().first?.id)
            #expect(try await parent.post(client, "/parent/kiosks/\(id)/unpair", []).status == .seeOther)
            #expect(box.touches.withLock { $0 } == ["lock down", "lock up", "stop down", "stop up"], "unpairing lets STOP go")
            #expect(try await kiosk.post(client, "/kiosk/press", [("button", "lock"), ("action", "tap")]).status == .forbidden)
            #expect(try await kiosk.post(client, "/kiosk/press", [("button", "stop"), ("action", "up")]).status == .forbidden)
            #expect(box.touches.withLock { $0.count } == 4)
            (_, page) = try await kiosk.get(client, "/kiosk")
            #expect(!page.contains("data-touch") && page.contains("Use this screen's buttons"))
        }
    }

    /// A hold limit that passes when the test says so.
    final class LimitAtWill: Sendable {
        private let passed = Mutex(false)
        func pass() { passed.withLock { $0 = true } }
        var hasPassed: Bool { passed.withLock { $0 } }
    }

    /// A kiosk's presses on a fake box, whose hold limit passes at the test's word.
    static func pressesWithLimitAtWill() throws -> (FakeBox, KioskPresses, LimitAtWill) {
        let (args, _) = try TestArguments.fresh()
        let box = try FakeBox(path: args.socketPath)
        let limit = LimitAtWill()
        let presses = KioskPresses(box: box.patientLink, holdLimitNanos: 1) { _ in
            while !limit.hasPassed { try? await Task.sleep(nanoseconds: 10_000_000) }
        }
        return (box, presses, limit)
    }

    @Test("a kiosk's presses reach the box one at a time in the order they came (a tap's up never overtakes its down), and a hold never lifted is let go after the limit, once")
    func pressesInOrder() async throws {
        let (box, presses, limitPassed) = try Self.pressesWithLimitAtWill()
        defer { box.stop() }
        let kitchen: Int64 = 7
        // The box takes 300 ms over each touch: the up, sent 50 ms after the down, waits for it.
        box.replyDelaysMs.withLock { $0["touch"] = 300 }
        let started = ContinuousClock.now
        let down = Task { try await presses.press(.lock, .down) { kitchen } }
        try await Task.sleep(nanoseconds: 50_000_000)
        let up = try await presses.press(.lock, .up) { kitchen }
        let elapsed = ContinuousClock.now - started
        guard case .success = try await down.value, case .success = up else { Issue.record("a press was not answered"); return }
        #expect(box.touches.withLock { $0 } == ["lock down", "lock up"])
        #expect(elapsed >= .milliseconds(600), "the up went only once the down was answered: \(elapsed)")
        #expect(await presses.held.isEmpty)
        box.replyDelaysMs.withLock { $0 = [:] }

        // A hold whose lift never comes (the page closed): the box gets its "up" once the limit passes.
        _ = try await presses.press(.stop, .down) { kitchen }
        // A hold lifted in time is not let go again by its limit.
        _ = try await presses.press(.up, .down) { kitchen }
        _ = try await presses.press(.up, .up) { kitchen }
        #expect(await presses.held == [7: [.stop]])
        #expect(box.touches.withLock { $0.count } == 5, "nothing let go before the limit")
        limitPassed.pass()
        let deadline = ContinuousClock.now + .seconds(30)
        while await presses.limitsRunning > 0, ContinuousClock.now < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(await presses.limitsRunning == 0)
        #expect(box.touches.withLock { $0.suffix(4) } == ["stop down", "up down", "up up", "stop up"])
        #expect(await presses.held.isEmpty)
        // A kiosk gone (unpaired meanwhile) presses nothing.
        let gone = try await presses.press(.lock, .tap) { nil }
        #expect(gone == nil)
        #expect(box.touches.withLock { $0.count } == 6)
    }

    @Test("#47: a kiosk re-sending down while it holds a button starts no new limit: the hold is let go the limit after its first down")
    func resentDownKeepsTheLimit() async throws {
        let (box, presses, limitPassed) = try Self.pressesWithLimitAtWill()
        defer { box.stop() }
        let kitchen: Int64 = 7
        _ = try await presses.press(.stop, .down) { kitchen }
        for _ in 0..<3 { _ = try await presses.press(.stop, .down) { kitchen } }   // the finding: every 20 s
        #expect(await presses.limitsRunning == 1, "a re-sent down started a limit of its own")
        limitPassed.pass()
        let deadline = ContinuousClock.now + .seconds(30)
        while await presses.limitsRunning > 0, ContinuousClock.now < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(box.touches.withLock { $0.last } == "stop up")
        #expect(await presses.held.isEmpty, "the first down's limit let the hold go")
    }

    @Test("a parent pairs the browser in hand; the box refusing a touch is a 409, an offline box a 503")
    func pairThisBrowser() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var parent = try await signedInParent(client)
            _ = try await parent.get(client, "/parent/kiosks")
            #expect(try await parent.post(client, "/parent/kiosks/this", [("name", "This browser")]).status == .seeOther)
            var (_, page) = try await parent.get(client, "/parent/kiosks")
            #expect(page.contains("this browser") && !page.contains("Pair this browser"))
            (_, page) = try await parent.get(client, "/kiosk")
            #expect(page.contains(#"data-touch="1""#))
            #expect(try await parent.post(client, "/kiosk/press", [("button", "up"), ("action", "tap")]).status == .serviceUnavailable, "no box")
            let box = try FakeBox(path: args.socketPath)
            defer { box.stop() }
            box.refusals.withLock { $0["touch"] = "touch: the box is busy" }
            #expect(try await parent.post(client, "/kiosk/press", [("button", "up"), ("action", "tap")]).status == .conflict)
        }
    }

    @Test("pairing codes: six digits, one per asking browser, gone after 10 minutes; #47: a flood from one address evicts only its own asks, never another client's code, and a full table refuses")
    func codes() throws {
        let clock = FakeSystemClock(wall: Date(timeIntervalSince1970: 1_795_000_000))
        let requests = KioskPairingRequests(clock: clock)
        let a = KioskPairingStore.newToken(), b = KioskPairingStore.newToken()
        let codeA = try #require(requests.ask(token: a, client: "192.168.1.20"))
        #expect(codeA.count == 6 && codeA.allSatisfy(\.isNumber))
        #expect(requests.ask(token: a, client: "192.168.1.20") == codeA && requests.code(for: a) == codeA)
        let codeB = try #require(requests.ask(token: b, client: "192.168.1.20"))
        #expect(codeB != codeA)
        #expect(requests.token(forCode: "12345") == nil && requests.token(forCode: "abcdef") == nil)
        #expect(requests.token(forCode: codeB) == b)
        requests.paired(token: b)
        #expect(requests.token(forCode: codeB) == nil && requests.code(for: b) == nil, "spent")
        clock.advance(seconds: Double(KioskPairingRequests.lifetimeNanos) / 1e9 + 1)
        #expect(requests.code(for: a) == nil && requests.token(forCode: codeA) == nil, "10 minutes on")

        // The real kiosk asks; a stranger floods from one address (the issue: 16 asks in 0.28 s).
        let kiosk = KioskPairingStore.newToken()
        let kioskCode = requests.ask(token: kiosk, client: "192.168.1.30")
        var flood: [String] = []
        for _ in 0..<100 {
            let token = KioskPairingStore.newToken()
            if requests.ask(token: token, client: "192.168.1.66") != nil { flood.append(token) }
        }
        #expect(requests.code(for: kiosk) == kioskCode, "the flood took the real kiosk's code")
        #expect(flood.suffix(KioskPairingRequests.maximumPerClient).allSatisfy { requests.code(for: $0) != nil })
        #expect(flood.dropLast(KioskPairingRequests.maximumPerClient).allSatisfy { requests.code(for: $0) == nil }, "one address keeps only its newest asks")
        // Many addresses fill the table: a new one is refused, nobody's code is taken.
        var address = 0
        while requests.ask(token: KioskPairingStore.newToken(), client: "10.0.\(address / 250).\(address % 250)") != nil { address += 1 }
        #expect(address > 0 && address < KioskPairingRequests.maximumWaiting)
        #expect(requests.code(for: kiosk) == kioskCode, "a full table took the real kiosk's code")
        #expect(requests.ask(token: kiosk, client: "192.168.1.30") == kioskCode, "asking again keeps the code, full or not")
    }

    @Test("#47 token fixation: a kiosk cookie planted in a browser before is never the one paired, by the kiosk's own ask or by a parent's \"Pair this browser\"")
    func plantedTokenIsReplaced() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let planted = KioskPairingStore.newToken()
            var kiosk = BrowserSession()
            kiosk.cookies[KioskPairingRequests.cookieName] = planted
            _ = try await kiosk.get(client, "/kiosk")
            _ = try await kiosk.post(client, "/kiosk/pair", [])
            let asked = try #require(kiosk.cookies[KioskPairingRequests.cookieName])
            #expect(asked != planted, "the kiosk's ask kept the planted token")
            _ = try await kiosk.post(client, "/kiosk/pair", [])
            #expect(kiosk.cookies[KioskPairingRequests.cookieName] == asked, "asking again keeps its own token")
            var parent = try await signedInParent(client)
            parent.cookies[KioskPairingRequests.cookieName] = planted
            _ = try await parent.get(client, "/parent/kiosks")
            #expect(try await parent.post(client, "/parent/kiosks/this", [("name", "Kitchen")]).headers[.location] == "/parent/kiosks?done=paired")
            #expect(parent.cookies[KioskPairingRequests.cookieName] != planted)
            #expect(try db.kiosks.paired(token: planted) == nil, "the planted token was paired")
        }
    }

    @Test("web.player-pages paired: the player's pages and their API answer only paired screens; a stranger gets a page to ask; her phone, paired to show them, sees them and presses nothing; the kiosk stays open; open where the family set it so")
    func playerPagesForPairedScreens() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var stranger = BrowserSession()
            #expect(try await stranger.get(client, "/stats").0 == .ok, "open as set")
            try SettingsCatalog.set("web.player-pages", to: "paired", in: db.settings)
            try await Task.sleep(nanoseconds: 1_100_000_000)  // the gate reads the setting once a second
            for path in ["/", "/stats", "/me", "/quests/new", "/api/v1/stats", "/api/v1/player"] {
                let (status, page) = try await stranger.get(client, path)
                #expect(status == .forbidden, "\(path)")
                #expect(!page.contains("Tooth Time") && !page.contains("Morning Quest"), "\(path) says nothing of hers")
            }
            #expect(try await stranger.get(client, "/kiosk").0 == .ok, "the box's screen stays open")
            #expect(try await stranger.get(client, "/api/v1/state").0 == .ok)
            let (_, refusal) = try await stranger.get(client, "/stats")
            #expect(refusal.contains("These pages are the player's") && refusal.contains("Ask a parent to pair this browser") && refusal.contains("Get a code from the box"))
            let asked = try await stranger.post(client, "/kiosk/pair", [("back", "/stats")])
            #expect(asked.headers[.location] == "/stats", "back to the page that asked")
            let (_, waiting) = try await stranger.get(client, "/stats")
            let code = try #require(Self.pairCode(waiting))
            #expect(try await stranger.post(client, "/kiosk/pair", [("back", "https://elsewhere.example/")]).headers[.location] == "/kiosk", "never elsewhere")

            var parent = try await signedInParent(client)
            let (_, form) = try await parent.get(client, "/parent/kiosks")
            #expect(form.contains(#"<input type="checkbox" name="press">"#), "#48: pressing the box's buttons is unticked until the parent ticks it")
            let pairedPhone = try await parent.post(client, "/parent/kiosks/pair", [("code", code), ("name", "Her phone")])
            #expect(pairedPhone.status == .seeOther && pairedPhone.headers[.location] == "/parent/kiosks?done=shows")
            let (_, banner) = try await parent.get(client, "/parent/kiosks?done=shows")
            #expect(banner.contains("Paired to show the player") && banner.contains("that screen sees them and presses nothing."), "#48: the banner says what was paired")
            #expect(try db.kiosks.all().map(\.canPress) == [false])
            let (status, page) = try await stranger.get(client, "/stats")
            #expect(status == .ok && page.contains("Your stats"), "her phone, paired, sees her pages")
            #expect(try await stranger.get(client, "/api/v1/stats").0 == .ok)
            let (_, kiosk) = try await stranger.get(client, "/kiosk")
            #expect(!kiosk.contains("data-touch"), "a phone paired for her pages has no buttons")
            #expect(try await stranger.post(client, "/kiosk/press", [("button", "lock"), ("action", "tap")]).status == .forbidden)
            let (_, list) = try await parent.get(client, "/parent/kiosks")
            #expect(list.contains("Her phone") && list.contains("shows the player"))
        }
    }
}
