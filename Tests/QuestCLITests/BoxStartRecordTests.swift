import Foundation
import GRDB
@testable import QuestStore
import TestSupport
import Testing

/// #48: `questbox run` writes down how its start went, so the pages can say it while its
/// socket is silent (the box exited on every start and the page said it was starting).
@Suite("#48: the box writes down its start")
struct BoxStartRecordTests {
    @Test("#48: a board whose GPIO chip is absent: run exits 1 with its one line, and the store says failed, with the board and that line")
    func failedStart() throws {
        let dir = temporaryDirectory()
        let boards = dir + "/boards", data = dir + "/data"
        try FileManager.default.createDirectory(atPath: boards, withIntermediateDirectories: true)
        let profile = try String(contentsOfFile: "\(packageRoot)/Boards/questbox-sim.yaml", encoding: .utf8)
            .replacingOccurrences(of: "name: questbox-sim", with: "name: absent-chip")
            .replacingOccurrences(of: "chip: questbox", with: "chip: questbox-absent-test-chip")
        try profile.write(toFile: boards + "/absent-chip.yaml", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["QUESTBOX_BOARDS"] = boards
        environment["QUESTBOX_BOARD"] = nil
        let questbox = productPath("questbox")
        #expect(try runProcess(questbox, ["settings", "set", "board", "absent-chip", "--data", data], environment: environment).status == 0)
        let run = try runProcess(questbox, ["run", "--data", data, "--sound", "null"], environment: environment)
        #expect(run.status == 1, "\(run)")
        let db = try QuestDatabase(path: data + "/questbox.sqlite", access: .readOnly)
        let record = try #require(try db.boxStart())
        #expect(record.state == .failed && record.board == "absent-chip")
        let reason = record.reason ?? ""
        #expect(reason.contains("BTN_LOCK not found") && reason.contains("questbox doctor --board absent-chip"), "\(reason)")
        #expect(run.stderr.contains(reason), "the same line as the program said")
        #expect(abs(record.at.timeIntervalSinceNow) < 60)
    }

    @Test("#48: what the box writes down is kept on one line, cut to the store's size, and read back; a row breaking its rules reads as nothing")
    func storeRoundTrip() throws {
        let (db, _) = try freshDatabase()
        #expect(try db.boxStart() == nil)
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        try db.recordBoxStart(BoxStartRecord(state: .failed, board: "rpi4", reason: "line one\nline two \u{1B}[31m" + String(repeating: "x", count: 2_000), at: at))
        let record = try #require(try db.boxStart())
        #expect(record.state == .failed && record.board == "rpi4" && record.at == at)
        #expect((record.reason ?? "").utf8.count <= 512 && !(record.reason ?? "").contains("\n") && !(record.reason ?? "").contains("\u{1B}"))
        try db.recordBoxStart(BoxStartRecord(state: .running, board: "rpi4", at: at))
        #expect(try db.boxStart()?.state == .running && db.boxStart()?.reason == nil)
        try db.pool.write { try $0.execute(sql: "UPDATE boxStart SET state = 'exploded'") }
        #expect(try db.boxStart() == nil)
    }
}
