import BoxProtocol
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import QuestCore
import QuestStore
import StoreFixtures
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

    static func fresh(routines: [Routine] = []) throws -> (TestArguments, QuestDatabase) {
        let dir = NSTemporaryDirectory() + "questbox-web-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = try QuestDatabase(path: dir + "/questbox.sqlite")
        for r in routines { try db.saveRoutine(r) }
        return (TestArguments(databasePath: dir + "/questbox.sqlite", socketPath: dir + "/questbox.sock"), db)
    }
}

let everyDay = Routine(
    id: UUID(), name: "daily", displayName: "Daily Quest", activeDays: Array(1...7),
    tasks: [RoutineTask(id: UUID(), name: "one", displayName: "One")])

@Suite("Web app")
struct WebAppTests {
    @Test("the player's home lists today's quests, level and XP from the store", arguments: [TestingSetup.router, .live])
    func home(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try recordQuest(db, at: Date().addingTimeInterval(-3600), durations: [(60, 61)], routine: everyDay)
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
            }
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

    @Test("no store at the path: one line naming it, nothing created")
    func missingStore() async throws {
        var (args, _) = try TestArguments.fresh()
        args.databasePath += ".missing"
        await #expect {
            _ = try await buildApplication(args)
        } throws: { error in
            "\(error)".contains(args.databasePath) && "\(error)".contains("no box store")
        }
        #expect(!FileManager.default.fileExists(atPath: args.databasePath))
    }
}
