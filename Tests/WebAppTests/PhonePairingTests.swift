import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import BoxProtocol
import QuestCore
import QuestReports
import QuestStore
import SystemClock
import TestSupport
import Testing
@testable import WebApp

/// PRIV-1 and PRIV-1 (#48): her pages are private on a fresh box, and her phone is paired
/// by a code the box gives, with no parent.
@Suite("PRIV-1 her phone paired at the box")
struct PhonePairingTests {
    /// The code the web app asked the box to show last.
    static func shownCode(_ box: FakeBox) -> String? { box.pairs.withLock { $0.last { $0.action == "show" }?.code } }

    @Test("PRIV-1: a fresh store's pages are paired-only; a box in use keeps them open through the migration; the setting still switches")
    func privateByDefault() throws {
        let (fresh, _) = try freshDatabase()
        #expect(try fresh.settings.current().playerPagesPaired)
        #expect(try SettingsCatalog.value(of: "web.player-pages", in: fresh.settings.current(), routines: []).value == "paired")
        try SettingsCatalog.set("web.player-pages", to: "open", in: fresh.settings)
        #expect(try !fresh.settings.current().playerPagesPaired)
    }

    @Test("PRIV-1: an unpaired phone gets a code from the box, types it and sees her pages, paired to press nothing; a wrong code says the tries left")
    func pairedAtTheBox() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine], playerPages: "paired")
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var phone = BrowserSession()
            let (status, page) = try await phone.get(client, "/stats")
            #expect(status == .forbidden && page.contains("Get a code from the box") && !page.contains("Tooth Time"))
            let asked = try await phone.post(client, "/pair/phone", [("back", "/stats")])
            #expect(asked.status == .seeOther && asked.headers[.location] == "/stats")
            let code = try #require(Self.shownCode(box))
            #expect(QuestMachine.isPairingCode(code))
            let name = try #require(box.pairs.withLock { $0.last?.name })
            #expect(name.hasPrefix("phone-") && !phone.cookies.values.contains { $0.contains(name) }, "the box never learns the phone's secret")
            let (_, asking) = try await phone.get(client, "/stats")
            #expect(asking.contains("The code the box shows") && !asking.contains(code), "the page asks for the code and never shows it")

            let wrong = try await phone.post(client, "/pair/phone/code", [("code", code == "000000" ? "111111" : "000000"), ("back", "/stats")])
            #expect(wrong.status == .unprocessableContent && String(buffer: wrong.body).contains("4 tries left"))
            #expect(try db.kiosks.all().isEmpty)
            let typed = try await phone.post(client, "/pair/phone/code", [("code", "\(code.prefix(3)) \(code.suffix(3))"), ("back", "/stats")])
            #expect(typed.status == .seeOther && typed.headers[.location] == "/stats")
            #expect(box.pairs.withLock { $0.last.map { ($0.name, $0.action) } } ?? ("", "") == (name, "done"))
            let paired = try db.kiosks.all()
            #expect(paired.map(\.canPress) == [false] && paired.map(\.name) == [PhonePairingController.pairedName])
            let (after, stats) = try await phone.get(client, "/stats")
            #expect(after == .ok && stats.contains("Your stats"), "her phone sees her pages")
            #expect(try await phone.post(client, "/kiosk/press", [("button", "lock"), ("action", "tap")]).status == .forbidden, "and presses nothing")
            // The code is spent.
            var other = BrowserSession()
            _ = try await other.get(client, "/stats")
            let reused = try await other.post(client, "/pair/phone/code", [("code", code), ("back", "/stats")])
            #expect(reused.status == .conflict && String(buffer: reused.body).contains("No code waits for this phone"))
        }
    }

    @Test("PRIV-1: while one phone's code shows another is refused; a box that refuses (a quest) or is not running says so; a code the box took away pairs nothing")
    func refusals() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine], playerPages: "paired")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var first = BrowserSession(), second = BrowserSession()
            _ = try await first.get(client, "/me")
            _ = try await second.get(client, "/me")
            #expect(try await first.post(client, "/pair/phone", [("back", "/me")]).status == .seeOther)
            let busy = try await second.post(client, "/pair/phone", [("back", "/me")])
            #expect(busy.status == .conflict && String(buffer: busy.body).contains("The box shows another phone"))
            #expect(box.pairs.withLock { $0.count } == 1, "the box was not asked again")

            // The box took the code away (a button at the box): typing it pairs nothing.
            box.refusals.withLock { $0["pair"] = "pair: the box no longer shows that code (a button was pressed, or 2 minutes passed)" }
            let code = try #require(Self.shownCode(box))
            let gone = try await first.post(client, "/pair/phone/code", [("code", code), ("back", "/me")])
            #expect(gone.status == .conflict && String(buffer: gone.body).contains("no longer shows that code"))
            #expect(try db.kiosks.all().isEmpty)

            box.refusals.withLock { $0["pair"] = "pair: a quest is running (active); the box gives a phone's code only between quests" }
            try await Task.sleep(nanoseconds: 2_100_000_000)  // asks are 2 s apart
            let playing = try await second.post(client, "/pair/phone", [("back", "/me")])
            #expect(playing.status == .conflict && String(buffer: playing.body).contains("The box is in a quest"))
        }
    }

    @Test("PRIV-1: the box's code never leaves the box by the web app: not in /api/v1/state, /kiosk, its events or to a phone; only the box's own glass (a kiosk paired to press) gets it")
    func codeStaysOnTheBox() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine], playerPages: "paired")
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        box.stateScreen.withLock { $0 = #"{"kind":"pairing","code":"538102"}"# }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var stranger = BrowserSession()
            for path in ["/api/v1/state", "/kiosk", "/kiosk/pairing-code"] {
                let (_, body) = try await stranger.get(client, path)
                #expect(!body.contains("538102") && !body.contains("538 102"), "\(path) carries the code: \(body.prefix(300))")
            }
            #expect(try await stranger.get(client, "/kiosk/pairing-code").0 == .notFound)
            let (_, kiosk) = try await stranger.get(client, "/kiosk")
            #expect(kiosk.contains("Pair a phone?") && kiosk.contains(ScreenPhrases.pairingOnTheBox), "the kiosk says where the code is")
            let frame = String(buffer: BoxEventRelay.kioskFrame(KioskView(.online(BoxMessage.event("screen") {
                $0.screen = ScreenPayload(.pairing(PairingScreen(code: "538102")))
            }))))
            #expect(frame.contains("pairing") && !frame.contains("538102") && !frame.contains("538 102"), "the kiosk's events leave it out: \(frame)")

            // The box's own glass: a kiosk the parent paired to press its buttons.
            var glass = BrowserSession()
            _ = try await glass.get(client, "/kiosk")
            _ = try await glass.post(client, "/kiosk/pair", [])
            let (_, asking) = try await glass.get(client, "/kiosk")
            let code = try #require(TouchKioskTests.pairCode(asking))
            var parent = try await signedInParent(client)
            _ = try await parent.get(client, "/parent/kiosks")
            #expect(try await parent.post(client, "/parent/kiosks/pair", [("code", code), ("name", "The box's glass"), ("press", "on")]).status == .seeOther)
            let (_, own) = try await glass.get(client, "/kiosk")
            #expect(own.contains("538 102"), "the box's own glass shows the code")
            let (status, fetched) = try await glass.get(client, "/kiosk/pairing-code")
            #expect(status == .ok && fetched.contains("538 102"))
            // A phone paired to show her pages gets no code either.
            var phone = BrowserSession()
            _ = try await phone.get(client, "/stats")
            _ = try await phone.post(client, "/kiosk/pair", [("back", "/stats")])
            let phoneCode = try #require(TouchKioskTests.pairCode(try await phone.get(client, "/stats").1))
            _ = try await parent.get(client, "/parent/kiosks")
            _ = try await parent.post(client, "/parent/kiosks/pair", [("code", phoneCode), ("name", "Her phone")])
            #expect(try await phone.get(client, "/kiosk/pairing-code").0 == .notFound)
            #expect(!(try await phone.get(client, "/kiosk").1.contains("538 102")))
        }
    }

    @Test("PRIV-1: with no box running the page says so (and that a parent can pair the phone)")
    func noBox() async throws {
        let (args, _) = try TestArguments.fresh(routines: [morningRoutine], playerPages: "paired")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var phone = BrowserSession()
            _ = try await phone.get(client, "/me")
            let offline = try await phone.post(client, "/pair/phone", [("back", "/me")])
            #expect(offline.status == .conflict && String(buffer: offline.body).contains("The box is not running"))
            #expect(String(buffer: offline.body).contains("Get a code from the box"), "the page offers to ask again")
        }
    }

    @Test("PRIV-1 bounds: 5 tries a code (then the box takes it back), 10 wrong codes in all pause entry 15 min, 2 minutes a code, asks 2 s apart, 5 per 15 min from one address and 20 in all")
    func bounds() async throws {
        let dir = NSTemporaryDirectory() + "questbox-web-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let box = try FakeBox(path: dir + "/questbox.sock")
        defer { box.stop() }
        let clock = FakeSystemClock(wall: Date())
        let pairing = PhonePairing(clock: clock, box: box.patientLink)
        let wrong = { (code: String) in code == "000000" ? "111111" : "000000" }

        #expect(await pairing.ask(token: "t1", client: "a") == .shown)
        var code = try #require(Self.shownCode(box))
        for tried in 1..<PhonePairing.triesPerCode {
            #expect(await pairing.enter(code: wrong(code), token: "t1") == .wrong(triesLeft: PhonePairing.triesPerCode - tried))
        }
        #expect(await pairing.enter(code: code, token: "t2") != .paired, "the right code from another browser pairs nothing")
        let fifth = await pairing.enter(code: wrong(code), token: "t1")
        #expect(fifth == .over("Five wrong codes. Ask again for a new one."))
        #expect(box.pairs.withLock { $0.last?.action } == "stop", "the box took the code back")
        #expect(await pairing.enter(code: code, token: "t1") != .paired, "nor the right one after")

        clock.advance(seconds: 3)
        #expect(await pairing.ask(token: "t1", client: "a") == .shown)
        code = try #require(Self.shownCode(box))
        for _ in 0..<PhonePairing.wrongCodesBeforePause - PhonePairing.triesPerCode - 2 {
            _ = await pairing.enter(code: wrong(code), token: "t1")
        }
        #expect(await pairing.enter(code: wrong(code), token: "t1") == .wrong(triesLeft: 1))
        clock.advance(seconds: 3)
        #expect(await pairing.ask(token: "t3", client: "b") == .refused(PhonePairing.anotherPhone))
        #expect(await pairing.enter(code: wrong(code), token: "t1") == .over("Five wrong codes. Ask again for a new one."))
        #expect(await pairing.enter(code: code, token: "t1") == .over("Too many wrong codes. Try again in 15 minutes, or ask a parent to pair this phone."),
                "10 wrong codes in all: code entry pauses for everyone")
        clock.advance(seconds: 15 * 60)
        #expect(await pairing.enter(code: code, token: "t1") == .over("No code waits for this phone. Ask again."))
        clock.advance(seconds: 3)
        #expect(await pairing.ask(token: "t1", client: "a") == .shown)
        clock.advance(seconds: 121)
        #expect(await pairing.enter(code: try #require(Self.shownCode(box)), token: "t1") == .over("The 2 minutes ran out. Ask again."))

        // Asks: 2 s apart, 5 per 15 minutes from one address, 20 in all.
        let limits = PhonePairing(clock: clock, box: box.patientLink)
        #expect(await limits.ask(token: "a1", client: "a") == .shown)
        #expect(await limits.ask(token: "a1", client: "a") == .shown, "asked again by the same browser: the same code")
        #expect(await limits.ask(token: "b1", client: "b") == .refused(PhonePairing.anotherPhone))
        clock.advance(seconds: 121)
        box.refusals.withLock { $0["pair"] = "pair: a quest is running (active); the box gives a phone's code only between quests" }
        #expect(await limits.ask(token: "a2", client: "a") == .refused("The box is in a quest. Ask again when it shows the quest list."))
        #expect(await limits.ask(token: "b1", client: "b") == .tooMany(retryAfter: 2), "asks are 2 s apart")
        box.refusals.withLock { $0["pair"] = nil }
        for i in 3...PhonePairing.asksPerClient {
            clock.advance(seconds: 121)
            #expect(await limits.ask(token: "a\(i)", client: "a") == .shown, "\(i)")
        }
        clock.advance(seconds: 121)
        let sixth = await limits.ask(token: "a9", client: "a")
        #expect(sixth == .tooMany(retryAfter: 15 * 60 - 5 * 121), "\(sixth)")
        #expect(await limits.ask(token: "b1", client: "b") == .shown, "another address may still ask")
        // 6 asks so far counted (a1 to a5 and b1); each ask counts whatever the box says.
        clock.advance(seconds: 121)
        box.refusals.withLock { $0["pair"] = "pair: a quest is running (active); the box gives a phone's code only between quests" }
        for i in 0..<(PhonePairing.asksInAll - 6) {
            clock.advance(seconds: 3)
            #expect(await limits.ask(token: "c\(i)", client: "c\(i)") == .refused("The box is in a quest. Ask again when it shows the quest list."), "\(i)")
        }
        clock.advance(seconds: 3)
        guard case .tooMany = await limits.ask(token: "d", client: "d") else { Issue.record("a 21st ask in 15 minutes was taken"); return }
    }
}
