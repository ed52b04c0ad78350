import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestStore
import TestSupport
import Testing
@testable import WebApp

/// A parent signed in on a fresh store with one routine (`everyDay`) and PIN 2468.
func signedInParent(_ client: some TestClientProtocol) async throws -> BrowserSession {
    var browser = BrowserSession()
    _ = try await browser.get(client, "/parent")
    let response = try await browser.post(client, "/parent/sign-in", [("pin", "2468")])
    #expect(response.status == .seeOther)
    #expect(browser.cookies[ParentSessions.cookieName] != nil)
    return browser
}

/// A program signed in as the parent through the API (PIN 2468): its session and token.
func signedInAPIParent(_ client: some TestClientProtocol) async throws -> BrowserSession {
    var browser = BrowserSession()
    try await browser.openAPISession(client)
    try await browser.signInThroughAPI(client, pin: "2468")
    return browser
}

/// The editor's fields for `routine`, as the page would send them back, with `rows` as
/// (id, name, display, usual).
func routineFields(
    name: String, displayName: String, days: [Int] = [2, 4], active: Bool = true, reminder: String = "default", reminderAt: String = "",
    revision: String = "", rows: [(String, String, String, String)], action: String = "save"
) -> [(String, String)] {
    var fields: [(String, String)] = [("revision", revision), ("name", name), ("displayName", displayName)]
    fields += days.map { ("day", "\($0)") }
    if active { fields.append(("active", "on")) }
    fields += [("reminder", reminder), ("reminderAt", reminderAt)]
    for row in rows {
        fields += [("taskId", row.0), ("taskName", row.1), ("taskDisplay", row.2), ("taskUsual", row.3)]
    }
    fields.append(("action", action))
    return fields
}

