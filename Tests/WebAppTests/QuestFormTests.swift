import Foundation
import Logging
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestStore
import SystemClock
import Testing
@testable import WebApp

/// A browser's memory for one test: the cookies the app set, and the last form's token.
struct BrowserSession {
    var cookies: [String: String] = [:]
    var csrf = ""

    var cookieHeader: HTTPFields {
        var fields = HTTPFields()
        if !cookies.isEmpty { fields[.cookie] = cookies.map { "\($0)=\($1)" }.sorted().joined(separator: "; ") }
        return fields
    }

    mutating func keep(_ response: TestResponse) {
        for field in response.headers where field.name == .setCookie {
            let pair = field.value.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            if pair.count == 2 { cookies[String(pair[0])] = String(pair[1]) }
        }
        let page = String(buffer: response.body)
        if let range = page.range(of: #"name="csrf" value="[0-9a-f]+""#, options: .regularExpression) {
            csrf = String(page[range].dropFirst(19).dropLast())
        }
    }

    /// GETs a page, keeping its cookies and token; returns status and body.
    mutating func get(_ client: some TestClientProtocol, _ uri: String) async throws -> (HTTPResponse.Status, String) {
        let response = try await client.execute(uri: uri, method: .get, headers: cookieHeader)
        keep(response)
        return (response.status, String(buffer: response.body))
    }

    /// POSTs a form (with this session's token unless `csrf` is given).
    mutating func post(
        _ client: some TestClientProtocol, _ uri: String, _ fields: [(String, String)], csrf: String? = nil, extraHeaders: HTTPFields = [:]
    ) async throws -> TestResponse {
        let all = [("csrf", csrf ?? self.csrf)] + fields
        let body = all.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        var headers = cookieHeader
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers.append(contentsOf: extraHeaders)
        let response = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
        keep(response)
        return response
    }

    /// A program's start: the token from `GET /api/v1/session`, with its cookie.
    mutating func openAPISession(_ client: some TestClientProtocol) async throws {
        let session = try await client.execute(uri: "/api/v1/session", method: .get, headers: cookieHeader)
        keep(session)
        csrf = try JSONDecoder().decode([String: String].self, from: Data(buffer: session.body))["csrf"] ?? ""
    }

