import BoxProtocol
import Foundation
import Hummingbird
import Logging
import HTTPTypes
import HummingbirdTesting
import QuestCore
import QuestReports
import QuestStore
import TestSupport
import Synchronization
import Testing
@testable import WebApp

/// A store in a temporary folder, the resources from this checkout, no daemon running.
struct TestArguments: AppArguments {
    var hostname = "127.0.0.1"
    var port = 0
    var databasePath: String
    var socketPath: String
    var resourcesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/WebApp/Resources").path
    /// The deadlines are tested in `WebServerTests`; here they would only cut a live test's
    /// connection when a loaded machine holds the test process back for more than 10 s.
    var connectionLimits = ConnectionLimits(headSeconds: 600, idleSeconds: 600)

    /// `playerPages`: `web.player-pages` (PRIV-1 makes a fresh store `paired`; most tests
    /// look at her pages from a browser nobody paired, as on a box from before).
    static func fresh(routines: [Routine] = [], playerPages: String = "open") throws -> (TestArguments, QuestDatabase) {
        let dir = NSTemporaryDirectory() + "questbox-web-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = try QuestDatabase(path: dir + "/questbox.sqlite")
        try SettingsCatalog.set("web.player-pages", to: playerPages, in: db.settings)
        for r in routines { try db.routines.save(r) }
        return (TestArguments(databasePath: dir + "/questbox.sqlite", socketPath: dir + "/questbox.sock"), db)
    }
}

let everyDay = Routine(
    id: UUID(), name: "daily", displayName: "Daily Quest", activeDays: Array(1...7),
    tasks: [RoutineTask(id: UUID(), name: "one", displayName: "One")])