@Suite("The parent's routine editor (PAR-1, ROUT-1)")
struct RoutineEditorTests {
    @Test("PAR-1: a new routine from the form, with days, a reminder and hidden usual times, is stored and offered at once", arguments: [TestingSetup.router, .live])
    func create(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var browser = try await signedInParent(client)
            let (status, page) = try await browser.get(client, "/parent/routines/new")
            #expect(status == .ok && page.contains("New routine") && page.contains("Usual time"))
            let saved = try await browser.post(client, "/parent/routines", routineFields(
                name: "school-morning", displayName: "Morning Quest", days: [2, 3, 4, 5, 6], reminder: "at", reminderAt: "07:15",
                rows: [("", "teeth", "Tooth Time", "2:30"), ("", "", "", ""), ("", "dress", "Get Dressed", "5"), ("", "bag", "", "")]))
            #expect(saved.status == .seeOther, "\(String(buffer: saved.body))")
            let location = try #require(saved.headers[.location])
            #expect(location.hasPrefix("/parent?done=") && location.hasSuffix("box=now"))
            let routine = try #require(try db.routines.named("school-morning"))
            #expect(routine.displayName == "Morning Quest" && routine.activeDays == [2, 3, 4, 5, 6] && routine.isActive && routine.createdBy == .parent)
            #expect(routine.tasks.map(\.name) == ["teeth", "dress", "bag"])
            #expect(routine.tasks.map(\.referenceDurationSeconds) == [150, 300, nil])
            #expect(routine.reminder == .at(try #require(ClockTime("07:15"))))
            #expect(box.commands.contains("reload"))
            let (_, home) = try await browser.get(client, location)
            #expect(home.contains("“Morning Quest” is saved. The box has it now."))
            // #31: a status line is a word from a fixed list; nothing from the address is shown.
            for forged in ["/parent?done=The%20box%20was%20reset.%20Enter%20your%20PIN%20at%20http://evil.example&box=now",
                           "/parent?done=saved&routine=\(UUID().uuidString)&box=now", "/parent?done=saved&routine=%3Cb%3E"] {
                let (_, page) = try await browser.get(client, forged)
                #expect(!page.contains("class=\"done\"") && !page.contains("evil.example") && !page.contains("was reset"), "\(forged)")
            }
            #expect(home.contains("school-morning · Mon–Fri · 3 tasks"))
            // The usual times are the parent's: the player's pages never show them.
            let (_, playerHome) = try await browser.get(client, "/")
            #expect(!playerHome.contains("2:30") && !playerHome.contains("150"))
        }
    }

    @Test("ROUT-1: editing renames, reorders, adds and removes tasks; a task keeps its id (and its history) through a rename and a move")
    func editKeepsTaskIDs() async throws {
        let morning = Routine(
            id: UUID(), name: "school-morning", displayName: "Morning Quest", activeDays: [2, 3, 4, 5, 6],
            tasks: [
                RoutineTask(id: UUID(), name: "teeth", displayName: "Tooth Time", referenceDurationSeconds: 120),
                RoutineTask(id: UUID(), name: "dress", displayName: "Get Dressed"),
                RoutineTask(id: UUID(), name: "bag", displayName: "Pack the Bag"),
            ], reminder: .off)
        let (args, db) = try TestArguments.fresh(routines: [everyDay, morning])
        try db.parentPIN.setPIN("2468")
        try recordQuest(db, at: Date().addingTimeInterval(-86_400), durations: [(60, 70), (120, 100), (30, 40)], routine: morning)
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (status, page) = try await browser.get(client, "/parent/routines/\(morning.id.uuidString)")
            #expect(status == .ok)
            #expect(page.contains("value=\"Tooth Time\"") && page.contains("value=\"2:00\"") && page.contains(morning.tasks[0].id.uuidString))
            let revision = try #require(page.firstMatch(of: /name="revision" value="([0-9a-f]+)"/)?.1)
            let t = morning.tasks
            // "teeth" renamed and moved last, "dress" removed, a new one added, a row from a
            // stranger's id (not this routine's) treated as new.
            let foreign = everyDay.tasks[0].id.uuidString
            let saved = try await browser.post(client, "/parent/routines/\(morning.id.uuidString)", routineFields(
                name: "school-morning", displayName: "Morning Run", days: [2, 3, 4, 5, 6], reminder: "off", revision: String(revision),
                rows: [(t[2].id.uuidString, "bag", "Pack the Bag", ""), (foreign, "shoes", "Shoes On", "1:05"), (t[0].id.uuidString, "teeth-brush", "Tooth Time", "2:00")]))
            #expect(saved.status == .seeOther, "\(String(buffer: saved.body))")
            let stored = try #require(try db.routines.withID(morning.id))
            #expect(stored.displayName == "Morning Run" && stored.reminder == .off)
            #expect(stored.tasks.map(\.name) == ["bag", "shoes", "teeth-brush"])
            #expect(stored.tasks[0].id == t[2].id && stored.tasks[2].id == t[0].id)
            #expect(stored.tasks[1].id != everyDay.tasks[0].id && !t.map(\.id).contains(stored.tasks[1].id))
            #expect(stored.tasks.map(\.referenceDurationSeconds) == [nil, 65, 120])
            #expect(try db.routines.withID(everyDay.id) == everyDay)   // the other routine is untouched
            // Its history still belongs to the renamed task (INS-1 reads it by task id).
            #expect(try db.plays.estimations().filter { $0.taskID == t[0].id }.count == 1)
        }
    }

    @Test("ROUT-1: moving, removing and adding rows work without JavaScript and keep what was typed")
    func rowActions() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let rows = [("", "a-task", "Alpha", "1:00"), ("", "b-task", "Bravo", ""), ("", "c-task", "Charlie", "")]
            func order(_ page: String) -> [String] { page.matches(of: /name="taskName" value="([^"]*)"/).map { String($0.1) } }
            let up = try await browser.post(client, "/parent/routines", routineFields(name: "typed", displayName: "Typed", rows: rows, action: "up-2"))
            #expect(up.status == .ok)
            #expect(order(String(buffer: up.body)) == ["a-task", "c-task", "b-task"])
            #expect(String(buffer: up.body).contains("value=\"Typed\""))
            let down = try await browser.post(client, "/parent/routines", routineFields(name: "typed", displayName: "Typed", rows: rows, action: "down-0"))
            #expect(order(String(buffer: down.body)) == ["b-task", "a-task", "c-task"])
            let removed = try await browser.post(client, "/parent/routines", routineFields(name: "typed", displayName: "Typed", rows: rows, action: "remove-1"))
            #expect(order(String(buffer: removed.body)) == ["a-task", "c-task"])
            let more = try await browser.post(client, "/parent/routines", routineFields(name: "typed", displayName: "Typed", rows: rows, action: "more"))
            #expect(order(String(buffer: more.body)) == ["a-task", "b-task", "c-task", "", "", ""])
            // Out-of-range moves are ignored, not a crash.
            for action in ["up-0", "down-2", "remove-9", "up--1", "sideways-1"] {
                let odd = try await browser.post(client, "/parent/routines", routineFields(name: "typed", displayName: "Typed", rows: rows, action: action))
                #expect(odd.status == .ok && order(String(buffer: odd.body)).count == 3, "\(action)")
            }
            #expect(try db.routines.named("typed") == nil)   // nothing was saved along the way
            // Rows that do not line up are a broken form.
            var broken = routineFields(name: "typed", displayName: "Typed", rows: rows)
            broken.removeAll { $0.0 == "taskUsual" }
            #expect(try await browser.post(client, "/parent/routines", broken).status == .badRequest)
        }
    }

    @Test("ROUT-1: each problem is one line beside its field, in the import's words, and nothing is stored", arguments: [
        (routineFields(name: "", displayName: "X", rows: [("", "a", "A", "")]), "name", "empty"),
        (routineFields(name: "x", displayName: "X", days: [], rows: [("", "a", "A", "")]), "days", "empty (pick at least one day"),
        (routineFields(name: "x", displayName: "X", days: [9], rows: [("", "a", "A", "")]), "days", "9 is not a weekday"),
        (routineFields(name: "x", displayName: "X", rows: [("", "", "", "")]), "tasks", "empty (a routine needs at least one task)"),
        (routineFields(name: "x", displayName: "X", rows: [("", "a", "A", ""), ("", "", "", ""), ("", "a", "Again", "")]), "task-3-name", "\"a\" appears twice in this routine"),
        (routineFields(name: "x", displayName: "X", rows: [("", "a", "A", "2:75")]), "task-1-usual", "“2:75” is not a time like 2:30"),
        (routineFields(name: "x", displayName: "X", rows: [("", "a", "A", "4:00:00")]), "task-1-usual", "outside 0:01 to 3:00:00"),
        (routineFields(name: "x", displayName: "X", rows: [("", "a", "A", "-1")]), "task-1-usual", "is not a time"),
        (routineFields(name: "x", displayName: "X", rows: [("", "", "Shown only", "")]), "task-1-name", "empty"),
        (routineFields(name: "x\u{7}", displayName: "X", rows: [("", "a", "A", "")]), "name", "contains the control character U+0007"),
        (routineFields(name: "x", displayName: String(repeating: "é", count: 81), rows: [("", "a", "A", "")]), "displayName", "longer than 80 characters"),
        (routineFields(name: "x", displayName: "X", reminder: "at", reminderAt: "25:00", rows: [("", "a", "A", "")]), "reminder", "“25:00” is not a time of day"),
        (routineFields(name: "daily", displayName: "X", rows: [("", "a", "A", "")]), "name", "a routine named \"daily\" already exists"),
    ])
    func problems(fields: [(String, String)], field: String, message: String) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let response = try await browser.post(client, "/parent/routines", fields)
            let page = String(buffer: response.body)
            #expect(response.status == .unprocessableContent)
            let shown = try #require(page.firstMatch(of: /<span class="error" id="([A-Za-z0-9-]+)-error">([^<]*)<\/span>/), "\(page)")
            #expect(String(shown.1) == field)
            let text = String(shown.2).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            #expect(text.contains(message), "\(text)")
            #expect(page.matches(of: /class="error"/).count == 1)
            #expect(try db.routines.all() == [everyDay])
        }
    }

    @Test("PAR-1: a save over a routine changed meanwhile (by the box, the CLI or another page) is refused with the edits kept; saving again applies them")
    func changedMeanwhile() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, page) = try await browser.get(client, "/parent/routines/\(everyDay.id.uuidString)")
            let revision = String(try #require(page.firstMatch(of: /name="revision" value="([0-9a-f]+)"/)?.1))
            // The CLI pauses it meanwhile.
            try db.routines.setActive(false, id: everyDay.id)
            let rows = [(everyDay.tasks[0].id.uuidString, "one", "One", "3:00")]
            let refused = try await browser.post(client, "/parent/routines/\(everyDay.id.uuidString)", routineFields(
                name: "daily", displayName: "Daily Quest!", days: Array(1...7), revision: revision, rows: rows))
            #expect(refused.status == .conflict)
            let again = String(buffer: refused.body)
            #expect(again.contains("Not saved: this routine was changed meanwhile") && again.contains("value=\"Daily Quest!\"") && again.contains("value=\"3:00\""))
            #expect(try db.routines.withID(everyDay.id)?.displayName == "Daily Quest")
            #expect(try db.routines.withID(everyDay.id)?.isActive == false)
            let newer = String(try #require(again.firstMatch(of: /name="revision" value="([0-9a-f]+)"/)?.1))
            #expect(newer != revision)
            let saved = try await browser.post(client, "/parent/routines/\(everyDay.id.uuidString)", routineFields(
                name: "daily", displayName: "Daily Quest!", days: Array(1...7), revision: newer, rows: rows))
            #expect(saved.status == .seeOther)
            #expect(try db.routines.withID(everyDay.id)?.displayName == "Daily Quest!")
            // Removed meanwhile: the save does not bring it back.
            try db.routines.remove(id: everyDay.id)
            let gone = try await browser.post(client, "/parent/routines/\(everyDay.id.uuidString)", routineFields(
                name: "daily", displayName: "Daily Quest!", days: Array(1...7), revision: newer, rows: rows))
            #expect(gone.status == .notFound)
            #expect(try db.routines.all().isEmpty)
        }
    }

    @Test("PAR-1: pause, offer again and remove (after a confirmation that says the history stays); the plays stay")
    func pauseAndRemove() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        try recordQuest(db, at: Date().addingTimeInterval(-86_400), durations: [(60, 70)], routine: everyDay)
        try recordQuest(db, at: Date().addingTimeInterval(-2 * 86_400), durations: [(60, 70)], routine: everyDay)
        let box = try FakeBox(path: args.socketPath)
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let id = everyDay.id.uuidString
            let paused = try await browser.post(client, "/parent/routines/\(id)/active", [("active", "false")])
            #expect(paused.status == .seeOther && paused.headers[.location]?.contains("paused") == true)
            #expect(try db.routines.withID(everyDay.id)?.isActive == false)
            let (_, home) = try await browser.get(client, "/parent")
            // #48: "set aside", the player's word too; "paused" is a quest stopped part-way.
            #expect(home.contains(">set aside<") && !home.contains(">paused<") && home.contains("Offer again"))
            let (_, after) = try await browser.get(client, try #require(paused.headers[.location]))
            #expect(after.contains("“Daily Quest” is set aside; its plays stay"), "the status line")
            _ = try await browser.post(client, "/parent/routines/\(id)/active", [("active", "true")])
            #expect(try db.routines.withID(everyDay.id)?.isActive == true)
            let (status, confirm) = try await browser.get(client, "/parent/routines/\(id)/remove")
            #expect(status == .ok && confirm.contains("played to the end twice") && confirm.contains("stay in the player"))
            #expect(try db.routines.all().count == 1)   // asking is not removing
            let removed = try await browser.post(client, "/parent/routines/\(id)/remove", [])
            #expect(removed.status == .seeOther)
            #expect(try db.routines.all().isEmpty)
            #expect(try db.plays.estimations().count == 2)
            #expect(box.commands.filter { $0 == "reload" }.count == 3)
            #expect(try await browser.get(client, "/parent/routines/\(id)").0 == .notFound)
            #expect(try await browser.get(client, "/parent/routines/not-a-uuid").0 == .notFound)
        }
    }

    @Test("PAR-1: without a session the editor sends the browser to the PIN and the API says 401; without the CSRF token nothing changes")
    func guarded() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var stranger = BrowserSession()
            _ = try await stranger.get(client, "/quests/new?template=Custom%20Quest")   // a token of its own
            for path in ["/parent/routines/new", "/parent/routines/\(everyDay.id.uuidString)", "/parent/routines/\(everyDay.id.uuidString)/remove"] {
                let response = try await client.execute(uri: path, method: .get, headers: stranger.cookieHeader)
                #expect(response.status == .seeOther && response.headers[.location] == "/parent", "\(path)")
            }
            let post = try await stranger.post(client, "/parent/routines/\(everyDay.id.uuidString)/remove", [])
            #expect(post.status == .seeOther)
            let api = try await client.execute(uri: "/api/v1/parent/routines/\(everyDay.id.uuidString)", method: .delete, headers: stranger.jsonHeaders())
            #expect(api.status == .unauthorized)
            #expect(try db.routines.all() == [everyDay])

            var parent = try await signedInParent(client)
            let forged = try await parent.post(client, "/parent/routines/\(everyDay.id.uuidString)/remove", [], csrf: "00")
            #expect(forged.status == .forbidden)
            let missing = try await client.execute(uri: "/api/v1/parent/routines/\(everyDay.id.uuidString)", method: .delete, headers: parent.jsonHeaders(token: false))
            #expect(missing.status == .forbidden)
            #expect(try db.routines.all() == [everyDay])
        }
    }

    @Test("a <script> and an \"onerror= in routine and task names are inert on the parent's pages")
    func hostileNames() async throws {
        let hostile = Routine(
            id: UUID(), name: "<script>alert(1)</script>", displayName: "\"onerror=alert(2) x=\"", activeDays: [1],
            tasks: [RoutineTask(id: UUID(), name: "<img src=x onerror=alert(3)>", displayName: "\"onerror=alert(4)")])
        let (args, db) = try TestArguments.fresh(routines: [hostile])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            for path in ["/parent", "/parent/routines/\(hostile.id.uuidString)", "/parent/routines/\(hostile.id.uuidString)/remove"] {
                let (status, page) = try await browser.get(client, path)
                #expect(status == .ok, "\(path)")
                #expect(!page.contains("<script>alert") && !page.contains("<img src=x") && !page.contains("\"onerror="), "\(path)")
                #expect(page.contains("&lt;script&gt;") || page.contains("&quot;onerror="), "\(path)")
            }
        }
    }

    @Test("the routines API: add or replace in the import format (ids kept by name), read one, pause, remove; problems name the field")
    func api() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let browser = try await signedInAPIParent(client)
            let document = #"{"name":"piano","displayName":"Piano Quest","activeDays":[2,4],"tasks":[{"name":"scales","displayName":"Scales","referenceDurationSeconds":300}]}"#
            let created = try await client.execute(uri: "/api/v1/parent/routines", method: .post, headers: browser.jsonHeaders(), body: ByteBuffer(string: document))
            #expect(created.status == .created)
            let first = try #require(try db.routines.named("piano"))
            let replaced = try await client.execute(uri: "/api/v1/parent/routines", method: .post, headers: browser.jsonHeaders(), body: ByteBuffer(string: document.replacingOccurrences(of: "Piano Quest", with: "Piano!")))
            #expect(replaced.status == .ok)
            let second = try #require(try db.routines.named("piano"))
            #expect(second.id == first.id && second.tasks[0].id == first.tasks[0].id && second.displayName == "Piano!")
            let read = try await client.execute(uri: "/api/v1/parent/routines/\(first.id.uuidString)", method: .get, headers: browser.cookieHeader)
            let detail = try #require(try JSONSerialization.jsonObject(with: Data(buffer: read.body)) as? [String: Any])
            #expect(detail["revision"] as? String == RoutineStore.revision(of: second))
            let bad = try await client.execute(uri: "/api/v1/parent/routines", method: .post, headers: browser.jsonHeaders(), body: ByteBuffer(string: #"{"name":"x","activeDays":[8],"tasks":[{"name":"a"}]}"#))
            #expect(bad.status == .unprocessableContent && String(buffer: bad.body).contains(#""field":"activeDays[0]""#))
            let pause = try await client.execute(uri: "/api/v1/parent/routines/\(first.id.uuidString)/active", method: .post, headers: browser.jsonHeaders(), body: ByteBuffer(string: #"{"isActive":false}"#))
            #expect(pause.status == .ok)
            #expect(try db.routines.withID(first.id)?.isActive == false)
            let odd = try await client.execute(uri: "/api/v1/parent/routines/\(first.id.uuidString)/active", method: .post, headers: browser.jsonHeaders(), body: ByteBuffer(string: #"{"isActive":"no"}"#))
            #expect(odd.status == .badRequest)
            let gone = try await client.execute(uri: "/api/v1/parent/routines/\(first.id.uuidString)", method: .delete, headers: browser.jsonHeaders())
            #expect(gone.status == .ok)
            #expect(try db.routines.withID(first.id) == nil)
            let again = try await client.execute(uri: "/api/v1/parent/routines/\(first.id.uuidString)", method: .delete, headers: browser.jsonHeaders())
            #expect(again.status == .notFound)
        }
    }
}
