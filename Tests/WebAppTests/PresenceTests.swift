import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
@testable import QuestStore
import Synchronization
import SystemClock
import Testing
@testable import WebApp

@Suite("Claiming the box: proof of being at it (PAR-1, PAR-2)")
struct PresenceTests {
    // Waits end as soon as the condition holds; their bound (10 s) is for a loaded machine (a
    // CI run beside the tests): the box's events reach the claim on another thread.
    static func waitFor(_ what: String, _ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(20)) }
        #expect(condition(), "\(what) within 10 s")
    }

    static func phase(_ browser: inout BrowserSession, _ client: some TestClientProtocol, becomes wanted: String) async throws -> String {
        var phase = ""
        for _ in 0..<500 where phase != #"{"phase":"\#(wanted)"}"# {
            phase = try await browser.get(client, "/parent/setup/state").1
            try await Task.sleep(for: .milliseconds(20))
        }
        return phase
    }

    @Test("PAR-2: with no PIN, the web app asks the box to show the claim; only the box's word that STOP and DOWN were held allows a PIN; the PIN is stored hashed and the parent is signed in")
    func actAtTheBoxSetsUp() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (_, first) = try await browser.get(client, "/parent")
            #expect(first.contains("Set up the box") && first.contains("action=\"/parent/claim\"") && first.contains("STOP and DOWN"))
            let claimed = try await browser.post(client, "/parent/claim", [])
            #expect(claimed.status == .seeOther && claimed.headers[.location] == "/parent/setup")
            let asked = try #require(box.claims.withLock { $0.last })
            #expect(asked.action == "start" && !asked.reset && asked.name.hasPrefix("claim-"))
            #expect(QuestMachine.isClaimMatch(asked.match), "the box is given the page's code (#47): \(asked.match)")
            let spaced = asked.match.map(String.init).joined(separator: " ")
            #expect(!box.commands.contains("button-check"), "the claim holds no buttons: play goes on")
            #expect(!(claimed.headers[values: .setCookie].joined().contains(asked.name)), "the box's name for it is not the browser's secret")
            // The box is busy with a quest: it takes the claim and asks later.
            box.claimMoved("waiting")
            #expect(try await Self.phase(&browser, client, becomes: "queued") == #"{"phase":"queued"}"#)
            let (_, queued) = try await browser.get(client, "/parent/setup")
            #expect(queued.contains("The box is in the middle of a quest.") && queued.contains("data-phase=\"queued\""))
            #expect(queued.contains("Your code <strong>\(spaced)</strong>"), "the page shows the code the box will show")
            // Presses are no proof: only the box's claim events move it.
            box.emit(#"{"type":"event","event":"press","button":"lock","pressed":true}"#)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await browser.get(client, "/parent/setup/state").1 == #"{"phase":"queued"}"#)
            let early = try await browser.post(client, "/parent/setup/pin", [("pin", "0000"), ("again", "0000")])
            let hasPIN = try db.settings.current().hasPIN
            #expect(early.status == .seeOther && early.headers[.location] == "/parent/setup" && !hasPIN)
            box.claimMoved("shown")
            #expect(try await Self.phase(&browser, client, becomes: "waiting") == #"{"phase":"waiting"}"#)
            let (_, waiting) = try await browser.get(client, "/parent/setup")
            #expect(waiting.contains("On the box: check it shows <strong>\(spaced)</strong>, then hold STOP and DOWN together for 3 seconds.") && waiting.contains("data-phase=\"waiting\""))
            box.claimMoved("holding")
            box.claimMoved("confirmed")
            #expect(try await Self.phase(&browser, client, becomes: "confirmed") == #"{"phase":"confirmed"}"#)
            try await Self.waitFor("the claim's connection closed once confirmed") { box.subscriberCount == 0 }
            let (_, choose) = try await browser.get(client, "/parent/setup")
            #expect(choose.contains("The box allowed it.") && choose.contains("action=\"/parent/setup/pin\"") && choose.contains("6 to 8 digits"))
            let differ = try await browser.post(client, "/parent/setup/pin", [("pin", "2468"), ("again", "2469")])
            #expect(differ.status == .unprocessableContent && String(buffer: differ.body).contains("The two PINs differ."))
            let short = try await browser.post(client, "/parent/setup/pin", [("pin", "12"), ("again", "12")])
            #expect(short.status == .unprocessableContent && String(buffer: short.body).contains("PIN: must be 4 to 8 digits"))
            #expect(try db.settings.current().hasPIN == false)
            let set = try await browser.post(client, "/parent/setup/pin", [("pin", "246802"), ("again", "246802")])
            #expect(set.status == .seeOther && set.headers[.location] == "/parent")
            #expect(try db.parentPIN.verifyPIN("246802", monotonicNanos: 0, bootID: "t") == .accepted)
            let (_, home) = try await browser.get(client, "/parent")
            #expect(home.contains("Daily Quest") && home.contains("Sign out"), "signed in at once")
            let again = try await browser.post(client, "/parent/setup/pin", [("pin", "1111"), ("again", "1111")])
            let stillOld = try db.parentPIN.verifyPIN("246802", monotonicNanos: 0, bootID: "t")
            #expect(again.status == .seeOther && stillOld == .accepted, "a claim sets one PIN, once")
        }
    }

    @Test("PAR-2: a claim the box ends (a quest started, UP, its 2 minutes) sets nothing and says why; a reset is asked as a reset")
    func endedAtTheBox() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("135790")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            for (reason, words) in [("quest-started", "Someone started a quest on the box (LOCK)"), ("declined", "said no (UP)"), ("timed-out", "The 2 minutes ran out.")] {
                var browser = BrowserSession()
                _ = try await browser.get(client, "/parent")
                try await Task.sleep(for: .milliseconds(2_100))   // claims are spaced 2 s
                _ = try await browser.post(client, "/parent/claim", [])
                #expect(box.claims.withLock { $0.last?.reset } == true)
                box.claimMoved("shown")
                #expect(try await Self.phase(&browser, client, becomes: "waiting") == #"{"phase":"waiting"}"#)
                box.claimMoved("ended", reason: reason)
                #expect(try await Self.phase(&browser, client, becomes: "failed") == #"{"phase":"failed"}"#)
                let (_, page) = try await browser.get(client, "/parent/setup")
                #expect(page.contains(words), "\(reason): \(page)")
                let pin = try await browser.post(client, "/parent/setup/pin", [("pin", "0000"), ("again", "0000")])
                #expect(pin.status == .seeOther && pin.headers[.location] == "/parent/setup")
            }
            #expect(try db.parentPIN.verifyPIN("135790", monotonicNanos: 0, bootID: "t") == .accepted)
        }
    }

    @Test("#48: with no box running and no glass of the box to show a code, a claim is refused at once in words (it asked the parent to hold buttons on a box that was not running)")
    func noBoxNoClaim() async throws {
        let (args, _) = try TestArguments.fresh(routines: [everyDay])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var parent = BrowserSession()
            _ = try await parent.get(client, "/parent")
            let refused = try await parent.post(client, "/parent/claim", [])
            #expect(refused.status == .conflict)
            #expect(String(buffer: refused.body).contains("The box is not running, so it cannot ask you to hold its buttons."))
            #expect(parent.cookies[PresenceCheck.cookieName] == nil, "no claim was kept for the page")
        }
    }

    @Test("PAR-2: claims are at most 5 in 15 minutes per client address (#47) and 20 in all (a PIN lockout no longer stops one: PINResetPageTests)")
    func claimLimits() async throws {
        let clock = FakeSystemClock(wall: Date())
        let presence = PresenceCheck(clock: clock, socketPath: "/nonexistent/questbox.sock", hasGlass: { true })
        for _ in 0..<PresenceCheck.claimsPerPeriod {
            guard case .started = await presence.start(reset: false) else { Issue.record("a claim was refused"); return }
            clock.advance(seconds: 121)    // each one over (no box: its 2 minutes) before the next
        }
        let sixth = await presence.start(reset: false)
        #expect(sixth == .tooMany(retryAfter: 15 * 60 - 5 * 121), "\(sixth)")
        // #47: the limit is the client's: another address may still start one.
        guard case .started = await presence.start(reset: false, client: "192.168.1.9") else { Issue.record("another client was refused"); return }
        clock.advance(seconds: 15 * 60)
        guard case .started = await presence.start(reset: false) else { Issue.record("refused after 15 minutes"); return }
        // All clients together: at most 20 a quarter hour, however many addresses (claims
        // lasting a second here, so each is over before the next).
        let quick = PresenceCheck(clock: clock, socketPath: "/nonexistent/questbox.sock", limits: .init(windowNanos: 1_000_000_000, waitNanos: 1_000_000_000), hasGlass: { true })
        var started = 0
        for address in 0..<40 {
            clock.advance(seconds: 2.1)
            guard case .started = await quick.start(reset: false, client: "10.0.0.\(address)") else { break }
            started += 1
        }
        #expect(started == PresenceCheck.claimsPerPeriodInAll, "\(started) started from new addresses")
    }

    @Test("PAR-2: with no box, a claim ends after its time and the kiosk pages are told the code is gone")
    func expiresWithNoBox() async throws {
        let told = Mutex<[Bool]>([])
        let presence = PresenceCheck(
            clock: LiveSystemClock(), socketPath: "/nonexistent/questbox.sock", limits: .init(windowNanos: 300_000_000, waitNanos: 600_000_000),
            hasGlass: { true }, onCodeChange: { waiting in told.withLock { $0.append(waiting) } })
        guard case .started(let id) = await presence.start(reset: false) else { Issue.record("refused"); return }
        #expect(presence.phase(of: id) == .waiting && presence.waitingCode != nil)
        try await Self.waitFor("the kiosk told the code is gone") { told.withLock { $0 } == [true, false] }
        #expect(presence.waitingCode == nil && presence.phase(of: id) == .failed("The 2 minutes ran out. Start again."))
    }

    @Test("PAR-2 (#47): the six-digit code is shown only on the box's own glass (a kiosk paired to press its buttons), never by address (a page from 127.0.0.1 is any local user) nor in the event stream; the right code confirms, and a forgotten PIN is reset the same way (PAR-2: after its 24 hours)", arguments: [TestingSetup.live])
    func codeOnTheBoxScreen(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("1357")
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var other = BrowserSession()
            _ = try await other.get(client, "/parent")
            _ = try await other.post(client, "/parent/sign-in", [("pin", "1357")])
            #expect(try await other.get(client, "/parent").1.contains("Daily Quest"), "a session opened with the old PIN")
            // The box's own touch glass, paired by the parent before the PIN was forgotten.
            var box = BrowserSession()
            _ = try await box.get(client, "/parent")
            _ = try await box.post(client, "/parent/sign-in", [("pin", "1357")])
            _ = try await box.get(client, "/parent/kiosks")
            #expect(try await box.post(client, "/parent/kiosks/this", [("name", "The box's glass")]).headers[.location] == "/parent/kiosks?done=paired")
            _ = try await box.post(client, "/parent/sign-out", [])
            var parent = BrowserSession()
            let (_, signIn) = try await parent.get(client, "/parent")
            #expect(signIn.contains("Forgot the PIN?"))
            _ = try await parent.post(client, "/parent/claim", [])
            let (_, waiting) = try await parent.get(client, "/parent/setup")
            #expect(waiting.contains("Reset the PIN") && waiting.contains("Type the six digits on the box"))
            // A local user's browser: the same address as the box's own, unpaired. No code.
            var local = BrowserSession()
            #expect(try await local.get(client, "/kiosk/setup-code").0 == .notFound, "loopback is not the box")
            #expect(try await local.get(client, "/kiosk").1.contains("Set-up code <strong></strong>"), "loopback is not the box")
            let (_, kiosk) = try await box.get(client, "/kiosk")
            let code = try #require(kiosk.range(of: #"Set-up code <strong>[0-9]{6}</strong>"#, options: .regularExpression).map { String(kiosk[$0].dropFirst(20).prefix(6)) })
            var shown = box
            let (status, json) = try await shown.get(client, "/kiosk/setup-code")
            #expect(status == .ok && json == #"{"code":"\#(code)"}"#)
            let wrong = try await parent.post(client, "/parent/setup/code", [("code", code == "000000" ? "111111" : "000000")])
            #expect(wrong.status == .unprocessableContent && String(buffer: wrong.body).contains("That is not the code on the box&#39;s screen."))
            let right = try await parent.post(client, "/parent/setup/code", [("code", code)])
            #expect(right.status == .seeOther)
            let (gone, _) = try await shown.get(client, "/kiosk/setup-code")
            #expect(gone == .notFound, "no code once confirmed")
            _ = try await parent.post(client, "/parent/setup/pin", [("pin", "24680"), ("again", "24680")])
            // PAR-2: over an existing PIN the new one waits 24 hours (PINResetPageTests).
            #expect(try db.parentPIN.pinReset()?.state == .waiting)
            #expect(try db.parentPIN.verifyPIN("1357", monotonicNanos: 0, bootID: "t") == .accepted)
            let (_, after) = try await other.get(client, "/parent")
            #expect(after.contains("Daily Quest") && after.contains("from the page at 127.0.0.1"), "the old PIN's session sees the reset")
            let (_, door) = try await parent.get(client, "/parent")
            #expect(door.contains("name=\"pin\"") && door.contains("A new PIN was asked for at the box"))
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

    @Test("PAR-2 (#47): while a claim is open a second is refused and the first goes on with its code; claims are spaced 2 s; a claim lasts 2 minutes; 5 wrong codes end a claim and 10 in all pause codes for 15 minutes")
    func claimRules() async throws {
        let clock = FakeSystemClock(wall: Date())
        let presence = PresenceCheck(clock: clock, socketPath: "/nonexistent/questbox.sock", hasGlass: { true })
        guard case .started(let parent) = await presence.start(reset: false) else { Issue.record("refused"); return }
        let (match, firstCode) = (presence.match(of: parent), presence.waitingCode)
        #expect(match.map(QuestMachine.isClaimMatch) == true)
        for wait in [0, 3, 60] {
            clock.advance(seconds: Double(wait))
            #expect(await presence.start(reset: false) == .busy, "a second claim \(wait) s later is refused")
        }
        #expect(presence.phase(of: parent) == .waiting && presence.match(of: parent) == match && presence.waitingCode == firstCode, "the first goes on unchanged")
        clock.advance(seconds: 61)
        #expect(presence.phase(of: parent) == .failed("The 2 minutes ran out. Start again."))
        guard case .started(let late) = await presence.start(reset: false) else { Issue.record("refused once the first was over"); return }
        #expect(await presence.start(reset: false) == .busy)
        #expect(presence.phase(of: late) == .waiting && presence.waitingCode?.count == 6)
        clock.advance(seconds: 121)
        #expect(presence.phase(of: late) == .failed("The 2 minutes ran out. Start again.") && presence.waitingCode == nil)
        clock.advance(seconds: 1)
        guard case .started = await presence.start(reset: false) else { Issue.record("refused"); return }
        #expect(await presence.start(reset: false) == .busy, "an open claim is refused before the 2 s spacing is asked")
        clock.advance(seconds: 121)
        clock.advance(seconds: 15 * 60)   // past the 5 claims a quarter hour
        // Wrong codes: five end a claim; ten in all close code entry for 15 minutes.
        var wrongInAll = 0
        for _ in 0..<2 {
            clock.advance(seconds: 3)
            guard case .started(let id) = await presence.start(reset: false) else { Issue.record("refused"); return }
            let code = presence.waitingCode ?? ""
            let wrong = code == "000000" ? "000001" : "000000"
            for _ in 0..<4 { #expect(presence.enter(code: wrong, claim: id) == .waiting); wrongInAll += 1 }
            #expect(presence.enter(code: wrong, claim: id) == .failed("Five wrong codes. Start again for a new one."))
            wrongInAll += 1
        }
        #expect(wrongInAll == 10)
        clock.advance(seconds: 3)
        guard case .started(let paused) = await presence.start(reset: false) else { Issue.record("refused"); return }
        let code = presence.waitingCode ?? ""
        #expect(presence.enter(code: code, claim: paused) == .failed("Too many wrong codes. Hold STOP and DOWN on the box instead, or try the code again in 15 minutes."))
        #expect(presence.phase(of: paused) == .waiting, "the act at the box still works")
        clock.advance(seconds: 15 * 60)
        #expect(presence.phase(of: paused) != .waiting)
        guard case .started(let fresh) = await presence.start(reset: false) else { Issue.record("refused"); return }
        #expect(presence.enter(code: " \(presence.waitingCode ?? "") ", claim: fresh) == .confirmed)
        #expect(presence.consume(fresh) && !presence.consume(fresh))
    }
}

@Suite("PAR-2 (#47): a new PIN over an existing one waits 24 hours, told to the parent; the act at the box gets the parent in past a lockout")
struct PINResetPageTests {
    /// A claim made and allowed at the box (STOP and DOWN held), on a box with a PIN.
    static func confirmedClaim(_ browser: inout BrowserSession, _ client: some TestClientProtocol, box: FakeBox) async throws {
        _ = try await browser.get(client, "/parent")
        let claimed = try await browser.post(client, "/parent/claim", [])
        #expect(claimed.status == .seeOther, "the claim: \(claimed.status) \(String(buffer: claimed.body))")
        #expect(box.claims.withLock { $0.last?.reset } == true)
        box.claimMoved("shown")
        box.claimMoved("holding")
        box.claimMoved("confirmed")
        #expect(try await PresenceTests.phase(&browser, client, becomes: "confirmed") == #"{"phase":"confirmed"}"#)
    }

    @Test("PAR-2: the act's new PIN waits; the door says so without the address, the old PIN signs in and sees when and from where, and cancels it")
    func resetWaitsAndIsCancelled() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("135790")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.live) { client in
            var parent = BrowserSession()
            _ = try await parent.get(client, "/parent")
            _ = try await parent.post(client, "/parent/sign-in", [("pin", "135790")])
            var asker = BrowserSession()
            try await Self.confirmedClaim(&asker, client, box: box)
            let (_, choose) = try await asker.get(client, "/parent/setup")
            #expect(choose.contains("Remember the PIN after all?") && choose.contains("action=\"/parent/setup/sign-in\""))
            #expect(choose.contains("replaces the current one <strong>24 hours</strong> from now"))
            let set = try await asker.post(client, "/parent/setup/pin", [("pin", "246802"), ("again", "246802")])
            #expect(set.status == .seeOther && set.headers[.location] == "/parent")
            #expect(!(set.headers[values: .setCookie].joined().contains(ParentSessions.cookieName + "=")), "the asker is not signed in")
            #expect(try db.parentPIN.verifyPIN("246802", monotonicNanos: 0, bootID: "t") == .rejected(attemptsLeft: 19), "not yet the PIN")
            #expect(try db.parentPIN.verifyPIN("135790", monotonicNanos: 0, bootID: "t") == .accepted, "the old PIN still is")
            let reset = try #require(try db.parentPIN.pinReset())
            #expect(reset.state == .waiting && reset.from == "127.0.0.1")
            let (_, door) = try await asker.get(client, "/parent")
            #expect(door.contains("A new PIN was asked for at the box today ") && door.contains("It replaces the current PIN tomorrow "))
            #expect(!door.contains("127.0.0.1"), "the door does not say who asked")
            let (_, home) = try await parent.get(client, "/parent")
            #expect(home.contains("from the page at 127.0.0.1") && home.contains("unless you cancel it") && home.contains("action=\"/parent/pin-reset/cancel\""))
            let cancel = try await parent.post(client, "/parent/pin-reset/cancel", [])
            #expect(cancel.status == .seeOther && cancel.headers[.location] == "/parent?done=pin-reset-cancelled")
            let (_, after) = try await parent.get(client, "/parent?done=pin-reset-cancelled")
            #expect(after.contains("The new PIN is cancelled; your PIN stays") && !after.contains("pin-reset/cancel"))
            #expect(try db.parentPIN.pinReset()?.state == .cancelled)
            // Cancelling needs the parent's session, as every change of hers.
            var stranger = BrowserSession()
            _ = try await stranger.get(client, "/parent")
            #expect(try await stranger.post(client, "/parent/pin-reset/cancel", []).headers[.location] == "/parent")
        }
    }

    @Test("PAR-2: once 24 hours are over the new PIN is the PIN: the old one's sessions end, the new one signs in, and the parent area says it once")
    func resetApplied() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("135790")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var old = BrowserSession()
            _ = try await old.get(client, "/parent")
            _ = try await old.post(client, "/parent/sign-in", [("pin", "135790")])
            var asker = BrowserSession()
            try await Self.confirmedClaim(&asker, client, box: box)
            _ = try await asker.post(client, "/parent/setup/pin", [("pin", "246802"), ("again", "246802")])
            #expect(try await old.get(client, "/parent/settings").0 == .ok)
            // A day on the box's monotonic clock.
            try await db.pool.write { try $0.execute(sql: "UPDATE pinReset SET askedMonotonic = askedMonotonic - ?", arguments: [24 * 3600 * 1_000_000_000 as Int64]) }
            let (gone, _) = try await old.get(client, "/parent/settings")
            #expect(gone == .seeOther, "the old PIN's session ended")
            var parent = BrowserSession()
            _ = try await parent.get(client, "/parent")
            #expect(try await parent.post(client, "/parent/sign-in", [("pin", "135790")]).status == .unauthorized)
            #expect(try await parent.post(client, "/parent/sign-in", [("pin", "246802")]).status == .seeOther)
            let (_, home) = try await parent.get(client, "/parent")
            #expect(home.contains("The PIN was replaced today ") && home.contains("it was asked for at the box "), "\(home)")
            #expect(!(try await parent.get(client, "/parent").1.contains("The PIN was replaced")), "said once")
        }
    }

    @Test("#47: a stranger's wrong PINs never keep the parent out: her claim starts despite the lockout and its confirmed page signs her in (3 tries a claim, 10 a day)")
    func actLiftsTheLockout() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("135790")
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            for _ in 0..<ParentPINRecords.pinAttemptsBeforeLockout { _ = try db.parentPIN.verifyPIN("0000", monotonicNanos: 0, bootID: "t") }
            var parent = BrowserSession()
            _ = try await parent.get(client, "/parent")
            #expect(try await parent.post(client, "/parent/sign-in", [("pin", "135790")]).status == .tooManyRequests)
            try await Self.confirmedClaim(&parent, client, box: box)
            for left in [2, 1, 0] {
                let wrong = try await parent.post(client, "/parent/setup/sign-in", [("pin", "1111")])
                #expect(wrong.status == .unauthorized)
                #expect(String(buffer: wrong.body).contains(left == 0 ? "this page&#39;s tries are used" : "\(left) more \(left == 1 ? "try" : "tries") on this page"))
            }
            let fourth = try await parent.post(client, "/parent/setup/sign-in", [("pin", "135790")])
            #expect(fourth.status == .tooManyRequests && String(buffer: fourth.body).contains("This page&#39;s 3 tries are used."))
            try await Task.sleep(for: .milliseconds(2_100))   // claims are spaced 2 s
            try await Self.confirmedClaim(&parent, client, box: box)
            let right = try await parent.post(client, "/parent/setup/sign-in", [("pin", "135790")])
            #expect(right.status == .seeOther && right.headers[.location] == "/parent")
            let (_, home) = try await parent.get(client, "/parent")
            #expect(home.contains("Daily Quest") && home.contains("Sign out"))
            #expect(try db.parentPIN.pinReset() == nil, "signing in asked for no new PIN")
            #expect(try db.parentPIN.verifyPIN("135790", monotonicNanos: 0, bootID: "t") == .accepted, "the right PIN lifted the lockout")
        }
        // The day's bound: 10 tries at the box, whatever the claims.
        let clock = FakeSystemClock(wall: Date())
        let presence = PresenceCheck(clock: clock, socketPath: "/nonexistent/questbox.sock", hasGlass: { true })
        var allowed = 0
        for claim in 0..<5 {
            clock.advance(seconds: 200)
            guard case .started(let id) = await presence.start(reset: true, client: "10.0.0.\(claim)") else { Issue.record("claim refused"); return }
            #expect(presence.takePINTry(id) == .notConfirmed, "not before the act")
            let code = try #require(presence.waitingCode)
            _ = presence.enter(code: code, claim: id)
            for _ in 0..<3 { if case .allowed = presence.takePINTry(id) { allowed += 1 } }
        }
        #expect(allowed == PresenceCheck.pinTriesAtTheBoxPerDay)
    }
}
