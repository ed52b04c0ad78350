import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestStore
import TestSupport
import Testing
@testable import WebApp

/// #32 item 2: a fresh install set up from a phone: the board with its wiring picture, then
/// the claim and the PIN, then a first routine from a starting point and the wiring check.
@Suite("The first run from a phone")
struct FirstRunTests {
    @Test("before a PIN and a board: the boards with their wiring pictures; one is chosen once, then it is a parent's setting")
    func chooseBoard() async throws {
        let (args, db) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            var (status, page) = try await browser.get(client, "/parent")
            #expect(status == .ok)
            #expect(page.contains("1. Which board is this?") && page.contains("value=\"rpi4\""))
            #expect(page.contains("<img src=\"/boards/rpi4/wiring.svg\" alt=\"Wiring of the rpi4 board\""))
            #expect(page.contains("A simulated board: nothing to wire."), "questbox-sim has no header to draw")
            #expect(page.contains("This needs the box running: choose its board first."))

            let picture = try await client.execute(uri: "/boards/rpi4/wiring.svg", method: .get)
            #expect(picture.status == .ok && picture.headers[.contentType] == "image/svg+xml")
            #expect(String(buffer: picture.body).hasPrefix("<svg"))
            for path in ["/boards/questbox-sim/wiring.svg", "/boards/..%2Fetc/wiring.svg", "/boards/nope/wiring.svg"] {
                #expect(try await client.execute(uri: path, method: .get).status == .notFound, "\(path)")
            }

            let forged = try await browser.post(client, "/parent/first-run/board", [("board", "rpi4")], csrf: "00")
            #expect(forged.status == .forbidden)
            let unknown = try await browser.post(client, "/parent/first-run/board", [("board", "../../etc/passwd")])
            #expect(unknown.status == .unprocessableContent)
            #expect(String(buffer: unknown.body).contains("Board: “../../etc/passwd” cannot be used. Choose one of:"), "the settings' refusal in the page's words")
            let none = try await browser.post(client, "/parent/first-run/board", [("board", "none")])
            #expect(none.status == .unprocessableContent, "the first run chooses a board")
            #expect(try db.settings.current().boardName == nil)

            let chosen = try await browser.post(client, "/parent/first-run/board", [("board", "rpi4")])
            #expect(chosen.status == .seeOther)
            #expect(try db.settings.current().boardName == "rpi4")
            (_, page) = try await browser.get(client, "/parent")
            // No box has written anything down in this store: the page says it has not started.
            #expect(page.contains("The box does not answer and has not started with the board rpi4 yet"))
            #expect(!page.contains("value=\"rpi5\""), "no more choosing")
            let again = try await browser.post(client, "/parent/first-run/board", [("board", "rpi5")])
            #expect(again.status == .forbidden)
            #expect(try db.settings.current().boardName == "rpi4")
        }
    }

    @Test("a running box's board is shown as done")
    func runningBox() async throws {
        let (args, _) = try TestArguments.fresh()
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("The box runs with the board fake.") && !page.contains("name=\"board\""))
        }
    }

    @Test("behind the PIN with no routine: Getting started offers starting points; one fills the editor, nothing is stored until saved")
    func firstRoutine() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.parentPIN.setPIN("2468")
        try db.settings.update { $0.boardName = "rpi4" }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            var (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("Getting started"))
            #expect(page.contains("href=\"/parent/routines/new?starter=school-morning\""))
            #expect(page.contains("href=\"/parent/wiring\""))
            #expect(!page.contains("Choose the box's board"), "the board is chosen")
            (_, page) = try await browser.get(client, "/parent/routines/new?starter=school-morning")
            #expect(page.contains("value=\"Morning Quest\"") && page.contains("value=\"Get Dressed\"") && page.contains("value=\"5:00\""))
            #expect(try db.routines.all().isEmpty)
            let (unknownStatus, empty) = try await browser.get(client, "/parent/routines/new?starter=<script>")
            #expect(unknownStatus == .ok && !empty.contains("<script>") && !empty.contains("Morning Quest"))

            try db.routines.save(everyDay)
            (_, page) = try await browser.get(client, "/parent")
            #expect(!page.contains("Getting started"), "a board and a routine: the box plays")
        }
    }
}

