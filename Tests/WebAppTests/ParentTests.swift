import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestReports
import BoxProtocol
@testable import QuestStore
import GRDB
import TestSupport
import SystemClock
import Testing
@testable import WebApp

@Suite("The parent's area (PAR-1)")
struct ParentTests {
    @Test("PAR-1: with no PIN, /parent offers the set-up at the box and no way in by PIN")
    func noPIN() async throws {
        let (args, _) = try TestArguments.fresh(routines: [everyDay])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (status, page) = try await browser.get(client, "/parent")
            #expect(status == .ok)
            #expect(page.contains("Set up the box") && !page.contains("name=\"pin\"") && !page.contains("Daily Quest"))
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")   // a token, from any form
            let attempt = try await browser.post(client, "/parent/sign-in", [("pin", "1234")])
            #expect(attempt.status == .seeOther, "\(attempt.status) \(String(buffer: attempt.body))")
            #expect(attempt.headers[.location] == "/parent")
            #expect(browser.cookies[ParentSessions.cookieName] == nil)
        }
    }

    @Test("PAR-1: wrong PINs are 401 with the tries left, the fifth a 429 with Retry-After, and then even the right PIN waits on that device", arguments: [TestingSetup.router, .live])
    func bruteForce(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var browser = BrowserSession()
            let (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("name=\"pin\" type=\"password\"") && !page.contains("Daily Quest"))
            for left in (1...4).reversed() {
                let wrong = try await browser.post(client, "/parent/sign-in", [("pin", "0000")])
                #expect(wrong.status == .unauthorized)
                #expect(String(buffer: wrong.body).contains("That PIN is not right. \(left) more \(left == 1 ? "try" : "tries") before a pause."))
            }
            let lockedAt = ContinuousClock.now
            let locked = try await browser.post(client, "/parent/sign-in", [("pin", "0000")])
            #expect(locked.status == .tooManyRequests)
            #expect(locked.headers[.retryAfter] == "300")
            #expect(String(buffer: locked.body).contains("Too many wrong PINs from this device. It may try again in 5 minutes."))
            let right = try await browser.post(client, "/parent/sign-in", [("pin", "2468")])
            // The pause counts down from the lockout: as long as it was then, less the time
            // since (a busy machine's scrypt may take seconds), never shorter.
            let waited = Int((ContinuousClock.now - lockedAt).components.seconds)
            #expect(right.status == .tooManyRequests && Int(right.headers[.retryAfter] ?? "") ?? 0 >= 300 - waited - 1, "\(right.headers[.retryAfter] ?? "-") after \(waited) s")
            #expect(browser.cookies[ParentSessions.cookieName] == nil)
            let notDigits = try await browser.post(client, "/parent/sign-in", [("pin", "<script>")])
            #expect(notDigits.status == .unauthorized && String(buffer: notDigits.body).contains("PIN: must be 4 to 8 digits"))
        }
    }

    @Test("#34: the other boxes the link heard on the broker are listed with their state and a link to their pages (only an http(s) one)")
    func otherBoxes() async throws {
        let (args, db) = try TestArguments.fresh(routines: [])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            var (_, page) = try await browser.get(client, "/parent")
            #expect(!page.contains("Other boxes in the house"))
            try db.homeLink.recordHouseBox(HouseBox(boxID: "0a0a0a0a0a", name: "hallway", state: "active", web: "http://hallway.local:8080/", seenAt: Date()))
            try db.homeLink.recordHouseBox(HouseBox(boxID: "0b0b0b0b0b", name: "bedroom<b>\u{1B}", state: "idle", web: "javascript:alert(1)", seenAt: Date()))
            (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("Other boxes in the house"))
            #expect(page.contains("<strong>hallway</strong> <span>active · heard today "), "\(page)")
            #expect(page.contains("<a href=\"http://hallway.local:8080/\" rel=\"noopener\">Open its pages</a> <span class=\"host\">(hallway.local:8080)</span>"))
            // #47: an address of another form in the store (written before the rule) is shown without a link.
            try db.homeLink.recordHouseBox(HouseBox(boxID: "0c0c0c0c0c", name: "attic", state: "idle", web: "http://questbox.local:8080@127.0.0.1:18999/parent", seenAt: Date()))
            (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("<strong>attic</strong>") && !page.contains("127.0.0.1:18999"))
            #expect(page.contains("<strong>bedroom&lt;b&gt;</strong>"), "escaped, the control character dropped by the store")
            #expect(!page.contains("javascript:"))
            try db.homeLink.recordHouseBox(nil, removing: "0a0a0a0a0a")
            (_, page) = try await browser.get(client, "/parent")
            #expect(!page.contains("hallway"))
        }
    }

    @Test("PAR-1: the right PIN opens a session (HttpOnly, SameSite=Strict, expiring); the area shows aggregates, never estimates; signing out ends it on the server too")
    func signInAndOut() async throws {
        let hidden = Routine(
            id: UUID(), name: "school-morning", displayName: "Morning Quest", activeDays: [2, 3, 4, 5, 6],
            tasks: [RoutineTask(id: UUID(), name: "teeth", displayName: "Tooth Time", referenceDurationSeconds: 120)])
        let (args, db) = try TestArguments.fresh(routines: [hidden])
        try db.parentPIN.setPIN("2468")
        for days in [1, 3] {
            try recordQuest(db, at: Date().addingTimeInterval(-Double(days) * 86_400), durations: [(60, 97)], routine: hidden)
        }
        try recordQuest(db, at: Date().addingTimeInterval(-40 * 86_400), durations: [(60, 97)], routine: hidden)
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/parent")
            let response = try await browser.post(client, "/parent/sign-in", [("pin", "2468")])
            #expect(response.status == .seeOther && response.headers[.location] == "/parent")
            let cookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix(ParentSessions.cookieName + "=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Max-Age=43200") && cookie.contains("Path=/"))
            let (status, page) = try await browser.get(client, "/parent")
            #expect(status == .ok)
            #expect(page.contains("Morning Quest") && page.contains("school-morning · Mon–Fri · 1 task · played twice in the last 4 weeks"))
            // #33: how it goes, in ten seconds: the last four weeks in counts (and today's quest
            // when it is offered today).
            #expect(page.contains("How it goes") && page.contains("Played on 2 days of the last 28."))
            #expect(page.contains("<svg class=\"chart\""), "the daily accuracy as a chart")
            // Tokens are hex; routine ids (in links) are UUIDs: neither is a figure.
            let text = page.replacingOccurrences(of: #"value="[0-9a-f]+""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #"<svg[\s\S]*</svg>"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"#, with: "", options: .regularExpression)
            #expect(!text.contains("Tooth Time") && !text.contains("97") && !text.contains("120") && !text.contains("1m"), "no task, estimate or reference time (SPEC §9)")
            let stolen = browser.cookies
            let out = try await browser.post(client, "/parent/sign-out", [])
            #expect(out.status == .seeOther)
            #expect(out.headers[values: .setCookie].contains { $0.hasPrefix(ParentSessions.cookieName + "=;") && $0.contains("Max-Age=0") })
            var replay = BrowserSession()
            replay.cookies = stolen
            let (_, after) = try await replay.get(client, "/parent")
            #expect(after.contains("name=\"pin\"") && !after.contains("Morning Quest"), "the old cookie opens nothing")
            var forged = BrowserSession()
            forged.cookies = [ParentSessions.cookieName: String(repeating: "a", count: 64)]
            let (_, guessed) = try await forged.get(client, "/parent")
            #expect(!guessed.contains("Morning Quest"))
        }
    }

    @Test("PAR-1: a sign-in without this browser's token is refused (403) and is not counted as a try")
    func signInNeedsToken() async throws {
        let (args, db) = try TestArguments.fresh()
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/parent")
            for token in ["", "0123"] {
                let right = try await browser.post(client, "/parent/sign-in", [("pin", "2468")], csrf: token)
                let wrong = try await browser.post(client, "/parent/sign-in", [("pin", "0000")], csrf: token)
                #expect(right.status == .forbidden && wrong.status == .forbidden)
            }
            #expect(browser.cookies[ParentSessions.cookieName] == nil)
            let failed = try await db.pool.read { try Int.fetchOne($0, sql: "SELECT pinFailedAttempts FROM settings") }
            #expect(failed == 0)
        }
    }

    @Test("PAR-1: a session ends after 30 minutes unused or 12 hours in all, on the monotonic clock; the oldest goes past 16")
    func sessionExpiry() throws {
        let clock = FakeSystemClock(wall: Date())
        let sessions = ParentSessions(clock: clock)
        func request(_ cookie: Cookie) -> Request {
            Request(
                head: HTTPRequest(method: .get, scheme: "http", authority: "box", path: "/parent", headerFields: [.cookie: "\(cookie.name)=\(cookie.value)"]),
                body: .init(buffer: ByteBuffer()))
        }
        let a = sessions.open()
        #expect(sessions.isSignedIn(request(a)))
        clock.advance(seconds: 29 * 60)
        #expect(sessions.isSignedIn(request(a)), "used again within 30 minutes")
        clock.advance(seconds: 30 * 60 + 1)
        #expect(!sessions.isSignedIn(request(a)), "unused for 30 minutes")
        let b = sessions.open()
        for _ in 0..<25 {
            clock.advance(seconds: 29 * 60)
            _ = sessions.isSignedIn(request(b))
        }
        #expect(!sessions.isSignedIn(request(b)), "used every 29 minutes, yet past 12 h in all")
        let first = sessions.open()
        clock.advance(seconds: 1)
        let others = (0..<16).map { _ in sessions.open() }
        #expect(!sessions.isSignedIn(request(first)) && others.allSatisfy { sessions.isSignedIn(request($0)) })
    }

    @Test("the API: a PIN as JSON signs in (the cookie), a wrong one is 401, the routines need the session")
    func api() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            try await browser.openAPISession(client)
            #expect(try await client.execute(uri: "/api/v1/parent/routines", method: .get, headers: browser.cookieHeader).status == .unauthorized)
            let headers = browser.jsonHeaders()
            let wrong = try await client.execute(uri: "/api/v1/parent/session", method: .post, headers: headers, body: ByteBuffer(string: #"{"pin":"1111"}"#))
            #expect(wrong.status == .unauthorized && String(buffer: wrong.body).contains("4 more tries"))
            let right = try await client.execute(uri: "/api/v1/parent/session", method: .post, headers: headers, body: ByteBuffer(string: #"{"pin":"2468"}"#))
            #expect(right.status == .ok)
            browser.keep(right)
            let routines = try await client.execute(uri: "/api/v1/parent/routines", method: .get, headers: browser.cookieHeader)
            #expect(routines.status == .ok)
            let list = try JSONDecoder().decode([ParentHome.Routine].self, from: Data(buffer: routines.body))
            #expect(list.map(\.displayName) == ["Daily Quest"] && list[0].days == "Every day" && list[0].playedLast28Days == 0)
        }
    }

    @Test("weekdays as a parent reads them: every day, a run as its ends, else a list, in the calendar's week order")
    func weekdayText() {
        var monday = Calendar(identifier: .gregorian)
        monday.locale = Locale(identifier: "en_GB")
        monday.firstWeekday = 2
        var sunday = monday
        sunday.firstWeekday = 1
        #expect(WeekdayText.list(Array(1...7), calendar: monday) == "Every day")
        #expect(WeekdayText.list([2, 3, 4, 5, 6], calendar: monday) == "Mon–Fri")
        #expect(WeekdayText.list([7, 1], calendar: monday) == "Sat, Sun")
        #expect(WeekdayText.list([7, 1], calendar: sunday) == "Sun, Sat")
        #expect(WeekdayText.list([6, 7, 1], calendar: monday) == "Fri–Sun")
        #expect(WeekdayText.list([6, 7, 1], calendar: sunday) == "Sun, Fri, Sat")
        #expect(WeekdayText.list([2, 4], calendar: monday) == "Mon, Wed")
    }
}

/// #33: the parent's ten-second summary, from the player's home and the stats report.
@Suite("#33 the parent's summary")
struct FamilySummaryTests {
    static func quest(_ name: String, played: Bool = false, reminder: String? = nil, paused: String? = nil) -> PlayerHome.Quest {
        PlayerHome.Quest(name: name, badge: nil, playedToday: played, reminder: reminder, paused: paused)
    }

    @Test("today per quest: done, under way on the box, paused where it resumes, not yet with its reminder; no quest today says so")
    func today() throws {
        let (_, db) = try TestArguments.fresh()
        let report = try StatsReport.load(from: db, now: Date(), calendar: .current)
        var home = try PlayerHome.load(from: db, calendar: .current, clock: .twentyFourHour, now: Date())
        home.quests = [
            Self.quest("Morning Quest"), Self.quest("Homework", played: true), Self.quest("Piano", paused: "Paused at task 2 of 3"),
            Self.quest("Evening Quest", reminder: "Reminded at 19:00"),
        ]
        let running = BoxLink.State.online(BoxMessage.event("screen") { $0.screen = ScreenPayload(ScreenSamples.active) })
        let summary = FamilySummary(home: home, report: report, box: running, calendar: .current)
        #expect(summary.today.map(\.state) == ["running", "done", "paused", "waiting"])
        #expect(summary.today.map(\.words) == ["Under way now", "Done", "Paused at task 2 of 3", "Not yet · Reminded at 19:00"])
        let idle = FamilySummary(home: home, report: report, box: .offline(reason: "gone"), calendar: .current)
        #expect(idle.today.first?.words == "Not yet", "offline: nothing is under way")
        home.quests = []
        let none = FamilySummary(home: home, report: report, box: running, calendar: .current)
        #expect(!none.hasToday && !none.hasWeeks && none.chart == nil && none.playedLine == "Played on 0 days of the last 28.")
    }

    @Test("#48: the last four weeks are one window: the 28 days ending today in the line, the table (by seven, newest first) and the chart")
    func oneWindow() throws {
        let (_, db) = try TestArguments.fresh(routines: [everyDay])
        let now = Date()
        // Played 1, 8, 20 and 29 days ago: the last is outside the window everywhere.
        for daysAgo in [1, 8, 20, 29] {
            try recordQuest(db, at: now.addingTimeInterval(Double(-daysAgo) * 86_400), durations: [(60, 70)], routine: everyDay)
        }
        let report = try StatsReport.load(from: db, now: now, calendar: .current)
        let home = try PlayerHome.load(from: db, calendar: .current, clock: .twentyFourHour, now: now)
        let summary = FamilySummary(home: home, report: report, box: .offline(reason: "gone"), calendar: .current, now: now)
        #expect(summary.playedLine == "Played on 3 days of the last 28.")
        #expect(summary.weeks.map(\.days) == ["1 of 7", "1 of 7", "1 of 7", "0 of 7"], "\(summary.weeks)")
        #expect(summary.weeks.map(\.quests) == ["1 quest", "1 quest", "1 quest", "0 quests"])
        #expect(summary.weeks.first?.dates == "The last 7 days" && summary.weeks.last?.accuracy == "–")
        let chart = try #require(summary.chart)
        #expect(chart.components(separatedBy: "<circle class=\"day\"").count - 1 == 3, "the chart's days are the window's: \(chart)")
    }
}
