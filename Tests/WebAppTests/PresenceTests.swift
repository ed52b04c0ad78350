import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
@testable import QuestStore
import SystemClock
import Testing
@testable import WebApp

@Suite("First run: proof of being at the box (PAR-1)")
struct PresenceTests {
    static func waitFor(_ what: String, _ condition: () -> Bool) async throws {
        for _ in 0..<100 where !condition() { try await Task.sleep(for: .milliseconds(20)) }
        #expect(condition(), "\(what) within 2 s")
    }

    @Test("PAR-1: with no PIN, the box's big button pressed after the page asked lets the parent choose one; the PIN is stored hashed and the parent is signed in")
    func pressSetsUp() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (_, first) = try await browser.get(client, "/parent")
            #expect(first.contains("Set up the parent area") && first.contains("action=\"/parent/claim\""))
            let claimed = try await browser.post(client, "/parent/claim", [])
            #expect(claimed.status == .seeOther && claimed.headers[.location] == "/parent/setup")
            let (_, waiting) = try await browser.get(client, "/parent/setup")
            #expect(waiting.contains("Press the box's big button now.") && waiting.contains("data-phase=\"waiting\""))
            #expect(box.subscriberCount == 1, "the page asks for the press once the box listens")
            #expect(box.commands.contains("button-check"), "the box holds its buttons: the press starts no quest")
            box.emit(#"{"type":"event","event":"press","button":"stop","pressed":true}"#)
            box.emit(#"{"type":"event","event":"press","button":"lock","pressed":false}"#)
            try await Task.sleep(for: .milliseconds(200))
            let (_, still) = try await browser.get(client, "/parent/setup/state")
            #expect(still == #"{"phase":"waiting"}"#, "another button, or a release, proves nothing")
            box.emit(#"{"type":"event","event":"press","button":"lock","pressed":true}"#)
            var phase = ""
            for _ in 0..<100 where phase != #"{"phase":"confirmed"}"# {
                phase = try await browser.get(client, "/parent/setup/state").1
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(phase == #"{"phase":"confirmed"}"#)
            try await Self.waitFor("the subscription closed once confirmed") { box.subscriberCount == 0 }
            let (_, choose) = try await browser.get(client, "/parent/setup")
            #expect(choose.contains("The box felt it.") && choose.contains("action=\"/parent/setup/pin\""))
            let differ = try await browser.post(client, "/parent/setup/pin", [("pin", "2468"), ("again", "2469")])
            #expect(differ.status == .unprocessableContent && String(buffer: differ.body).contains("The two PINs differ."))
            let short = try await browser.post(client, "/parent/setup/pin", [("pin", "12"), ("again", "12")])
            #expect(short.status == .unprocessableContent && String(buffer: short.body).contains("PIN: must be 4 to 8 digits"))
            #expect(try db.settings().hasPIN == false)
            let set = try await browser.post(client, "/parent/setup/pin", [("pin", "2468"), ("again", "2468")])
            #expect(set.status == .seeOther && set.headers[.location] == "/parent")
            #expect(try db.verifyPIN("2468", monotonicNanos: 0, bootID: "t") == .accepted)
            let (_, home) = try await browser.get(client, "/parent")
            #expect(home.contains("Daily Quest") && home.contains("Sign out"), "signed in at once")
            let again = try await browser.post(client, "/parent/setup/pin", [("pin", "1111"), ("again", "1111")])
            let stillOld = try db.verifyPIN("2468", monotonicNanos: 0, bootID: "t")
            #expect(again.status == .seeOther && stillOld == .accepted, "a claim sets one PIN, once")
        }
    }

    @Test("PAR-1: the code is shown only on the box's own screen (a page from 127.0.0.1), never in the event stream; the right code confirms, and a forgotten PIN is reset the same way, ending old sessions", arguments: [TestingSetup.live])
    func codeOnTheBoxScreen(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.setPIN("1357")
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var other = BrowserSession()
            _ = try await other.get(client, "/parent")
            _ = try await other.post(client, "/parent/sign-in", [("pin", "1357")])
            #expect(try await other.get(client, "/parent").1.contains("Daily Quest"), "a session opened with the old PIN")
            var parent = BrowserSession()
            let (_, signIn) = try await parent.get(client, "/parent")
            #expect(signIn.contains("Forgot the PIN?"))
            _ = try await parent.post(client, "/parent/claim", [])
            let (_, waiting) = try await parent.get(client, "/parent/setup")
            #expect(waiting.contains("Reset the PIN") && waiting.contains("Type the code on the box"))
            // The test client is on this machine, as the box's own kiosk browser is.
            var box = BrowserSession()
            let (_, kiosk) = try await box.get(client, "/kiosk")
            let code = try #require(kiosk.range(of: #"Set-up code <strong>[0-9]{6}</strong>"#, options: .regularExpression).map { String(kiosk[$0].dropFirst(20).prefix(6)) })
            var shown = BrowserSession()
            let (status, json) = try await shown.get(client, "/kiosk/setup-code")
            #expect(status == .ok && json == #"{"code":"\#(code)"}"#)
            let wrong = try await parent.post(client, "/parent/setup/code", [("code", code == "000000" ? "111111" : "000000")])
            #expect(wrong.status == .unprocessableContent && String(buffer: wrong.body).contains("That is not the code on the box&#39;s screen."))
            let right = try await parent.post(client, "/parent/setup/code", [("code", code)])
            #expect(right.status == .seeOther)
            let (gone, _) = try await shown.get(client, "/kiosk/setup-code")
            #expect(gone == .notFound, "no code once confirmed")
            _ = try await parent.post(client, "/parent/setup/pin", [("pin", "24680"), ("again", "24680")])
            #expect(try db.verifyPIN("24680", monotonicNanos: 0, bootID: "t") == .accepted)
            let (_, after) = try await other.get(client, "/parent")
            #expect(!after.contains("Daily Quest") && after.contains("name=\"pin\""), "the new PIN ended the old session")
            #expect(try await parent.get(client, "/parent").1.contains("Daily Quest"))
        }
    }

    @Test("the code never reaches a page from elsewhere, and the setup event carries none")
    func codeNotForOthers() async throws {
        let (args, _) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var parent = BrowserSession()
            _ = try await parent.get(client, "/parent")
            _ = try await parent.post(client, "/parent/claim", [])
            // The in-process client has no address: it is not the box.
            var other = BrowserSession()
            let (status, _) = try await other.get(client, "/kiosk/setup-code")
            #expect(status == .notFound)
            let (_, kiosk) = try await other.get(client, "/kiosk")
            #expect(!kiosk.contains("Set-up code <strong>") || kiosk.contains("Set-up code <strong></strong>"))
        }
        #expect(String(buffer: BoxEventRelay.setupFrame(waiting: true)) == "event: setup\ndata: {\"waiting\":true}\n\n")
    }

