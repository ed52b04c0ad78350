// Writes plays in a loop the way the box does — a session, three estimations, the
// completion, each its own transaction — and prints "committed <estimation id>" only after
// an estimation's transaction has committed. The crash-safety test kills it with SIGKILL at
// random moments and checks that everything it reported is still there.
import Foundation
import QuestCore
import QuestStore

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: StoreCrashWriter DATABASE\n".utf8))
    exit(2)
}
do {
    let db = try QuestDatabase(path: CommandLine.arguments[1])
    var mono: Int64 = 1_000_000_000
    let routineID = UUID()
    while true {
        let session = GameSession(
            id: UUID(), routineID: routineID, routineDisplayName: "Crash Quest", startedAt: Date(), startedMonotonicNanos: mono,
            bootID: "crash-test", isCalibration: false)
        try db.plays.apply(.sessionStarted(session), wallClockTrusted: true)
        for index in 0..<3 {
            let lock = mono, stop = mono + Int64(60 + index) * 1_000_000_000
            mono = stop + 1_000_000
            let result = TimeEstimationScorer.score(estimated: 60, actual: Double(stop - lock) / 1e9)
            let estimation = TaskEstimation(
                id: UUID(), sessionID: session.id, taskID: UUID(), taskDisplayName: "Task \(index)", routineDisplayName: "Crash Quest",
                orderIndex: index, result: result, xpEarned: XPEngine.xpForEstimation(rating: result.rating), isCalibration: false,
                recordedAt: Date(), lockMonotonicNanos: lock, stopMonotonicNanos: stop, bootID: "crash-test")
            try db.plays.apply(.estimationCompleted(estimation), wallClockTrusted: true)
            // write(2) directly: nothing sits in a buffer when the process dies.
            FileHandle.standardOutput.write(Data("committed \(estimation.id.uuidString)\n".utf8))
        }
        var done = session
        done.status = .completed
        done.completedAt = Date()
        try db.plays.apply(.sessionCompleted(done), wallClockTrusted: true)
    }
} catch {
    FileHandle.standardError.write(Data("StoreCrashWriter: \(error)\n".utf8))
    exit(1)
}
