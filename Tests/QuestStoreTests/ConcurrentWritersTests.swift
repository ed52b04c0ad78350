import Foundation
import TestSupport
import Synchronization
import Testing
@testable import QuestStore

/// The store is the one truth (SPEC §4, issue #11): several processes writing plays into one
/// data directory at once end with exactly the totals of the same plays written one by one.
@Suite("concurrent writers: totals equal a sequential replay")
struct ConcurrentWritersTests {
    let questbox = productPath("questbox")

    static let routine = """
        {"name": "Every Day", "displayName": "Daily Quest", "activeDays": [1,2,3,4,5,6,7], "tasks": [
         {"name": "Brush teeth", "displayName": "Tooth Time"}, {"name": "Get dressed", "displayName": "Get Dressed"},
         {"name": "Pack bag", "displayName": "Pack Bag"}]}
        """

    /// One play: its start time and how long each task took (different plays, different results).
    struct Play {
        var now: String
        var takesMs: [Int64]
    }

    func prepare(_ dir: String, name: String) throws -> String {
        let data = (dir as NSString).appendingPathComponent(name)
        let routine = (dir as NSString).appendingPathComponent("routine.json")
        if !FileManager.default.fileExists(atPath: routine) {
            #expect(FileManager.default.createFile(atPath: routine, contents: Data(Self.routine.utf8)))
        }
        let imported = try runProcess(questbox, ["routine", "import", routine, "--data", data])
        #expect(imported.status == 0, "\(imported.stderr)")
        try skipFirstQuestIntro(data: data)
        return data
    }

    func eventsFile(_ dir: String, _ play: Play, index: Int) -> String {
        let path = (dir as NSString).appendingPathComponent("play-\(index).events")
        let script = EventScripts.quest(play.takesMs.map { (ups: 0, takesMs: $0) })
        #expect(FileManager.default.createFile(atPath: path, contents: Data(script.utf8)))
        return path
    }

    func stats(_ data: String) throws -> String {
        let run = try runProcess(questbox, ["stats", "--json", "--data", data])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test("4 processes × 5 plays at once: every play stored once, stats equal to the same 20 plays written in order")
    func fourWriters() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writers = 4, playsEach = 5
        // Days in 2025 (no weekly reflection relative to today): writer w plays on days w, w+4,
        // w+8 … plus writer 0 plays twice on some days; gaps and same-day plays both occur.
        var plays: [[Play]] = []
        for w in 0..<writers {
            plays.append((0..<playsEach).map { m in
                let day = 3 + (w == 3 ? m * 4 : w + m * 4)  // writer 3 shares days with writer 0
                let hour = 7 + w * 2
                return Play(
                    now: String(format: "2025-03-%02dT%02d:00:00Z", day, hour),
                    takesMs: [Int64(100_000 + w * 7_000 + m * 3_000), Int64(60_000 + m * 20_000), Int64(200_000 - w * 30_000)])
            })
        }
        // The calibration quests (CAL-1) first, one by one, in both directories alike.
        let calibration = (0..<3).map { Play(now: "2025-02-0\($0 + 1)T07:00:00Z", takesMs: [120_000, 90_000, 150_000]) }
        let concurrent = try prepare(dir, name: "concurrent"), sequential = try prepare(dir, name: "sequential")
        var files: [String: String] = [:]
        for (i, play) in (calibration + plays.flatMap { $0 }).enumerated() { files[play.now] = eventsFile(dir, play, index: i) }
        for data in [concurrent, sequential] {
            for play in calibration {
                let run = try runProcess(questbox, ["simulate", "--events", files[play.now]!, "--now", play.now, "--data", data])
                #expect(run.status == 0, "\(run.stderr)")
            }
        }

        // Each writer is its own shell running its plays one after another, all writers at once.
        var processes: [Process] = []
        for writer in plays {
            let commands = writer.map { play in
                "'\(questbox)' simulate --events '\(files[play.now]!)' --now \(play.now) --data '\(concurrent)' >/dev/null || exit 1"
            }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", commands.joined(separator: "\n")]
            let err = Pipe()
            p.standardError = err
            try p.run()
            processes.append(p)
        }
        for p in processes {
            p.waitUntilExit()
            let stderr = String(decoding: (p.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(p.terminationStatus == 0, "\(stderr)")
            #expect(!stderr.contains("locked"))
        }

        // The same plays in time order, one process at a time.
        for play in plays.flatMap({ $0 }).sorted(by: { $0.now < $1.now }) {
            let run = try runProcess(questbox, ["simulate", "--events", files[play.now]!, "--now", play.now, "--data", sequential])
            #expect(run.status == 0, "\(run.stderr)")
        }

        let history = try runProcess(questbox, ["history", "--json", "--data", concurrent])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 3 * (3 + writers * playsEach))
        let concurrentStats = try stats(concurrent), sequentialStats = try stats(sequential)
        #expect(concurrentStats == sequentialStats)
        let s = try #require(try JSONSerialization.jsonObject(with: Data(concurrentStats.utf8)) as? [String: Any])
        #expect(s["sessionsCompleted"] as? Int == 3 + writers * playsEach)
        #expect((s["totalXP"] as? Int ?? 0) > 0)
    }
    @Test("two programs changing different settings at once each keep their change (no write-back of an earlier read)")
    func settingsFromTwoConnections() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
        let first = try QuestDatabase(path: path), second = try QuestDatabase(path: path)
        let rounds = 100
        let failures = Mutex<[String]>([])
        // One connection walks the volume up, the other flips hints, interleaved on two threads;
        // each setting has one writer, so after each write its value must be the one written.
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for v in 0..<rounds {
                do {
                    try first.settings.update { $0.volumePercent = v }
                    let now = try first.settings.current().volumePercent
                    if now != v { failures.withLock { $0.append("volume \(v) rolled back to \(now)") } }
                } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        DispatchQueue.global().async(group: group) {
            for i in 0..<rounds {
                do {
                    try second.settings.update { $0.game.hintsEnabled = i % 2 == 1 }
                    let now = try second.settings.current().game.hintsEnabled
                    if now != (i % 2 == 1) { failures.withLock { $0.append("hints \(i % 2 == 1) rolled back") } }
                } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try first.settings.current().volumePercent == rounds - 1)

        // The decisive case, made certain: another program changes a setting while this one is
        // in the middle of its change. It waits for this transaction and then applies its own
        // change to the row as this one left it; neither change is lost.
        let other = DispatchGroup()
        try first.settings.update { s in
            DispatchQueue.global().async(group: other) {
                do { try second.settings.update { $0.game.streakPolicy = .joker } } catch { failures.withLock { $0.append("\(error)") } }
            }
            Thread.sleep(forTimeInterval: 0.2)
            s.volumePercent = 7
        }
        other.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let settings = try first.settings.current()
        #expect(settings.volumePercent == 7)
        #expect(settings.game.streakPolicy == .joker)
        #expect(settings.game.hintsEnabled == ((rounds - 1) % 2 == 1))
    }
}