    /// `POST /api/v1/parent/session` with `pin`, keeping the session cookie it sets.
    mutating func signInThroughAPI(_ client: some TestClientProtocol, pin: String) async throws {
        keep(try await client.execute(
            uri: "/api/v1/parent/session", method: .post, headers: jsonHeaders(), body: ByteBuffer(string: #"{"pin":""# + pin + #""}"#)))
    }

    /// The headers of a JSON change: the cookies, the type, and the token unless `token` is false.
    func jsonHeaders(token: Bool = true) -> HTTPFields {
        var headers = cookieHeader
        headers[.contentType] = "application/json"
        if token { headers[CSRFTokens.headerName] = csrf }
        return headers
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}

@Suite("Player-made quests (ROUT-2)")
struct QuestFormTests {
    @Test("ROUT-2: a quest from a template is stored as the player's with the days and steps she kept, and the box is told to reload", arguments: [TestingSetup.router, .live])
    func createFromTemplate(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh()
        let box = try FakeBox(path: args.socketPath)
        defer { box.stop() }
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var browser = BrowserSession()
            let (_, choose) = try await browser.get(client, "/quests/new")
            #expect(choose.contains("Homework Session") && choose.contains("Going to a Friend&#39;s") && choose.contains("Custom Quest"))
            let (status, form) = try await browser.get(client, "/quests/new?template=Homework%20Session")
            #expect(status == .ok)
            #expect(form.contains("When do you want this quest?") && form.contains("Quest days"))
            #expect(form.contains("value=\"Get materials\"") && form.contains("value=\"Homework Session\""))
            #expect(browser.cookies[CSRFTokens.cookieName] != nil && !browser.csrf.isEmpty)
            let saved = try await browser.post(client, "/quests", [
                ("name", "Homework Session"), ("day", "2"), ("day", "4"), ("task", "Get materials"), ("task", ""), ("task", "Work time"),
                ("task", "  "), ("action", "save"),
            ])
            #expect(saved.status == .seeOther)
            let routine = try #require(try db.routines.named("Homework Session"))
            #expect(saved.headers[.location] == "/quests/saved?quest=\(routine.id.uuidString)&box=now")
            #expect(routine.createdBy == .player && routine.displayName == "Homework Session" && routine.isActive)
            #expect(routine.activeDays == [2, 4])
            #expect(routine.tasks.map(\.name) == ["Get materials", "Work time"] && routine.tasks.allSatisfy { $0.referenceDurationSeconds == nil })
            #expect(box.commands == ["reload"])
            let (_, done) = try await browser.get(client, "/quests/saved?quest=\(routine.id.uuidString)&box=now")
            #expect(done.contains("“Homework Session” is one of your quests now.") && done.contains("offers it from now on"))
            // #31: a name in the address is never shown; only a stored quest of hers is named.
            let (_, forged) = try await browser.get(client, "/quests/saved?quest=Enter%20your%20PIN%20at%20evil.example&box=now")
            #expect(!forged.contains("evil.example") && forged.contains("Your quest is one of your quests now."))
        }
    }

    @Test("#31: the player's own quests are bounded: 20 steps, 12 active, 5 in 10 minutes, never a name the box shows; each said in words on the page and in the API")
    func playerQuestLimits() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let clock = FakeSystemClock(wall: Date())
        let services = try await makeServices(args, logger: Logger(label: "test"), clock: clock)
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            func make(_ name: String, steps: Int = 2) async throws -> TestResponse {
                try await browser.post(client, "/quests", [("name", name), ("day", "2")] + (1...steps).map { ("task", "step \($0)") } + [("action", "save")])
            }
            let long = try await make("Long", steps: 21)
            #expect(long.status == .unprocessableContent && String(buffer: long.body).contains("Steps: 21 steps; a quest of your own has at most 20"))
            let taken = try await make("daily quest")
            #expect(taken.status == .unprocessableContent && String(buffer: taken.body).contains("is already a quest on the box: pick another name"))
            for i in 1...5 { #expect(try await make("Mine \(i)").status == .seeOther) }
            let fast = try await make("Mine 6")
            #expect(fast.status == .tooManyRequests && fast.headers[.retryAfter] == "600")
            #expect(String(buffer: fast.body).contains("You made 5 quests in the last 10 minutes. Make the next one in 10 minutes."))
            var api = BrowserSession()
            try await api.openAPISession(client)
            let body = ByteBuffer(string: #"{"name": "Mine 7", "days": [2], "tasks": ["a"]}"#)
            var headers = api.cookieHeader
            headers[.contentType] = "application/json"
            headers[CSRFTokens.headerName] = api.csrf
            let refused = try await client.execute(uri: "/api/v1/quests", method: .post, headers: headers, body: body)
            #expect(refused.status == .tooManyRequests && String(buffer: refused.body).contains("You made 5 quests"))
            // A key twice in one object is refused, not "the last one wins".
            let twice = try await client.execute(
                uri: "/api/v1/quests", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"name": "A", "name": "B", "days": [2], "tasks": ["a"]}"#))
            #expect(twice.status == .badRequest)
            for i in 6...12 {
                clock.advance(seconds: 600)
                #expect(try await make("Mine \(i)").status == .seeOther, "quest \(i)")
            }
            clock.advance(seconds: 600)
            let full = try await make("Mine 13")
            #expect(full.status == .unprocessableContent && String(buffer: full.body).contains("You have 12 quests of your own already, the most the box keeps."))
            #expect(try db.routines.all().filter { $0.createdBy == .player }.count == 12)
        }
    }

    @Test("#47: changes of her quests are bounded like making them: 10 in 10 minutes (40 in 1.7 s churned the voice's clips), said in words; the refused one changes nothing")
    func questChangesBounded() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let clock = FakeSystemClock(wall: Date())
        let services = try await makeServices(args, logger: Logger(label: "test"), clock: clock)
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            let made = try await browser.post(client, "/quests", [("name", "Mine"), ("day", "2"), ("task", "a"), ("action", "save")])
            #expect(made.status == .seeOther)
            let quest = try #require(try db.routines.all().first { $0.createdBy == .player })
            func change(_ name: String) async throws -> TestResponse {
                _ = try await browser.get(client, "/quests/\(quest.id.uuidString)/edit")
                return try await browser.post(client, "/quests/\(quest.id.uuidString)", [("name", name), ("day", "2"), ("task", "a"), ("action", "save")])
            }
            for i in 1...PlayerQuestLimits.changesPerPeriod { #expect(try await change("Mine \(i)").status == .seeOther, "change \(i)") }
            let fast = try await change("Mine 11")
            #expect(fast.status == .tooManyRequests && fast.headers[.retryAfter] == "600")
            #expect(String(buffer: fast.body).contains("You changed your quests 10 times in the last 10 minutes. Change this one in 10 minutes."))
            #expect(String(buffer: fast.body).contains("value=\"Mine 11\""), "her words are kept")
            #expect(try db.routines.withID(quest.id)?.displayName == "Mine 10")
            clock.advance(seconds: 600)
            #expect(try await change("Mine 11").status == .seeOther)
        }
    }

    @Test("#48: a step renamed in its row keeps its task id, so her history stays with it; an id not of this quest is never taken")
    func renamedStepKeepsHistory() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            let made = try await browser.post(client, "/quests", [("name", "Mine"), ("day", "2"), ("task", "Feed cat"), ("task", "Water plants"), ("action", "save")])
            #expect(made.status == .seeOther)
            let quest = try #require(try db.routines.all().first { $0.createdBy == .player })
            let (_, page) = try await browser.get(client, "/quests/\(quest.id.uuidString)/edit")
            #expect(page.contains("name=\"task-id\" value=\"\(quest.tasks[1].id.uuidString)\""), "each row carries its step's id")
            let parentsTask = try #require(everyDay.tasks.first).id
            let changed = try await browser.post(client, "/quests/\(quest.id.uuidString)", [
                ("name", "Mine"), ("day", "2"),
                ("task-id", quest.tasks[0].id.uuidString), ("task", "Feed the cat"),
                ("task-id", quest.tasks[1].id.uuidString), ("task", "Water the plants"),
                ("task-id", parentsTask.uuidString), ("task", "Tidy"), ("action", "save"),
            ])
            #expect(changed.status == .seeOther, "\(String(buffer: changed.body))")
            let saved = try #require(try db.routines.withID(quest.id))
            #expect(saved.tasks.map(\.displayName) == ["Feed the cat", "Water the plants", "Tidy"])
            #expect(saved.tasks.prefix(2).map(\.id) == quest.tasks.map(\.id), "renamed in their rows, the same steps")
            #expect(saved.tasks[2].id != parentsTask, "a parent's task id is not hers to take")
        }
    }

