import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import BoxProtocol
import BuildVersion
import QuestCore
import QuestStore
import TestSupport
import Testing
@testable import WebApp

@Suite("The parent's health page (questbox doctor)")
struct HealthPageTests {
    @Test("/parent/health shows the real `questbox doctor --json` checks of this store; the API gives the same report")
    func doctorChecks() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        try db.backups.make(kind: .manual, now: Date())
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (status, page) = try await browser.get(client, "/parent/health")
            #expect(status == .ok)
            #expect(page.contains("integrity ok, schema"), "\(page)")
            #expect(page.contains("totals from the history: 0 quests, 0 XP"))
            #expect(page.contains("last backup "))
            #expect(page.contains("class=\"ok\"") && page.contains("health-verdict"))
            #expect(!page.contains("cannot run"))
            let api = try await client.execute(uri: "/api/v1/parent/health", method: .get, headers: browser.cookieHeader)
            let report = try JSONDecoder().decode(DoctorRunner.Report.self, from: Data(buffer: api.body))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: api.body)) as? [String: Any])
            #expect((json["status"] as? [String: Any])?["state"] as? String == "waiting-for-board")
            #expect(report.findings.contains { $0.level == "ok" && $0.text.contains("integrity ok") })
            #expect(report.canRun == !report.findings.contains { $0.level == "fail" })
            let signedOut = try await client.execute(uri: "/api/v1/parent/health", method: .get)
            #expect(signedOut.status == .unauthorized)
        }
    }

    @Test("a check that hangs is cut off and said so; a program that gives no report is a failure line, not an error page")
    func hangingOrBrokenChecks() async throws {
        let dir = NSTemporaryDirectory() + "questbox-doctor-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hanging = dir + "/hang", silent = dir + "/silent"
        #expect(FileManager.default.createFile(atPath: hanging, contents: Data("#!/bin/sh\nexec sleep 30\n".utf8), attributes: [.posixPermissions: 0o755]))
        #expect(FileManager.default.createFile(atPath: silent, contents: Data("#!/bin/sh\necho '<html>'\nexit 3\n".utf8), attributes: [.posixPermissions: 0o755]))
        // Timed around the run itself (an await's resumption can wait for a busy test pool).
        let started = ContinuousClock.now
        let cut = DoctorRunner.runDoctor(hanging, dataDirectory: dir, timeout: 0.5)
        #expect(ContinuousClock.now - started < .seconds(10), "the hanging check was killed, not waited for (it sleeps 30 s)")
        #expect(!cut.canRun && cut.findings.first?.text == "the checks did not finish within 0.5 s")
        let broken = await DoctorRunner(program: silent, dataDirectory: dir).run()
        let viaRunner = await DoctorRunner(program: hanging, dataDirectory: dir, timeoutSeconds: 0.5).run()
        #expect(viaRunner.findings.first?.text == "the checks did not finish within 0.5 s")
        #expect(!broken.canRun && broken.findings.first?.text == "the checks gave no report (exit status 3)")
        let missing = await DoctorRunner(program: nil, dataDirectory: dir).run()
        #expect(!missing.canRun && missing.findings.count == 1)
    }

    @Test("#32: the status says what the box is doing (waiting for a board, offline, running), its version, uptime, last play and free disk; never \"cannot run\" while it runs")
    func status() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            var (_, page) = try await browser.get(client, "/parent/health")
            #expect(page.contains("<p class=\"health-state waiting-for-board\" id=\"box-state\">Waiting for a board: choose it in Settings (Board), and the box starts with it</p>"), "\(page)")
            #expect(page.contains("<dt>Last play</dt><dd>none yet</dd>"))
            #expect(page.contains(" free of "))
            #expect(page.contains("<dt>Version</dt><dd>\(BuildVersion.text)</dd>"))
            #expect(!page.contains("Up for"), "no uptime for a box that does not answer")

            try db.settings.update { $0.boardName = "pi4" }
            let played = try recordQuest(db, at: Date().addingTimeInterval(-120), durations: [(60, 60)], routine: everyDay)
            (_, page) = try await browser.get(client, "/parent/health")
            #expect(page.contains("<p class=\"health-state offline\" id=\"box-state\">Offline: The box does not answer and has not started with the board pi4 yet"))
            let clock = CalendarWords.day(try #require(played.last?.recordedAt), now: Date(), calendar: .current, clock: .twentyFourHour)
            #expect(page.contains("<dt>Last play</dt><dd>\(clock)</dd>"))

            let box = try FakeBox(path: args.socketPath)
            defer { box.stop() }
            (_, page) = try await browser.get(client, "/parent/health")
            #expect(page.contains("<p class=\"health-state running\" id=\"box-state\">Running with board fake</p>"), "\(page)")
            #expect(page.contains("<dt>Version</dt><dd>9.9.9-fake</dd>"))
            #expect(page.contains("<dt>Up for</dt><dd>1 day 2 h</dd>"))
            #expect(!page.contains("cannot"))
            #expect(!page.contains("Home Assistant") && !page.contains("Push to phone"), "no link set up, nothing said")

            // #34: what `questbox link` last saw of the broker and the pushes.
            try db.homeLink.recordMQTT("not connected to mqtt://ha.local:1883: not authorised", at: Date())
            try db.homeLink.recordPushProblem("reminder: HTTP 403", at: Date())
            (_, page) = try await browser.get(client, "/parent/health")
            #expect(page.contains("<dt>Home Assistant</dt><dd id=\"link-mqtt\">not connected to mqtt://ha.local:1883: not authorised (since today "), "\(page)")
            #expect(page.contains("<dt>Push to phone</dt><dd id=\"link-push\" class=\"error\">failed today "))
            #expect(page.contains(": reminder: HTTP 403</dd>"))
            try db.homeLink.recordPushProblem(nil, at: Date())
            (_, page) = try await browser.get(client, "/parent/health")
            #expect(!page.contains("Push to phone"), "a push that went through clears it")
        }
    }

    @Test("the status's words: uptime, a day, bytes; a failed check reads as a problem of a running box, or as a box that cannot start")
    func statusWords() {
        #expect(BoxHealth.uptimeWords(0) == "under a minute")
        #expect(BoxHealth.uptimeWords(59) == "59 min")
        #expect(BoxHealth.uptimeWords(125) == "2 h 5 min")
        #expect(BoxHealth.uptimeWords(3 * 1440 + 61) == "3 days 1 h")
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let now = cal.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: 9))!
        #expect(CalendarWords.day(cal.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: 7, minute: 58))!, now: now, calendar: cal, clock: .twentyFourHour) == "today 07:58")
        #expect(CalendarWords.day(cal.date(from: DateComponents(year: 2026, month: 11, day: 22, hour: 18, minute: 2))!, now: now, calendar: cal, clock: .twentyFourHour) == "yesterday 18:02")
        #expect(CalendarWords.day(cal.date(from: DateComponents(year: 2026, month: 1, day: 5, hour: 7))!, now: now, calendar: cal, clock: .twentyFourHour) == "Mon 5 Jan 07:00")
        #expect(CalendarWords.day(cal.date(from: DateComponents(year: 2026, month: 11, day: 24, hour: 14, minute: 2))!, now: now, calendar: cal, clock: .twentyFourHour) == "tomorrow 14:02", "PAR-2 says when a reset takes effect")
        #expect(BoxHealth.bytesWords(1_234_000_000) == "1.2 GB")
        #expect(BoxHealth.bytesWords(29_400_000_000) == "29 GB")
        #expect(BoxHealth.bytesWords(420_000_000) == "420 MB")

        let fail = DoctorRunner.Report(canRun: false, runningBox: "pi4", findings: [.init(level: "fail", text: "x")])
        let running = BoxHealth(state: .online(BoxMessage(type: "reply")), storedBoard: "pi4", lastPlay: nil, disk: nil, now: now, calendar: cal, clock: .twentyFourHour)
        #expect(HealthView(status: running, report: fail).verdict == "The box runs, but the checks found 1 problem: see below.")
        let offline = BoxHealth(state: .offline(reason: "no socket"), storedBoard: "pi4", lastPlay: nil, disk: nil, now: now, calendar: cal, clock: .twentyFourHour)
        #expect(HealthView(status: offline, report: fail).verdict == "The box cannot start: see the problem below.")
        #expect(offline.diskFree == "unknown")
    }
}
