import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuestStore
import Testing
@testable import WebApp

@Suite("The parent's health page (questbox doctor)")
struct HealthPageTests {
    @Test("/parent/health shows the real `questbox doctor --json` checks of this store; the API gives the same report")
    func doctorChecks() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.setPIN("2468")
        try db.backup(kind: .manual, now: Date())
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (status, page) = try await browser.get(client, "/parent/health")
            #expect(status == .ok)
            #expect(page.contains("integrity ok, schema"), "\(page)")
            #expect(page.contains("totals from the history: 0 quests, 0 XP"))
            #expect(page.contains("last backup "))
            #expect(page.contains("class=\"ok\"") && page.contains("health-verdict"))
            let api = try await client.execute(uri: "/api/v1/parent/health", method: .get, headers: browser.cookieHeader)
            let report = try JSONDecoder().decode(DoctorRunner.Report.self, from: Data(buffer: api.body))
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
}
