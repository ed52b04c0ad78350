import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestStore
import QuestReports
import Testing
@testable import WebApp

/// The page's fields for every setting: `value.<key>` and the `was.<key>` it showed.
func settingsFields(_ page: String, changing changes: [String: String]) -> [(String, String)] {
    var fields: [(String, String)] = []
    for match in page.matches(of: /name="was\.([a-z.-]+)" value="([^"]*)"/) {
        let key = String(match.1), was = String(match.2)
        fields += [("was." + key, was), ("value." + key, changes[key] ?? was)]
    }
    return fields
}

@Suite("The parent's settings page (questbox settings on the web)")
struct SettingsPageTests {
    @Test("every setting of `questbox settings` is on the page with its value; a change is written, the box reloads", arguments: [TestingSetup.router, .live])
    func changeSettings(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let box = try FakeBox(path: args.socketPath)
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var browser = try await signedInParent(client)
            let (status, page) = try await browser.get(client, "/parent/settings")
            #expect(status == .ok)
            let keys = SettingsCatalog.list(try db.settings.current(), routines: []).map(\.key)
            for key in keys { #expect(page.contains("name=\"value.\(key)\""), "\(key) is on the page") }
            #expect(page.contains("<option value=\"joker\">One free day a week keeps it going</option>"))
            // STREAK-3: the help says what each policy does, and that a switch keeps the streak shown now.
            #expect(!page.contains("never resets to 0"))
            #expect(page.contains("with none left the streak starts again from 0. Switching keeps the streak (now 0 days)"))
            let reminderTime = try db.settings.current().game.reminderTime.description
            #expect(page.contains("type=\"time\"") && page.contains("value=\"\(reminderTime)\""))
            let saved = try await browser.post(client, "/parent/settings", settingsFields(page, changing: [
                "sound.volume": "35", "streak.policy": "joker", "reminder.time": "06:45", "week.first-day": "monday", "estimate.readback": "true",
            ]))
            #expect(saved.status == .seeOther, "\(String(buffer: saved.body))")
            let settings = try db.settings.current()
            #expect(settings.volumePercent == 35 && settings.game.streakPolicy == .joker && settings.firstWeekday == 2 && settings.game.estimateReadBack)
            #expect(settings.game.reminderTime.description == "06:45")
            #expect(settings.game.streakPolicyChanges.map(\.to) == [.joker], "STREAK-3: the switch is stored")
            #expect(box.commands.contains("reload"))
            let (_, after) = try await browser.get(client, try #require(saved.headers[.location]))
            #expect(after.contains("Saved: Volume, When a day is missed, Read the estimate back, First day of the week, Reminder time. The box has it now."))
            #expect(after.contains("name=\"was.sound.volume\" value=\"35\""))
        }
    }

    @Test("only what the parent changed is written: a setting changed meanwhile elsewhere is not put back")
    func onlyChanges() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, page) = try await browser.get(client, "/parent/settings")
            // The CLI mutes the box while the page is open.
            try SettingsCatalog.set("sound.mute", to: "true", in: db.settings)
            let saved = try await browser.post(client, "/parent/settings", settingsFields(page, changing: ["hints": "false"]))
            #expect(saved.status == .seeOther)
            #expect(try db.settings.current().soundEnabled == false, "the CLI's mute stays")
            #expect(try db.settings.current().game.hintsEnabled == false)
            // Nothing changed: nothing written, no reload asked.
            let (_, again) = try await browser.get(client, "/parent/settings")
            let unchanged = try await browser.post(client, "/parent/settings", settingsFields(again, changing: [:]))
            #expect(unchanged.status == .seeOther && unchanged.headers[.location] == "/parent/settings")
        }
    }

    @Test("#32: a refused value is shown beside its field in the page's words (its label, what to enter; no CLI key) and nothing is written", arguments: [
        ("sound.volume", "101", "Volume: “101” cannot be used. Enter a number from 0 to 100."),
        ("stop.guard-seconds", "11", "Stop guard: “11” cannot be used. Enter whole seconds from 0 to 10, or “default” for 2."),
        ("reminder.time", "7 am", "Reminder time: “7 am” cannot be used. Enter a time of day such as 07:30."),
        ("streak.policy", "reset", "When a day is missed: “reset” cannot be used. Choose one of: The streak pauses and goes on · One free day a week keeps it going."),
        ("hints", "<script>", "Hints: “<script>” cannot be used. Choose one of: Shown · Off."),
    ])
    func refused(key: String, value: String, message: String) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, page) = try await browser.get(client, "/parent/settings")
            let before = try db.settings.current()
            let response = try await browser.post(client, "/parent/settings", settingsFields(page, changing: key == "sound.volume" ? [key: value] : [key: value, "sound.volume": "12"]))
            #expect(response.status == .unprocessableContent)
            let body = String(buffer: response.body)
            let id = "setting-" + key.replacingOccurrences(of: ".", with: "-")
            let escaped = message.replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            #expect(body.contains("<span class=\"error\" id=\"\(id)-error\">\(escaped)</span>"), "\(body)")
            #expect(!body.contains("<script>"))
            #expect(try db.settings.current() == before, "one refused value writes nothing, not even the volume")
        }
    }

    @Test("the settings API: read all, change several at once, all or nothing; unknown keys name themselves")
    func api() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            let browser = try await signedInAPIParent(client)
            let list = try await client.execute(uri: "/api/v1/parent/settings", method: .get, headers: browser.cookieHeader)
            #expect(String(buffer: list.body).contains(#""key":"reminder.daily""#))
            let ok = try await client.execute(uri: "/api/v1/parent/settings", method: .post, headers: browser.jsonHeaders(),
                                              body: ByteBuffer(string: #"{"sound.volume":"60","reminder.daily":"off"}"#))
            #expect(ok.status == .ok)
            #expect(try db.settings.current().volumePercent == 60 && db.routines.named("daily")?.reminder == .off)
            let bad = try await client.execute(uri: "/api/v1/parent/settings", method: .post, headers: browser.jsonHeaders(),
                                               body: ByteBuffer(string: #"{"sound.volume":"61","colour":"red"}"#))
            #expect(bad.status == .unprocessableContent && String(buffer: bad.body).contains(#""field":"colour""#))
            #expect(try db.settings.current().volumePercent == 60)
            let notTexts = try await client.execute(uri: "/api/v1/parent/settings", method: .post, headers: browser.jsonHeaders(), body: ByteBuffer(string: #"{"sound.volume":61}"#))
            #expect(notTexts.status == .badRequest)
            let signedOut = try await client.execute(uri: "/api/v1/parent/settings", method: .get)
            #expect(signedOut.status == .unauthorized)
        }
    }
}
