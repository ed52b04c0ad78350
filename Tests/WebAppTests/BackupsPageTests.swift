import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import QuestCore
import QuestStore
import TestSupport
import Testing
@testable import WebApp

/// A browser's file upload: one `backup` part, as Chromium sends it.
func multipartUpload(_ content: Data, fileName: String, boundary: String = "----QuestboxTestBoundary7MA4YWxkTrZu0gW") -> (HTTPFields, ByteBuffer) {
    var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"backup\"; filename=\"\(fileName)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
    body += content
    body += Data("\r\n--\(boundary)--\r\n".utf8)
    var headers = HTTPFields()
    headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
    return (headers, ByteBuffer(bytes: body))
}

@Suite("The parent's backups page (BACK-1)")
struct BackupsPageTests {
    func upload(_ client: some TestClientProtocol, _ browser: inout BrowserSession, _ content: Data, name: String, csrf: String? = nil) async throws -> TestResponse {
        var (headers, body) = multipartUpload(content, fileName: name)
        headers.append(contentsOf: browser.cookieHeader)
        let token = csrf ?? browser.csrf
        let response = try await client.execute(uri: "/parent/backups/restore?csrf=\(token)", method: .post, headers: headers, body: body)
        browser.keep(response)
        return response
    }

    @Test("#48: one clock format, the box's locale's: a twelve-hour box says 7:58 AM on every page that tells a time")
    func twelveHourBox() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = .current
        let now = Date()
        // A daily backup at 07:58 today (or yesterday's, before 07:58): the page says its time.
        let today = try #require(cal.date(bySettingHour: 7, minute: 58, second: 0, of: now))
        let made = today <= now ? today : today.addingTimeInterval(-86_400)
        try db.backups.makeIfDue(now: made)
        try db.settings.update { $0.game.reminderTime = ClockTime(hour: 19, minute: 5)! }
        let services = try await makeServices(args, logger: Logger(label: "test"), clockStyle: .twelveHour)
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, backups) = try await browser.get(client, "/parent/backups")
            #expect(backups.contains("7:58 AM") && !backups.contains("07:58"), "\(backups)")
            let (_, routine) = try await browser.get(client, "/parent/routines/new")
            #expect(routine.contains("At the box's reminder time (7:05 PM)"), "\(routine)")
            #expect(routine.contains("type=\"time\""), "a form's value stays HH:MM for the browser's own time field")
        }
    }

    @Test("BACK-1: the backups are listed with the daily backup's status; one made now is listed and downloads as the SQLite file, nothing else does")
    func listMakeDownload() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (status, empty) = try await browser.get(client, "/parent/backups")
            #expect(status == .ok && empty.contains("No backups yet.") && empty.contains("No daily backup yet"))
            let made = try await browser.post(client, "/parent/backups", [])
            #expect(made.status == .seeOther)
            let backups = try db.backups.all()
            #expect(backups.count == 1 && backups[0].kind == .manual)
            let (_, page) = try await browser.get(client, try #require(made.headers[.location]))
            #expect(page.contains("Backup \(backups[0].fileName) is made.") && page.contains("made by hand"))
            try db.backups.makeIfDue(now: Date())
            let (_, daily) = try await browser.get(client, "/parent/backups")
            #expect(daily.contains("The daily backup ran today at "))
            // #48: one clock format, the box's own: "today 07:30", never "Nov 29, 2026 at 7:30 AM".
            #expect(daily.contains(">today ") && !daily.contains(" AM") && !daily.contains(" PM"), "\(daily)")

            let download = try await client.execute(uri: "/parent/backups/\(backups[0].fileName)", method: .get, headers: browser.cookieHeader)
            #expect(download.status == .ok)
            #expect(download.headers[.contentDisposition] == "attachment; filename=\"\(backups[0].fileName)\"")
            #expect(Data(buffer: download.body) == FileManager.default.contents(atPath: backups[0].path))
            #expect(Data(buffer: download.body).starts(with: Data("SQLite format 3\0".utf8)))
            // A download is a copy off the box: BACK-1's weekly reminder counts from it.
            #expect(try db.backups.reminderDue(now: Date().addingTimeInterval(8 * 86_400))?.lastOffTheBox != nil)
            for path in ["/parent/backups/..%2Fquestbox.sqlite", "/parent/backups/%2E%2E", "/parent/backups/questbox.sqlite", "/parent/backups/.restore-x.sqlite"] {
                let response = try await client.execute(uri: path, method: .get, headers: browser.cookieHeader)
                #expect(response.status == .notFound, "\(path)")
            }
            // Signed out: nothing is listed or downloaded.
            let stranger = try await client.execute(uri: "/parent/backups/\(backups[0].fileName)", method: .get)
            #expect(stranger.status == .seeOther)
        }
    }

    @Test("BACK-1: restoring an uploaded backup replaces the data (the data it replaced is backed up first) and the box reloads", arguments: [TestingSetup.router, .live])
    func restore(setup: TestingSetup) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        try recordQuest(db, at: Date().addingTimeInterval(-2 * 86_400), durations: [(60, 70)], routine: everyDay)
        let saved = try db.backups.make(to: NSTemporaryDirectory() + "questbox-upload-\(UUID().uuidString).sqlite", kind: .manual, now: Date())
        try recordQuest(db, at: Date().addingTimeInterval(-86_400), durations: [(60, 80)], routine: everyDay)
        #expect(try db.plays.estimations().count == 2)
        let box = try FakeBox(path: args.socketPath)
        let app = try await buildApplication(args)
        try await app.test(setup) { client in
            var browser = try await signedInParent(client)
            _ = try await browser.get(client, "/parent/backups")
            let content = try #require(FileManager.default.contents(atPath: saved.path))
            // #31: while a quest is in play the box refuses to hold its buttons: nothing is restored.
            box.refusals.withLock { $0["button-check"] = "button-check: a quest is running (active); the check waits until it ends" }
            let busy = try await upload(client, &browser, content, name: "questbox-monday.sqlite")
            #expect(busy.status == .conflict && String(buffer: busy.body).contains("Not restored: a quest is being played on the box; restore once it is over (nothing was changed)."))
            #expect(try db.plays.estimations().count == 2 && !box.commands.contains("reload"))
            box.refusals.withLock { $0["button-check"] = nil }
            _ = try await browser.get(client, "/parent/backups")
            let response = try await upload(client, &browser, content, name: "C:\\Users\\me\\questbox-monday.sqlite")
            #expect(response.status == .seeOther, "\(String(buffer: response.body))")
            #expect(try db.plays.estimations().count == 1)
            #expect(try db.backups.all().contains { $0.kind == .beforeRestore })
            #expect(box.commands.contains("reload"))
            #expect(box.commands.filter { $0 == "button-check" }.count == 3, "held for the restore, let go after: \(box.commands)")
            let (_, page) = try await browser.get(client, try #require(response.headers[.location]))
            #expect(page.contains("Restored from the uploaded backup; the data it replaced is saved as "))
            // #31: a file named in the address shows only if it is one of the backups.
            let (_, forged) = try await browser.get(client, "/parent/backups?done=backup-made&file=Enter%20your%20PIN%20at%20evil.example")
            #expect(!forged.contains("evil.example") && !forged.contains("class=\"done\""))
            // No upload file is left behind in the backups folder.
            let left = try FileManager.default.contentsOfDirectory(atPath: db.backups.directory).filter { $0.hasPrefix(".") }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("a refused upload changes nothing and says why beside the field, in the CLI's words", arguments: [
        (Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }), "noise.sqlite", "noise.sqlite: not a TimeQuest database"),
        (Data("{\"name\": \"not a backup\"}".utf8), "routine.json", "routine.json: not a TimeQuest database"),
        (Data(), "", "Choose a backup file to restore."),
        (Data(), "empty.sqlite", "empty.sqlite: the file is empty"),
    ])
    func refused(content: Data, name: String, message: String) async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        try recordQuest(db, at: Date().addingTimeInterval(-86_400), durations: [(60, 70)], routine: everyDay)
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            _ = try await browser.get(client, "/parent/backups")
            let response = try await upload(client, &browser, content, name: name)
            #expect(response.status == .unprocessableContent)
            let page = String(buffer: response.body)
            let shown = try #require(page.firstMatch(of: /id="backup-error" role="alert">([^<]*)</)?.1)
            #expect(shown.hasPrefix(message), "\(shown)")
            #expect(!shown.contains("/"), "no path in \(shown)")
            #expect(try db.plays.estimations().count == 1)
            #expect(try db.backups.all().isEmpty, "nothing was backed up or left behind")
        }
    }

    @Test("restore: a forged token, another type, an oversized or a broken upload are refused before anything is read")
    func hostileUploads() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            _ = try await browser.get(client, "/parent/backups")
            #expect(try await upload(client, &browser, Data("x".utf8), name: "a.sqlite", csrf: "00").status == .forbidden)
            var headers = browser.cookieHeader
            headers[.contentType] = "application/x-www-form-urlencoded"
            let form = try await client.execute(uri: "/parent/backups/restore?csrf=\(browser.csrf)", method: .post, headers: headers, body: ByteBuffer(string: "backup=x"))
            #expect(form.status == .unsupportedMediaType)
            // Past the cap while streaming: cut off, and the part written so far removed.
            var (big, bigBody) = multipartUpload(Data(count: BackupsController.maximumUploadBytes + 200_000), fileName: "big.sqlite")
            big.append(contentsOf: browser.cookieHeader)
            let tooLarge = try await client.execute(uri: "/parent/backups/restore?csrf=\(browser.csrf)", method: .post, headers: big, body: bigBody)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(String(buffer: tooLarge.body).contains("A backup to restore may be at most 64 MiB."))
            bigBody = ByteBuffer()
            var (cut, body) = multipartUpload(Data("abc".utf8), fileName: "cut.sqlite")
            cut.append(contentsOf: browser.cookieHeader)
            let truncated = body.getSlice(at: 0, length: body.readableBytes - 30) ?? body
            let broken = try await client.execute(uri: "/parent/backups/restore?csrf=\(browser.csrf)", method: .post, headers: cut, body: truncated)
            #expect(broken.status == .badRequest)
            #expect(try db.backups.all().isEmpty)
            let left = (try? FileManager.default.contentsOfDirectory(atPath: db.backups.directory)) ?? []
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("BACK-1: the page says what each stick got and restores a copy from a stick in the box, chosen by the listed stick and name only")
    func restoreFromStick() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        try recordQuest(db, at: Date().addingTimeInterval(-2 * 86_400), durations: [(60, 70)], routine: everyDay)
        try db.backups.make(kind: .manual, now: Date())
        let mount = NSTemporaryDirectory() + "questbox-tests-stick-\(UUID().uuidString)/SCHOOLBAG"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let stick = RemovableVolume(mountPoint: mount, device: "/dev/sda1", fileSystem: "vfat", readOnly: false, mountID: 41)
        guard case .copied(let copy) = try db.backups.copyNewest(to: stick, now: Date()) else { Issue.record("not copied"); return }
        _ = try? db.backups.copyNewest(to: RemovableVolume(mountPoint: mount + "-full", device: "/dev/sdb1", fileSystem: "vfat", readOnly: true, mountID: 42), now: Date())
        try recordQuest(db, at: Date().addingTimeInterval(-86_400), durations: [(60, 80)], routine: everyDay)
        var services = try await makeServices(args, logger: Logger(label: "test"))
        services.sticks = { [stick] }
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, page) = try await browser.get(client, "/parent/backups")
            #expect(page.contains("<strong>SCHOOLBAG</strong>: last copy "), "\(page)")
            #expect(page.contains("<strong>SCHOOLBAG-full</strong>: no copy yet; today ") && page.contains("read-only"))
            #expect(page.contains("In the box now: SCHOOLBAG") && page.contains("name=\"file\" value=\"\(copy.fileName)\""))
            for (stickID, file) in [("41", "../questbox.sqlite"), ("41", "questbox.sqlite"), ("7", copy.fileName), ("", copy.fileName)] {
                let refused = try await browser.post(client, "/parent/backups/restore-stick", [("stick", stickID), ("file", file)])
                #expect(refused.status == .unprocessableContent, "\(stickID) \(file)")
                #expect(String(buffer: refused.body).contains("not on a stick in the box any more"))
            }
            #expect(try db.plays.estimations().count == 2, "nothing restored by a refused form")
            let restored = try await browser.post(client, "/parent/backups/restore-stick", [("stick", "41"), ("file", copy.fileName)])
            #expect(restored.status == .seeOther, "\(String(buffer: restored.body))")
            #expect(try db.plays.estimations().count == 1, "the stick's copy is the data now")
            #expect(try db.backups.all().contains { $0.kind == .beforeRestore })
        }
    }
}