/// #48: "Choosing a board the box cannot open says '✓ Board chosen: the box starts in a few
/// seconds' and keeps saying it while the daemon exits 1 … the parent home never says the
/// box is down." The pages say what the box wrote down of its start.
@Suite("#48: a fresh install tells the truth about its box")
struct BoxStartTruthTests {
    static let cal = Calendar(identifier: .gregorian)

    @Test("#48: each state the box wrote down, in the pages' words; only a failed start offers the boards again")
    func words() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        func words(_ state: BoxStartRecord.State, board: String? = "rpi4", ago: TimeInterval = 5, reason: String? = nil) -> BoxDownWords {
            BoxDownWords.of(BoxStartRecord(state: state, board: board, reason: reason, at: now - ago), storedBoard: "rpi4", now: now, calendar: Self.cal, clock: .twentyFourHour)
        }
        #expect(BoxDownWords.of(nil, storedBoard: nil, now: now, calendar: Self.cal, clock: .twentyFourHour).line.hasPrefix("The box waits for a board"))
        #expect(words(.waiting, board: nil, ago: 3_600).line == "The box is starting with the board rpi4: reload this page in a few seconds.")
        #expect(words(.starting).line.hasPrefix("The box is starting with the board rpi4"))
        #expect(words(.starting, ago: 600).line.hasPrefix("The box began to start with the board rpi4"))
        let failed = words(.failed, reason: "no GPIO chip labelled pinctrl-bcm2711")
        #expect(failed.failed && failed.line.contains("could not start with the board rpi4") && failed.line.contains("no GPIO chip labelled pinctrl-bcm2711"))
        #expect(failed.line.contains("questbox doctor --board rpi4"), "the next step")
        #expect(words(.running).line.contains("it was running since"))
        #expect(words(.stopped).line.contains("was stopped"))
        #expect(!words(.failed, board: "rpi5").failed, "a failure with another board is not this one's")
        #expect(BoxDownWords.of(nil, storedBoard: "rpi4", now: now, calendar: Self.cal, clock: .twentyFourHour).line.contains("has not started with the board rpi4 yet"))
    }

    @Test("#48: a box that could not start with its board: the first run says why and offers the boards again (a new one may be chosen), the health page says failed")
    func failedStart() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.settings.update { $0.boardName = "rpi4" }
        try db.recordBoxStart(BoxStartRecord(state: .failed, board: "rpi4", reason: "no GPIO chip labelled pinctrl-bcm2711 (run `questbox doctor --board rpi4`)", at: Date()))
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            var (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("The box could not start with the board rpi4"), "\(page)")
            #expect(page.contains("no GPIO chip labelled pinctrl-bcm2711"))
            #expect(!page.contains("starts with it in a few seconds"))
            #expect(page.contains("value=\"rpi5\""), "the boards are offered again")
            let chosen = try await browser.post(client, "/parent/first-run/board", [("board", "rpi5")])
            #expect(chosen.status == .seeOther)
            #expect(try db.settings.current().boardName == "rpi5")
            (_, page) = try await browser.get(client, "/parent")
            #expect(!page.contains("value=\"rpi4\""), "a board not yet tried is not offered again")
        }
        let status = BoxHealth(
            state: .offline(reason: "no socket"), storedBoard: "rpi4", lastPlay: nil, disk: nil, now: Date(), calendar: Self.cal, clock: .twentyFourHour,
            start: BoxStartRecord(state: .failed, board: "rpi4", reason: "no GPIO chip", at: Date()))
        #expect(status.state == "failed" && status.headline.contains("could not start with the board rpi4"))
    }
}