@Suite("Web app")
struct WebAppTests {
    @Test("#32: on a fresh install's empty data folder the web app starts, creates the store and leads to the first run")
    func emptyDataFolder() async throws {
        let dir = NSTemporaryDirectory() + "questbox-web-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let args = TestArguments(databasePath: dir + "/questbox.sqlite", socketPath: dir + "/questbox.sock")
        let app = try await buildApplication(args)
        #expect(FileManager.default.fileExists(atPath: args.databasePath))
        try await app.test(.router) { client in
            // PRIV-1: her pages are private on a fresh box, whose address leads to the first run.
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/parent", "\(response.status)")
            }
            try await client.execute(uri: "/stats", method: .get) { response in
                #expect(response.status == .forbidden && String(buffer: response.body).contains("Get a code from the box"))
            }
            try await client.execute(uri: "/parent", method: .get) { response in
                #expect(response.status == .ok || response.status == .seeOther, "\(response.status)")
            }
        }
        let db = try QuestDatabase(path: args.databasePath, access: .readOnly)
        #expect(try db.routines.all().isEmpty && db.settings.current().boardName == nil)
        #expect(try db.settings.current().playerPagesPaired, "PRIV-1: a fresh store's pages are paired-only")
    }

    @Test("the player's home lists today's quests, level and XP from the store", arguments: [TestingSetup.router, .live])
    func home(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        // Played earlier today: an hour ago, or half-way since midnight when it is not yet 2 am
        // (an hour ago would be yesterday just after midnight).
        let now = Date()
        let sinceMidnight = now.timeIntervalSince(Calendar.current.startOfDay(for: now))
        try recordQuest(db, at: now.addingTimeInterval(-min(3600, sinceMidnight / 2)), durations: [(60, 61)], routine: everyDay)
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let page = String(buffer: response.body)
                #expect(page.contains("Daily Quest"))
                #expect(page.contains("played today"))
                #expect(page.contains("Level 1"))
                let xp = try db.profile().totalXP
                #expect(xp > 0 && page.contains("\(xp) XP"))
                let percent = Int((LevelCalculator.progressToNextLevel(totalXP: xp) * 100).rounded(.down))
                #expect(page.contains("<progress max=\"100\" value=\"\(percent)\""))
                #expect(page.contains("still learning your patterns: 2 more quests."), "one of three learning quests played")
            }
        }
    }

    @Test("#48: one learning quest left reads \"1 more quest\", on the page and in the API")
    func oneMoreQuest() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let now = Date()
        let sinceMidnight = now.timeIntervalSince(Calendar.current.startOfDay(for: now))
        for k in 1...2 { try recordQuest(db, at: now.addingTimeInterval(-min(3600, sinceMidnight / 2) / Double(k)), durations: [(60, 61)], routine: everyDay) }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let page = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(page.contains("still learning your patterns: 1 more quest.") && !page.contains("1 more quests"))
            let api = String(buffer: try await client.execute(uri: "/api/v1/player", method: .get).body)
            #expect(api.contains("\"learningLeft\":\"1 more quest\""), "\(api.prefix(400))")
        }
    }

    @Test("a name with markup is shown as text: no tag, no attribute reaches the page or the JSON")
    func escaping() async throws {
        let hostile = Routine(
            id: UUID(), name: "x", displayName: "<script>alert(1)</script>\"onerror=x", activeDays: Array(1...7),
            tasks: [RoutineTask(id: UUID(), name: "t", displayName: "T")])
        let (args, _) = try TestArguments.fresh(routines: [hostile])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(!page.contains("<script>"))
                #expect(!page.contains("\"onerror"))
                #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;onerror=x"))
            }
            try await client.execute(uri: "/api/v1/player", method: .get) { response in
                let player = try JSONDecoder().decode(PlayerHome.self, from: Data(buffer: response.body))
                #expect(player.quests.map(\.name) == ["<script>alert(1)</script>\"onerror=x"])
            }
        }
    }

    @Test("stats: the 30-day chart has a dot per played day, bests, the patterns in curiosity words, last week and the weeks before", arguments: [TestingSetup.router, .live])
    func stats(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let now = Date()
        // Three calibration quests 27–25 days ago, two 22 and 15 days ago (the weeks before
        // last), nine on the last nine days; the player always guesses 60 s for 80 s.
        let starts = ([27, 26, 25, 22, 15] + Array((0..<9).reversed())).map { now.addingTimeInterval(-Double($0) * 86_400 - 600) }
        for start in starts { try recordQuest(db, at: start, durations: [(60, 80)], routine: everyDay) }
        let calendar = Calendar.current
        let playedDays = Set(starts.map { calendar.startOfDay(for: $0) }).count
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            try await client.execute(uri: "/stats", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.components(separatedBy: "<circle class=\"day\"").count - 1 == playedDays)
                #expect(page.components(separatedBy: "<tr><td>").count - 1 == playedDays, "the days as a table too")
                #expect(page.contains("<polyline class=\"trend\""))
                #expect(page.contains("\(playedDays) days played in the last 30; daily accuracy from 75% to 75%"))
                #expect(page.contains("<span class=\"task\">One</span> <span class=\"value\">20s off</span>"), "the personal best")
                // #48: a task's latest day says what its percentage is ("Get Dressed 0%" did not).
                #expect(page.contains("<span class=\"task\">One</span> <span class=\"value\">75% on target</span>"), "the task's latest day")
                #expect(page.contains("0% is a guess off by as long as the task took, or more"))
                #expect(page.contains("<li>One usually takes 20s longer than you think</li>"), "INS-1 bias, in the seed's words")
                #expect(page.contains("Last week") && page.contains("Average accuracy 75%"))
                #expect(page.contains("The weeks before"))
                #expect(!page.contains("normal"), "SPEC §9: no comparison with normal times")
            }
            try await client.execute(uri: "/api/v1/stats", method: .get) { response in
                #expect(response.status == .ok)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let trend = try #require(json["trend"] as? [[String: Any]])
                #expect(trend.count == playedDays)
                #expect(trend.last?["daysAgo"] as? Int == 0 || calendar.startOfDay(for: starts.last!) != calendar.startOfDay(for: now))
                #expect((json["insights"] as? [Any])?.count == 1)
                #expect(json["weeklyReflection"] is [String: Any])
                #expect(((json["earlierReflections"] as? [Any])?.count ?? 0) >= 1)
            }
        }
    }

    @Test("#48: a played day of the calendar opens that day: each quest finished then, task by task (guess, time, how close); a day that is no day is 404")
    func statsDay() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let calendar = Calendar.current
        let yesterday = try #require(calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: Date())))
        for hour in [8, 9, 10, 18] {
            try recordQuest(db, at: yesterday.addingTimeInterval(Double(hour) * 3600), durations: [(60, 80)], routine: everyDay)
        }
        let c = calendar.dateComponents([.year, .month, .day], from: yesterday)
        let date = String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (_, stats) = try await browser.get(client, "/stats")
            #expect(stats.contains("<a href=\"/stats/day/\(date)\""), "the played day is a link")
            let (status, page) = try await browser.get(client, "/stats/day/\(date)")
            #expect(status == .ok)
            #expect(page.components(separatedBy: "<section class=\"day-quest\">").count - 1 == 4, "four quests that day")
            #expect(page.components(separatedBy: "<span class=\"badge\">learning</span>").count - 1 == 3, "the first three are learning")
            #expect(page.contains("<strong>One</strong>: guessed 1:00, took 1:20 · off") || page.contains("<strong>One</strong>: guessed 1:00, took 1:20 · close"), "\(page)")
            let (_, empty) = try await browser.get(client, "/stats/day/2026-01-01")
            #expect(empty.contains("No quest was finished on this day."))
            for bad in ["2026-02-30", "2026-13-01", "26-11-23", "2026-11-2x", "9999-12-31", "1999-01-01", "2026-11-23x"] {
                let (badStatus, _) = try await browser.get(client, "/stats/day/\(bad)")
                #expect(badStatus == .notFound, "\(bad)")
            }
        }
    }

    @Test("stats with no play yet: words instead of a chart, nothing fails")
    func emptyStats() async throws {
        let (args, _) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            try await client.execute(uri: "/stats", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(!page.contains("<svg"))
                #expect(page.contains("Play a quest and your first day appears here."))
                #expect(page.contains("When a week with quests ends, its card shows here."))
                #expect(!page.contains("The weeks before"))
            }
        }
    }

    @Test("stats: a task named with markup is text in the bests and the patterns")
    func statsEscaping() async throws {
        let hostile = Routine(
            id: UUID(), name: "x", displayName: "Q", activeDays: Array(1...7),
            tasks: [RoutineTask(id: UUID(), name: "t", displayName: "<img src=x onerror=alert(1)>\"onerror=")])
        let (args, db) = try TestArguments.fresh(routines: [hostile])
        for day in 0..<8 { try recordQuest(db, at: Date().addingTimeInterval(-Double(day) * 86_400 - 600), durations: [(60, 90)], routine: hostile) }
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            try await client.execute(uri: "/stats", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(!page.contains("<img"))
                #expect(!page.contains("\"onerror"))
                #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;&quot;onerror="))
            }
        }
    }

    @Test("the chart: today at the right edge, 29 days ago at the left, 100% at the top, 0% at the bottom; one day is a dot without a line")
    func chartGeometry() throws {
        let svg = try #require(AccuracyChart.svg([
            .init(date: "2026-10-25", daysAgo: 29, averageAccuracy: 0, estimationCount: 1),
            .init(date: "2026-11-23", daysAgo: 0, averageAccuracy: 100, estimationCount: 3),
        ]))
        #expect(svg.contains("<circle class=\"day\" cx=\"38.0\" cy=\"192.0\""))
        #expect(svg.contains("<circle class=\"day\" cx=\"348.0\" cy=\"22.0\""))
        #expect(svg.contains("<polyline class=\"trend\" points=\"38.0,192.0 348.0,22.0\"/>"))
        #expect(svg.contains("<title>23 Nov: 100% over 3 estimates</title>"))
        // #33: each day is a focusable target with its value, read out by its label; #48: the
        // value a tap shows says its date too.
        #expect(svg.contains("<g class=\"point\" tabindex=\"0\" role=\"img\" aria-label=\"23 Nov: 100% over 3 estimates\"><circle class=\"hit\" cx=\"348.0\" cy=\"22.0\" r=\"14\"/>"))
        #expect(svg.contains(">23 Nov: 100%</text></g>") && svg.contains(">25 Oct: 0%</text></g>"))
        #expect(svg.contains("<text class=\"value\" x=\"308.0\""), "kept inside the chart at the right edge")
        let one = try #require(AccuracyChart.svg([.init(date: "2026-11-20", daysAgo: 3, averageAccuracy: 150, estimationCount: 1)]))
        #expect(!one.contains("polyline") && one.contains("cy=\"22.0\""), "one day: a dot, clamped to 100%")
        #expect(AccuracyChart.svg([.init(date: "2026-10-01", daysAgo: 53, averageAccuracy: 50, estimationCount: 1)]) == nil)
        #expect(SVGText.escaped("a<b>&\"'\u{7}") == "a&lt;b&gt;&amp;&quot;&#39; ")
    }

    @Test("the kiosk's event stream with no box: a retry time, one offline screen, then it ends (the browser comes back)", arguments: [TestingSetup.router, .live])
    func kioskEventsOffline(setup: TestingSetup) async throws {
        let (args, _) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            try await client.execute(uri: "/kiosk/events", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                #expect(response.headers[.cacheControl] == "no-store")
                let body = String(buffer: response.body)
                #expect(body.hasPrefix("retry: 2000\n\nevent: screen\ndata: {"))
                #expect(body.contains("\"headline\":\"Box offline\""))
                #expect(body.hasSuffix("}\n\n") && body.components(separatedBy: "event: ").count == 2)
                #expect(!body.contains(args.socketPath), "no path leaves the box")
            }
        }
    }

    @Test("#14 #33 the kiosk says the box's words: the big item as the headline, what it is about above, the not-saved notice first below, the lines that may give way, then the button hint; the idle quests as a list with no marker")
    func kioskWords() {
        let notice = "Not saved yet: the box keeps this play and tries again"
        let view = KioskView(.online(BoxMessage.event("screen") { $0.screen = ScreenPayload(ScreenSamples.reveal); $0.notice = notice }))
        #expect(view.kind == "reveal" && view.headline == "Nailed it!" && view.rating == "spot_on")
        #expect(view.above == ["Tooth Time", "Guess 2:30, took 2:41"])
        #expect(view.lines.first == notice && view.hint == "Any button: go on")
        #expect(view.more == ["Guess was 0:11 short", "+25 XP · New best!"], "#48: the lines that restate the top give way first")
        let idle = KioskView(.online(BoxMessage.event("screen") { $0.screen = ScreenPayload(ScreenSamples.idle) }))
        #expect(idle.rating == nil)
        #expect(idle.headline == "Morning Quest" && idle.above?.first == "Lvl 2 · 40% to Lvl 3" && idle.hint == "UP/DN pick · LOCK go")
        #expect(idle.quests?.map(\.name) == ["Morning Quest", "Homework"] && idle.quests?.map(\.selected) == [true, false])
        let allWords = idle.lines + (idle.more ?? []) + [idle.headline]
        #expect(!allWords.contains { $0.hasPrefix(">") || $0.contains("> ") }, "no raw marker: \(allWords)")
        #expect(!(idle.more ?? []).contains { $0.contains("Morning Quest") }, "the chosen quest is not said twice")
        // A quest whose name is inside another line never takes that line away.
        if case .idle(var learning) = ScreenSamples.idle {
            learning.quests[1].name = "quest"
            learning.calibrationSessionsLeft = 2
            let view = KioskView(.online(BoxMessage.event("screen") { $0.screen = ScreenPayload(.idle(learning)) }))
            #expect(view.more == ["Learning your timing: 2 quests to go"])
            #expect(view.quests?.map(\.name) == ["Morning Quest", "quest"])
        } else {
            Issue.record("the idle sample is an idle screen")
        }
        #expect(KioskView(.offline(reason: "gone")).above == nil)
    }

    @Test("an event frame is one data line whatever the screen holds; no id or time is added (GAME-2)")
    func kioskEventFrame() {
        let frame = String(buffer: BoxEventRelay.kioskFrame(KioskView(kind: "active", headline: "Go\n<script>x</script>", lines: ["a\r\nb"])))
        let lines = frame.components(separatedBy: "\n")
        #expect(lines.count == 4 && lines[0] == "event: screen" && lines[1].hasPrefix("data: {") && lines[2].isEmpty && lines[3].isEmpty, "\(lines)")
        #expect(frame == "event: screen\ndata: {\"hasQuests\":false,\"headline\":\"Go\\n<script>x</script>\",\"kind\":\"active\",\"lines\":[\"a\\r\\nb\"]}\n\n")
    }

    @Test("a flood of pages asking the box's state costs the box one connection per 250 ms (a stale answer is renewed in the background), and a change asks anew")
    func stateAskedOnceForMany() async throws {
        let (args, _) = try TestArguments.fresh()
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let link = box.patientLink
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<40 { group.addTask { if case .online = await link.state() { true } else { false } } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers.count == 40 && answers.allSatisfy { $0 }, "every asker gets the box's answer")
        #expect(box.commands.filter { $0 == "state" }.count == 1, "\(box.commands)")
        _ = await link.state()
        #expect(box.commands.filter { $0 == "state" }.count == 1, "fresh: served again")
        try await Task.sleep(for: .milliseconds(300))
        _ = await link.state()   // the answer as it was, while a new one is asked
        for _ in 0..<100 where box.commands.filter({ $0 == "state" }).count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(box.commands.filter { $0 == "state" }.count == 2, "stale after 250 ms: asked again")
        _ = await link.reload()
        _ = await link.state()
        #expect(box.commands.filter { $0 == "state" }.count == 3, "after a reload: asked again")
    }

    @Test("the home and stats are read once per 2 s for any number of pages; a change made through the app is shown at once")
    func recentReads() async throws {
        final class Reads: Sendable { let count = Mutex(0) }
        let reads = Reads()
        let recent = RecentValue<Int>(freshNanos: 2_000_000_000)
        let values = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    await recent.get {
                        try? await Task.sleep(for: .milliseconds(50))   // a read of five years
                        return reads.count.withLock { $0 += 1; return $0 }
                    }
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: 1, count: 40), "one read served all 40")
        recent.forget()
        #expect(await recent.get { reads.count.withLock { $0 += 1; return $0 } } == 2)
        // A re-read begun before a forget does not serve those who ask after it.
        let slow = RecentValue<Int>(freshNanos: 0)
        #expect(await slow.get { 1 } == 1)
        async let old = slow.get { try? await Task.sleep(for: .milliseconds(200)); return 2 }   // stale: 1 now, 2 renewing
        #expect(await old == 1)
        slow.forget()
        #expect(await slow.get { 3 } == 3, "after the forget, not the value begun before it")

        // Through the app: a quest the player makes is on the home page at once.
        let (args, _) = try TestArguments.fresh(routines: [everyDay])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (_, before) = try await browser.get(client, "/")
            #expect(before.contains("Daily Quest") && !before.contains("Kite Flying"))
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            let saved = try await browser.post(client, "/quests", [("name", "Kite Flying")] + (1...7).map { ("day", "\($0)") } + [("task", "Untangle"), ("action", "save")])
            #expect(saved.status.code < 400, "\(saved.status)")
            let (_, after) = try await browser.get(client, "/")
            #expect(after.contains("Kite Flying"))
        }
    }

    @Test("with no box running, the state says offline and the kiosk says so; nothing fails")
    func offline() async throws {
        let (args, _) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/v1/state", method: .get) { response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                #expect(body.contains("\"online\":false"))
                #expect(body.contains("not running"))
                #expect(!body.contains(args.socketPath) && !body.contains("\\/questbox.sock"), "no path leaves the box")
            }
            try await client.execute(uri: "/kiosk", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("Box offline"))
            }
        }
    }

    @Test("every response carries the security headers; no inline script is allowed")
    func securityHeaders() async throws {
        let (args, _) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            for uri in ["/", "/kiosk", "/api/v1/state", "/assets/app.css", "/nowhere"] {
                try await client.execute(uri: uri, method: .get) { response in
                    let csp = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), "\(uri)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                }
            }
        }
    }

    @Test("assets come only from the table read at start: no path reaches the disk", arguments: [
        "/assets/app.css", "/assets/..%2F..%2FPackage.swift", "/assets/../templates/home.mustache", "/assets/%2e%2e/templates/home.mustache",
        "/assets/nothing.css",
    ])
    func assets(uri: String) async throws {
        let (args, _) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            try await client.execute(uri: uri, method: .get) { response in
                if uri == "/assets/app.css" {
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/css; charset=utf-8")
                } else {
                    #expect(response.status == .notFound, "\(uri)")
                    let body = String(buffer: response.body)
                    #expect(!body.contains("{{") && !body.contains("swift-tools-version") && !body.contains("/work"), "\(uri)")
                }
            }
        }
    }

    @Test("the resources are found where given, else beside the program (through its link)")
    func locatesResources() throws {
        #expect(WebResources.locate(explicit: "/somewhere") == "/somewhere")
        let dir = NSTemporaryDirectory() + "questbox-web-res-\(UUID().uuidString.prefix(8))"
        let bundle = dir + "/bin/TimeQuestBox_WebApp.resources"
        try FileManager.default.createDirectory(atPath: bundle + "/templates", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: dir + "/bin/questbox-web", contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: dir + "/questbox-web", withDestinationPath: dir + "/bin/questbox-web")
        let found = WebResources.locate(explicit: nil, executable: dir + "/questbox-web")
        if !FileManager.default.fileExists(atPath: WebResources.packagedDirectory + "/templates") {
            #expect(found.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path } == URL(fileURLWithPath: bundle).resolvingSymlinksInPath().path)
        }
    }

    @Test("no data folder at the path: one line naming it, nothing created")
    func missingFolder() async throws {
        var (args, _) = try TestArguments.fresh()
        args.databasePath = (args.databasePath as NSString).deletingLastPathComponent + "/missing/questbox.sqlite"
        await #expect {
            _ = try await buildApplication(args)
        } throws: { error in
            print("missing folder: \(error)")
            return "\(error)".contains("/missing") && !"\(error)".contains("\n")
        }
        #expect(!FileManager.default.fileExists(atPath: (args.databasePath as NSString).deletingLastPathComponent))
    }
}

/// The web app on the store's own services with some areas swapped for fakes (#49: the
/// fake-store tests), as `buildApplication` would route them.
func application(_ args: TestArguments, fakes: (inout WebServices) -> Void) async throws -> some ApplicationProtocol {
    var services = try await makeServices(args, logger: Logger(label: "test"))
    fakes(&services)
    return Application(router: buildRouter(services))
}
