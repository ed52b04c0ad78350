import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import WebApp

/// #31: the home and stats are read at most once per 2 s; only a change this app made to
/// them empties that, never a refused or unrelated post.
@Suite("The page cache (#31)")
struct PageCacheTests {
    @Test("refused posts (no token, bad token, a wrong PIN, an empty claim form) keep the cache; a saved quest empties it")
    func onlySuccessfulChanges() async throws {
        let (args, _) = try TestArguments.fresh(routines: [everyDay])
        let services = try await makeServices(args, logger: Logger(label: "test"))
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            var browser = BrowserSession()
            _ = try await browser.get(client, "/stats")
            let before = services.reads.recentStats.forgotten
            _ = try await client.execute(uri: "/quests", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "name=x"))
            _ = try await browser.post(client, "/quests", [("name", "x")], csrf: "0123")
            _ = try await client.execute(uri: "/api/v1/quests", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}"))
            _ = try await browser.post(client, "/parent/sign-in", [("pin", "0000")])
            _ = try await browser.post(client, "/parent/settings", [("hints", "false")])   // not signed in: to /parent
            #expect(services.reads.recentStats.forgotten == before, "a refused post emptied the cache")
            _ = try await browser.get(client, "/quests/new?template=Homework%20Session")
            let saved = try await browser.post(client, "/quests", [
                ("name", "Homework Session"), ("day", "2"), ("day", "4"), ("task", "Get materials"), ("task", "Work time"), ("action", "save"),
            ])
            #expect(saved.status == .seeOther)
            #expect(services.reads.recentStats.forgotten > before, "a saved quest did not show at once")
        }
        #expect(PageChanges.changes(.post, status: .seeOther))
        #expect(!PageChanges.changes(.post, status: .forbidden))
        #expect(!PageChanges.changes(.get, status: .ok))
    }
}
