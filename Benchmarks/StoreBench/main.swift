// Benchmark for the store: open a database holding five years of plays (≈ 29,000
// estimations), load what stats, insights and the weekly reflection need, and compute them.
// Prints the time (target ≤ 50 ms) and the database's size. Run in release mode:
//
//   swift run -c release store-bench [--iterations N] [--keep DIR]
import Foundation
import HistoryFixtures
import QuestCore
import QuestStore

let arguments = CommandLine.arguments
let iterations = arguments.firstIndex(of: "--iterations").flatMap { arguments.dropFirst($0 + 1).first.flatMap(Int.init) } ?? 20
let keep = arguments.firstIndex(of: "--keep").flatMap { arguments.dropFirst($0 + 1).first }
let dir = keep ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("store-bench-\(UUID().uuidString.prefix(8))")
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
defer { if keep == nil { try? FileManager.default.removeItem(atPath: dir) } }

let history = FiveYears()
let clock = SuspendingClock()
if !FileManager.default.fileExists(atPath: path) {
    let db = try QuestDatabase(path: path)
    let built = clock.measure {
        do {
            try db.plays.recordHistory(sessions: history.sessions, estimations: history.estimations, wallClockTrusted: true)
        } catch {
            FileHandle.standardError.write(Data("store-bench: \(error)\n".utf8))
            exit(1)
        }
    }
    try db.close()
    print(String(format: "built the database in %.1f s", Timing.milliseconds(built) / 1000))
}

struct Stats {
    var insights: Int
    var reflection: WeeklyReflection
    var past: Int
    var bests: Int
    var streak: JokerStreakResult
}

/// What opening the stats view costs from cold: open, load, compute.
func openLoadCompute() throws -> (open: Double, load: Double, compute: Double, stats: Stats) {
    var db: QuestDatabase?
    let open = Timing.milliseconds(try clock.measure { db = try QuestDatabase(path: path) })
    guard let db else { exit(1) }
    var snapshots: [EstimationSnapshot] = [], sessions: [GameSession] = [], plays: [QuestPlay] = []
    let load = Timing.milliseconds(try clock.measure {
        snapshots = try db.plays.snapshots()
        sessions = try db.plays.sessions()
        plays = QuestPlay.completedPlays(sessions: sessions, snapshots: snapshots)
        _ = try db.profile(sessions: sessions, plays: plays, calendar: history.calendar)
        _ = try db.settings.current()
    })
    var stats: Stats?
    let compute = Timing.milliseconds(clock.measure {
        let w = StatsWorkload.run(snapshots: snapshots, sessions: sessions, calendar: history.calendar, end: history.end)
        let streak = JokerStreakCalculator.evaluate(plays: plays, today: history.end, calendar: history.calendar)
        stats = Stats(insights: w.insights.count, reflection: w.reflection, past: w.history.count, bests: w.bests.count, streak: streak)
    })
    try db.close()
    return (open, load, compute, stats!)
}

var opens: [Double] = [], loads: [Double] = [], computes: [Double] = [], totals: [Double] = []
var last: Stats?
for _ in 0..<max(1, iterations) {
    let r = try openLoadCompute()
    opens.append(r.open)
    loads.append(r.load)
    computes.append(r.compute)
    totals.append(r.open + r.load + r.compute)
    last = r.stats
}
let bytes = ["", "-wal", "-shm"].reduce(0) { sum, suffix in
    sum + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
}

#if DEBUG
print("warning: debug build — run with `swift run -c release store-bench` for real figures")
#endif
print("store-bench: \(history.estimations.count) estimations, \(history.sessions.count) sessions over \(history.days) days")
print(String(format: "database size %.1f MiB (%d bytes)", Double(bytes) / 1_048_576, bytes))
print("open + load + compute   " + Timing.summary(totals))
print("  open (and migrate)    " + Timing.summary(opens))
print("  load                  " + Timing.summary(loads))
print("  compute               " + Timing.summary(computes))
print("target ≤ 50 ms: \(Timing.median(totals) <= 50 ? "met" : "NOT met")")
if let s = last {
    print("checks: \(s.insights) task insights, \(s.past) past reflections, \(s.bests) personal bests, joker streak \(s.streak.currentStreak), last week \(s.reflection.weekIdentifier): \(s.reflection.questsCompleted) quests")
}

// Where the load time goes (median of the runs).
if arguments.contains("--breakdown") {
    let db = try QuestDatabase(path: path)
    let parts: [(String, () throws -> Void)] = [
        ("snapshots", { _ = try db.plays.snapshots() }),
        ("sessions", { _ = try db.plays.sessions() }),
        ("quest plays (SQL)", { _ = try db.plays.questPlays() }),
        ("profile + settings", { _ = try db.profile(); _ = try db.settings.current() }),
    ]
    for (label, run) in parts {
        let t = try (0..<10).map { _ in Timing.milliseconds(try clock.measure(run)) }
        print("  load " + label.padding(toLength: 20, withPad: " ", startingAt: 0) + String(format: "%8.2f ms", Timing.median(t)))
    }
    try db.close()
}
