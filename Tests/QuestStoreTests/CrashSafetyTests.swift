import Foundation
import TestSupport
import GRDB
import Testing
@testable import QuestStore

@Suite("Crash safety")
struct CrashSafetyTests {
    /// SplitMix64: random kill moments that can be replayed from the printed seed.
    struct SeededRandom: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("200 SIGKILLs at random moments: integrity ok, every reported estimation present")
    func killTheWriter() throws {
        let dir = temporaryDirectory()
        let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
        let writer = productPath("StoreCrashWriter")
        #expect(FileManager.default.isExecutableFile(atPath: writer), "\(writer) is built")
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        print("crash-safety seed \(seed)")
        var random = SeededRandom(state: seed)
        var committed = Set<String>()
        var killedWhileWriting = 0
        // 200 rounds; on a busy machine a writer gets less done before its kill, so rounds go
        // on (up to 1200) until the run has really exercised writes, and after round 200 a
        // writer may live up to 150 ms (a loaded machine's writer needs longer to reach its
        // write loop). What is asserted below is the same either way.
        var round = 0
        while round < 200 || ((committed.count <= 1_000 || killedWhileWriting <= 40) && round < 1_200) {
            defer { round += 1 }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: writer)
            process.arguments = [path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Anywhere from "still opening the database" to "deep in the write loop".
            usleep(UInt32.random(in: 1_000...(round < 200 ? 60_000 : 150_000), using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): the writer died by itself")
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // Only whole lines were reported; a line cut by the kill was not.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let reported = lines.compactMap { $0.hasPrefix("committed ") ? String($0.dropFirst("committed ".count)) : nil }
            if !reported.isEmpty { killedWhileWriting += 1 }
            committed.formUnion(reported)

            let db = try QuestDatabase(path: path)
            #expect(try db.integrityCheck() == "ok", "round \(round), seed \(seed)")
            let stored = Set(try db.pool.read { db in try UUID.fetchAll(db, sql: "SELECT id FROM estimation") }.map(\.uuidString))
            let lost = committed.subtracting(stored)
            #expect(lost.isEmpty, "round \(round), seed \(seed): \(lost.count) committed estimations lost")
            try db.close()
            if !lost.isEmpty { break }
        }
        // How many kills land mid-write depends on how busy the machine is; a good share must.
        #expect(killedWhileWriting > 40, "kills should land while plays are being written")
        #expect(committed.count > 1_000)
    }
}
