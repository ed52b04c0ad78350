import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestStore
import TestSupport
import Testing
@testable import WebApp

/// #32 item 6: the player owns her switches and her quests (`/me`).
@Suite("The player's own page: her switches and her quests")
struct MePageTests {
    static let mine = Routine(
        id: UUID(), name: "Desk Reset", displayName: "Desk Reset", activeDays: Array(1...7), createdBy: .player,
        tasks: [RoutineTask(id: UUID(), name: "Clear", displayName: "Clear"), RoutineTask(id: UUID(), name: "Wipe", displayName: "Wipe")])

    @Test("her switches: shown with their state, switched with the page's token, refused when a parent locked one")
    func switches() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            var (status, page) = try await browser.get(client, "/me")
            #expect(status == .ok)
            #expect(page.contains("Turn sounds off") && page.contains("Turn hints off") && page.contains("Turn reminders off"))
            let forged = try await browser.post(client, "/me/switches", [("switch", "sound.mute"), ("on", "true")], csrf: "00")
            #expect(forged.status == .forbidden)
            #expect(try db.settings.current().soundEnabled)

            let muted = try await browser.post(client, "/me/switches", [("switch", "sound.mute"), ("on", "true")])
            #expect(muted.status == .seeOther)
            #expect(try db.settings.current().soundEnabled == false)
            (_, page) = try await browser.get(client, try #require(muted.headers[.location]))
            #expect(page.contains("Sounds: saved.") && page.contains("Turn sounds on"))
            _ = try await browser.post(client, "/me/switches", [("switch", "reminders"), ("on", "false")])
            #expect(try db.settings.current().game.remindersEnabled == false)

            try db.settings.update { $0.game.lockedSwitches = [.hints] }
            (_, page) = try await browser.get(client, "/me")
            #expect(page.contains("Locked by a parent") && !page.contains("Turn hints off"))
            let refused = try await browser.post(client, "/me/switches", [("switch", "hints"), ("on", "false")])
            #expect(refused.status == .conflict)
            #expect(String(buffer: refused.body).contains("Hints before a guess is locked by a parent."))
            #expect(try db.settings.current().game.hintsEnabled)

            let bad = try await browser.post(client, "/me/switches", [("switch", "streak.policy"), ("on", "true")])
            #expect(bad.status == .badRequest, "only her own switches")
        }
    }

    @Test("her quests: changed with their history kept (same ids), set aside with the plays kept; a parent's routine is not hers")
    func quests() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay, Self.mine])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            var (_, page) = try await browser.get(client, "/me")
            #expect(page.contains("<strong>Desk Reset</strong>") && !page.contains("<strong>Daily Quest</strong>"))
            let editPath = "/quests/\(Self.mine.id.uuidString)/edit"
            (_, page) = try await browser.get(client, editPath)
            #expect(page.contains("Change your quest") && page.contains("value=\"Wipe\""))
            let saved = try await browser.post(client, "/quests/\(Self.mine.id.uuidString)", [
                ("name", "Desk Reset"), ("day", "1"), ("day", "3"), ("task", "Wipe"), ("task", "Clear"), ("task", "Lamp"), ("action", "save"),
            ])
            #expect(saved.status == .seeOther, "\(String(buffer: saved.body))")
            let changed = try #require(try db.routines.withID(Self.mine.id))
            #expect(changed.tasks.map(\.displayName) == ["Wipe", "Clear", "Lamp"])
            #expect(changed.tasks[0].id == Self.mine.tasks[1].id && changed.tasks[1].id == Self.mine.tasks[0].id, "each step keeps its history")
            #expect(changed.activeDays == [1, 3] && changed.createdBy == .player)

            let parents = try await browser.get(client, "/quests/\(everyDay.id.uuidString)/edit")
            #expect(parents.0 == .notFound)
            let notHers = try await browser.post(client, "/quests/\(everyDay.id.uuidString)/remove", [])
            #expect(notHers.status == .notFound)
            #expect(try db.routines.withID(everyDay.id)?.isActive == true)

            let removed = try await browser.post(client, "/quests/\(Self.mine.id.uuidString)/remove", [])
            #expect(removed.status == .seeOther)
            #expect(try db.routines.withID(Self.mine.id)?.isActive == false, "set aside, not deleted")
            (_, page) = try await browser.get(client, try #require(removed.headers[.location]))
            #expect(page.contains("“Desk Reset” is set aside."))
            #expect(!page.contains("<strong>Desk Reset</strong>"))
            let gone = try await browser.get(client, editPath)
            #expect(gone.0 == .notFound)
        }
    }

    @Test("a quest changed meanwhile elsewhere is not overwritten: the page says so and keeps her words")
    func changedMeanwhile() async throws {
        let (args, db) = try TestArguments.fresh(routines: [Self.mine])
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (_, page) = try await browser.get(client, "/quests/\(Self.mine.id.uuidString)/edit")
            let revision = try #require(page.firstMatch(of: #/name="revision" value="([0-9a-f]+)"/#)).1
            var other = Self.mine
            other.activeDays = [2]
            try db.routines.save(other)
            let response = try await browser.post(client, "/quests/\(Self.mine.id.uuidString)", [
                ("revision", String(revision)), ("name", "Desk Reset"), ("day", "5"), ("task", "Only"), ("action", "save"),
            ])
            #expect(response.status == .unprocessableContent)
            #expect(String(buffer: response.body).contains("Not saved: this routine was changed meanwhile"))
            #expect(try db.routines.withID(Self.mine.id)?.activeDays == [2])
        }
    }
}