    @Test("a quest's problems are shown beside their field in the CLI's words, the form keeps what was typed, nothing is stored")
    func problemsBesideFields() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            let cases: [([(String, String)], String, String)] = [
                ([("name", ""), ("day", "1"), ("task", "a")], "name-error", "Quest name: empty"),
                ([("name", "Q"), ("task", "a")], "days-error", "Quest days: empty (pick at least one day"),
                ([("name", "Q"), ("day", "9"), ("task", "a")], "days-error", "Quest days: 9 is not a weekday"),
                ([("name", "Q"), ("day", "1"), ("task", ""), ("task", "ok"), ("task", "bell\u{7}")], "task-3-error", "Step 3: contains the control character U+0007"),
                ([("name", "Q"), ("day", "1"), ("task", "")], "steps-error", "Steps: empty (a routine needs at least one task)"),
                ([("name", String(repeating: "x", count: 81)), ("day", "1"), ("task", "a")], "name-error", "Quest name: longer than 80 characters"),
                ([("name", "daily"), ("day", "1"), ("task", "a")], "name-error", "“daily” is already a quest on the box: pick another name"),
                // #47: names that read the same (TR39): a Cyrillic а, full-width letters.
                ([("name", "d\u{0430}ily"), ("day", "1"), ("task", "a")], "name-error", "“d\u{0430}ily” is already a quest on the box: pick another name"),
                ([("name", "ＤＡＩＬＹ"), ("day", "1"), ("task", "a")], "name-error", "“ＤＡＩＬＹ” is already a quest on the box: pick another name"),
                ([("name", "Q"), ("day", "1"), ("task", "same"), ("task", "same")], "task-2-error", "Step 2: &quot;same&quot; appears twice"),
            ]
            for (fields, id, message) in cases {
                let response = try await browser.post(client, "/quests", fields)
                let page = String(buffer: response.body)
                #expect(response.status == .unprocessableContent, "\(fields)")
                #expect(page.contains("id=\"\(id)\">\(message)"), "\(id): \(message)\n\(page)")
                #expect(page.contains("aria-invalid=\"true\"") || id.hasPrefix("days") || id.hasPrefix("steps"))
            }
            #expect(try db.routines.all().map(\.name) == ["daily"], "nothing stored")
        }
    }

    @Test("“More steps” without JavaScript: the same form with three more empty steps, nothing stored")
    func moreSteps() async throws {
        let (args, db) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            let response = try await browser.post(client, "/quests", [("name", "Mine"), ("day", "3"), ("task", "one"), ("task", ""), ("action", "more")])
            let page = String(buffer: response.body)
            #expect(response.status == .ok)
            #expect(page.contains("id=\"task-5\"") && !page.contains("id=\"task-6\""), "two sent + three")
            #expect(page.contains("value=\"Mine\"") && page.contains("value=\"one\""))
            #expect(page.contains("name=\"day\" value=\"3\" checked") && !page.contains("name=\"day\" value=\"2\" checked"))
            #expect(try db.routines.all().isEmpty)
            let firstButton = try #require(page.range(of: #"<button type="submit"[^>]*>"#, options: .regularExpression))
            #expect(page[firstButton].contains("value=\"save\""), "Enter in a field saves (the first submit button), not “More steps”")
        }
    }

    @Test("a change without this browser's token is refused with 403 and stores nothing: missing, forged, another browser's, cross-site")
    func csrf() async throws {
        let (args, db) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            var other = BrowserSession()
            _ = try await other.get(client, "/quests/new?template=Custom%20Quest")
            #expect(other.csrf != browser.csrf)
            let quest = [("name", "Q"), ("day", "1"), ("task", "a")]
            let forged = String(browser.csrf.reversed())
            let crossSite: HTTPFields = [.secFetchSite: "cross-site"]
            for (token, headers) in [("", HTTPFields()), (forged, HTTPFields()), (other.csrf, HTTPFields()), (browser.csrf, crossSite)] {
                let response = try await browser.post(client, "/quests", quest, csrf: token, extraHeaders: headers)
                #expect(response.status == .forbidden, "\(token) \(headers)")
                #expect(String(buffer: response.body).contains("Reload the page and try again."))
            }
            var stranger = BrowserSession()
            stranger.csrf = browser.csrf
            #expect(try await stranger.post(client, "/quests", quest).status == .forbidden, "the token without its cookie")
            #expect(try db.routines.all().isEmpty)
            #expect(try await browser.post(client, "/quests", quest).status == .seeOther, "and the right one works")
        }
    }

    @Test("a form over 32 KiB is refused with 413 before it is read; a form that is not a form with 415")
    func oversized() async throws {
        let (args, db) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.live) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/quests/new?template=Custom%20Quest")
            let response = try await browser.post(client, "/quests", [("name", String(repeating: "x", count: 40_000)), ("day", "1"), ("task", "a")])
            #expect(response.status == .contentTooLarge)
            #expect(String(buffer: response.body).contains("A form may be at most 32 KiB."))
            var headers = browser.cookieHeader
            headers[.contentType] = "text/plain"
            let plain = try await client.execute(uri: "/quests", method: .post, headers: headers, body: ByteBuffer(string: "name=Q"))
            #expect(plain.status == .unsupportedMediaType)
            #expect(try db.routines.all().isEmpty)
        }
    }

    @Test("the API: templates, a token from /api/v1/session, a quest as JSON (201), its problem as a field and a message (422)")
    func api() async throws {
        let (args, db) = try TestArguments.fresh()
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let templates = try await client.execute(uri: "/api/v1/quest-templates", method: .get)
            let names = try JSONDecoder().decode([QuestDraft].self, from: Data(buffer: templates.body)).map(\.name)
            #expect(names == ["Homework Session", "Going to a Friend's", "Activity Prep", ""])
            var browser = BrowserSession()
            try await browser.openAPISession(client)
            var headers = browser.jsonHeaders(token: false)
            let body = #"{"name":"Piano","days":[1,2,3,4,5,6,7],"tasks":["Scales","Piece"]}"#
            let refused = try await client.execute(uri: "/api/v1/quests", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(refused.status == .forbidden, "no token header")
            headers[CSRFTokens.headerName] = browser.csrf
            let created = try await client.execute(uri: "/api/v1/quests", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(created.status == .created)
            let stored = try #require(try db.routines.named("Piano"))
            let answer = try JSONDecoder().decode([String: String].self, from: Data(buffer: created.body))
            #expect(answer == ["id": stored.id.uuidString, "name": "Piano", "box": "offline"])
            #expect(stored.createdBy == .player)
            let home = String(buffer: try await client.execute(uri: "/", method: .get).body)
            #expect(home.contains("Piano <span class=\"badge\">Your Quest</span>"), "offered today, marked as hers")
            let bad = try await client.execute(
                uri: "/api/v1/quests", method: .post, headers: headers, body: ByteBuffer(string: #"{"name":"Other","days":[1],"tasks":["<b>\u0000"]}"#))
            #expect(bad.status == .unprocessableContent)
            let problem = try JSONDecoder().decode([String: String].self, from: Data(buffer: bad.body))
            #expect(problem["field"] == "tasks[0]" && problem["error"]?.hasPrefix("Step 1: contains the control character U+0000") == true)
        }
    }
}