    @Test("PAR-1: two claims at once fail both; claims are spaced 2 s; a claim lasts 2 minutes; 5 wrong codes end a claim and 10 in all pause codes for 15 minutes")
    func claimRules() async throws {
        let clock = FakeSystemClock(wall: Date())
        let presence = PresenceCheck(clock: clock, socketPath: "/nonexistent/questbox.sock")
        let parent = try #require(await presence.start())
        #expect(await presence.start() == nil, "a second claim within 2 s is turned away")
        clock.advance(seconds: 3)
        let stranger = try #require(await presence.start())
        #expect(presence.phase(of: parent) == nil && presence.phase(of: stranger) != .waiting, "neither goes on")
        #expect(presence.waitingCode == nil)
        clock.advance(seconds: 3)
        let late = try #require(await presence.start())
        #expect(presence.phase(of: late) == .waiting && presence.waitingCode?.count == 6)
        clock.advance(seconds: 121)
        #expect(presence.phase(of: late) == .failed("The 2 minutes ran out. Start again.") && presence.waitingCode == nil)
        // Wrong codes: five end a claim; ten in all close code entry for 15 minutes.
        var wrongInAll = 0
        for _ in 0..<2 {
            clock.advance(seconds: 3)
            let id = try #require(await presence.start())
            let code = presence.waitingCode ?? ""
            let wrong = code == "000000" ? "000001" : "000000"
            for _ in 0..<4 { #expect(presence.enter(code: wrong, claim: id) == .waiting); wrongInAll += 1 }
            #expect(presence.enter(code: wrong, claim: id) == .failed("Five wrong codes. Start again for a new one."))
            wrongInAll += 1
        }
        #expect(wrongInAll == 10)
        clock.advance(seconds: 3)
        let paused = try #require(await presence.start())
        let code = presence.waitingCode ?? ""
        #expect(presence.enter(code: code, claim: paused) == .failed("Too many wrong codes. Press the box's button instead, or try the code again in 15 minutes."))
        #expect(presence.phase(of: paused) == .waiting, "the button still works")
        clock.advance(seconds: 15 * 60)
        #expect(presence.phase(of: paused) != .waiting)
        let fresh = try #require(await presence.start())
        #expect(presence.enter(code: " \(presence.waitingCode ?? "") ", claim: fresh) == .confirmed)
        #expect(presence.consume(fresh) && !presence.consume(fresh))
    }
}
