import Foundation
import Synchronization
import GRDB
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

@Suite("QuestStore repositories")
struct StoreTests {
    @Test("routines round-trip in order; re-saving replaces tasks; names are unique; removal keeps history")
    func routines() throws {
        let (db, _) = try freshDatabase()
        try db.routines.save(morningRoutine)
        var evening = morningRoutine
        evening.id = UUID()
        evening.name = "Evening"
        evening.displayName = ""
        evening.activeDays = [1, 7]
        evening.isActive = false
        evening.createdBy = .player
        evening.tasks = [RoutineTask(id: UUID(), name: "Read", displayName: "Read")]
        try db.routines.save(evening)
        #expect(try db.routines.all() == [morningRoutine, evening])
        #expect(try db.routines.named("Evening") == evening)

        var edited = morningRoutine
        edited.moveTask(from: 2, to: 0)
        edited.tasks.removeLast()
        try db.routines.save(edited)
        #expect(try db.routines.named("School Morning") == edited)

        var clash = evening
        clash.id = UUID()
        #expect(throws: StoreError.invalid("a routine named \"Evening\" already exists")) { try db.routines.save(clash) }

        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 130)])
        #expect(try db.routines.remove(named: "School Morning"))
        #expect(try !db.routines.remove(named: "School Morning"))
        #expect(try db.routines.all() == [evening])
        #expect(try db.plays.estimations().count == 1)  // the play stays in the history
    }

    @Test("PAR-1: an editor's save applies only to the routine it read; pause, resume and removal by id keep the history")
    func routineEdits() throws {
        let (db, _) = try freshDatabase()
        try db.routines.save(morningRoutine)
        let read = try #require(try db.routines.withID(morningRoutine.id))
        let revision = RoutineStore.revision(of: read)
        #expect(RoutineStore.revision(of: read) == revision)  // stable

        // Someone else pauses it between the read and the save: the editor's save is refused.
        #expect(try db.routines.setActive(false, id: read.id))
        #expect(try db.routines.withID(read.id)?.isActive == false)
        var edited = read
        edited.displayName = "Morning Run"
        #expect(throws: StoreError.self) { try db.routines.save(edited, ifStillAt: revision) }
        #expect(try db.routines.withID(read.id)?.displayName == read.displayName)

        // Read again: the save goes through and keeps the pause it now shows.
        let again = try #require(try db.routines.withID(read.id))
        #expect(RoutineStore.revision(of: again) != revision)
        edited = again
        edited.displayName = "Morning Run"
        try db.routines.save(edited, ifStillAt: RoutineStore.revision(of: again))
        #expect(try db.routines.withID(read.id) == edited)
        #expect(try db.routines.setActive(true, id: read.id))
        #expect(try !db.routines.setActive(true, id: UUID()))

        // Removed meanwhile: the save does not bring it back.
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 130)])
        let last = try #require(try db.routines.withID(read.id))
        #expect(try db.routines.remove(id: read.id))
        #expect(try !db.routines.remove(id: read.id))
        #expect(throws: StoreError.changedElsewhere("this routine was removed meanwhile")) {
            try db.routines.save(last, ifStillAt: RoutineStore.revision(of: last))
        }
        #expect(try db.routines.all().isEmpty)
        #expect(try db.plays.estimations().count == 1)  // the play stays in the history
    }

    @Test("every persist request round-trips; the estimation, its XP and the cleared task commit together")
    func plays() throws {
        let (db, _) = try freshDatabase()
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let session = GameSession(
            id: UUID(), routineID: morningRoutine.id, routineDisplayName: "Morning Quest", startedAt: start,
            startedMonotonicNanos: 7, bootID: "b", isCalibration: true)
        try db.plays.apply(.sessionStarted(session), wallClockTrusted: true)
        let task = InProgressTask(
            session: session, taskIndex: 0, taskID: morningRoutine.tasks[0].id, estimatedSeconds: 150, lockMonotonicNanos: 1_000_000_007,
            bootID: "b", lockedAt: start.addingTimeInterval(3), lockedAtTrusted: true)
        try db.plays.apply(.taskStarted(task), wallClockTrusted: true)
        let restored = try #require(try db.plays.inProgress())
        #expect(restored.task == task)
        #expect(restored.completed.isEmpty)

        let result = TimeEstimationScorer.score(estimated: 150, actual: 161.123456789)
        let e = TaskEstimation(
            id: UUID(), sessionID: session.id, taskID: task.taskID, taskDisplayName: "Tooth Time", routineDisplayName: "Morning Quest",
            orderIndex: 0, result: result, xpEarned: 100, isCalibration: true, recordedAt: start.addingTimeInterval(170.25),
            lockMonotonicNanos: 1_000_000_007, stopMonotonicNanos: 162_123_456_796, bootID: "b")
        try db.plays.apply(.estimationCompleted(e), wallClockTrusted: true)
        #expect(try db.plays.inProgress() == nil)
        #expect(try db.plays.estimations() == [e])
        #expect(try db.plays.snapshots() == [e.snapshot])
        #expect(try db.profile().totalXP == 100)

        var completed = session
        completed.status = .completed
        completed.completedAt = start.addingTimeInterval(200)
        completed.xpEarned = 120
        try db.plays.apply(.sessionCompleted(completed), wallClockTrusted: true)
        #expect(try db.plays.sessions() == [completed])
        #expect(try db.profile() == PlayerProfile(totalXP: 120, currentStreak: 1, lastPlayedDate: completed.completedAt, sessionsCompleted: 1))
        #expect(try db.plays.questPlays() == [QuestPlay(routineID: morningRoutine.id, completedAt: completed.completedAt!, measuredTaskSeconds: e.actualSeconds)])

        try db.plays.apply(.reflectionDismissed(weekIdentifier: "2026-W23"), wallClockTrusted: true)
        #expect(try db.reflectionTracking().dismissedWeek == "2026-W23")
    }

    @Test("#34: a day's sessions by their start, half open: the day before, the day itself (its first instant in), the next day's first instant out")
    func sessionsOfADay() throws {
        let (db, _) = try freshDatabase()
        let day = Date(timeIntervalSince1970: 1_780_012_800)          // a midnight (UTC)
        let starts = [day.addingTimeInterval(-1), day, day.addingTimeInterval(43_200), day.addingTimeInterval(86_400)]
        var ids: [UUID] = []
        for (i, start) in starts.enumerated() {
            let session = GameSession(
                id: UUID(), routineID: morningRoutine.id, routineDisplayName: "Morning Quest", startedAt: start,
                startedMonotonicNanos: Int64(i), bootID: "b", isCalibration: false)
            try db.plays.apply(.sessionStarted(session), wallClockTrusted: true)
            ids.append(session.id)
        }
        #expect(try db.plays.sessions(startedIn: day..<day.addingTimeInterval(86_400)).map(\.id) == [ids[1], ids[2]])
        #expect(try db.plays.sessions(startedIn: nil).map(\.id) == ids)
        #expect(try db.plays.sessions(startedIn: day.addingTimeInterval(90_000)..<day.addingTimeInterval(99_000)).isEmpty)
    }

    @Test("#49: the change stamp moves on another connection's commit and on this one's own write, never on a read")
    func changeStamp() throws {
        let (db, dir) = try freshDatabase()
        let first = try db.changeStamp()
        _ = try db.loadWorld(calendar: Calendar(identifier: .gregorian), bootID: "", taskMemory: false)
        _ = try db.plays.sessions()
        #expect(try db.changeStamp() == first, "a read moved it")
        // Another process's commit, as the CLI's or the web app's.
        let other = try QuestDatabase(path: (dir as NSString).appendingPathComponent("questbox.sqlite"))
        try other.plays.apply(.reflectionDismissed(weekIdentifier: "2026-W22"), wallClockTrusted: true)
        let afterOther = try db.changeStamp()
        #expect(afterOther != first)
        #expect(try db.changeStamp() == afterOther, "it moved again without a commit")
        try db.plays.apply(.reflectionDismissed(weekIdentifier: "2026-W23"), wallClockTrusted: true)
        #expect(try db.changeStamp() != afterOther, "this connection's own write")
    }

    @Test("REFL-1: the store offers last week's reflection (learning quests count as quests, not for accuracy) until it is dismissed")
    func pendingReflection() throws {
        let (db, _) = try freshDatabase()
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        cal.firstWeekday = 2
        let monday = try #require(cal.date(from: DateComponents(year: 2026, month: 12, day: 28, hour: 7)))  // 2026-W53
        for day in 0..<3 { try recordQuest(db, at: monday.addingTimeInterval(Double(day) * 86_400), durations: [(60, 61)]) }
        let nextWeek = monday.addingTimeInterval(7 * 86_400)  // Monday 4 January 2027, W01
        let learning = try #require(try db.pendingReflection(now: nextWeek, calendar: cal), "three learning quests are a week played")
        #expect(learning.questsCompleted == 3 && learning.learningQuests == 3 && learning.daysPlayedThisWeek == 3 && learning.accuracyText == nil)
        #expect(learning.learningLine == "All 3 were learning quests: accuracy counts from the next one")
        try recordQuest(db, at: monday.addingTimeInterval(4 * 86_400), durations: [(60, 61), (90, 100)])
        let r = try #require(try db.pendingReflection(now: nextWeek, calendar: cal))
        #expect(r.weekIdentifier == "2026-W53" && r.weekDates == "Dec 28 – Jan 3")
        #expect(r.questsCompleted == 4 && r.daysPlayedThisWeek == 4 && r.totalEstimations == 2, "CAL-1: learning quests count, their estimations not")
        #expect(r.learningLine == "Accuracy from 1 quest; the first 3 were for learning")
        #expect(try db.pendingReflection(now: monday.addingTimeInterval(3 * 86_400), calendar: cal) == nil, "the week is not over")
        try db.plays.apply(.reflectionDismissed(weekIdentifier: "2026-W53"), wallClockTrusted: true)
        #expect(try db.pendingReflection(now: nextWeek, calendar: cal) == nil)
    }

    @Test("quest plays derived from loaded history equal the store's own query; snapshots come back in time order")
    func playsDerivedEqualsStored() throws {
        let (db, _) = try freshDatabase()
        let base = Date(timeIntervalSince1970: 1_780_000_000)
        for day in 0..<6 { try recordQuest(db, at: base.addingTimeInterval(Double(day) * 86_400), durations: [(60, 61), (90, 95 + Double(day))]) }
        // An abandoned session counts for nothing.
        let abandoned = GameSession(id: UUID(), routineID: morningRoutine.id, routineDisplayName: "M", startedAt: base, startedMonotonicNanos: 0, bootID: "b", status: .abandoned, isCalibration: false)
        try db.plays.apply(.sessionStarted(abandoned), wallClockTrusted: true)
        let derived = QuestPlay.completedPlays(sessions: try db.plays.sessions(), snapshots: try db.plays.snapshots())
        #expect(derived.count == 6)
        #expect(derived == (try db.plays.questPlays()))
        // Rows stored out of time order (a corrected wall time) still load oldest first.
        try recordQuest(db, at: base.addingTimeInterval(-86_400 * 30), durations: [(60, 60)])
        let loaded = try db.plays.snapshots()
        #expect(zip(loaded, loaded.dropFirst()).allSatisfy { $0.recordedAt <= $1.recordedAt })
        #expect(loaded.map(\.recordedAt) == (try db.plays.estimations()).map(\.recordedAt))
        let sessions = try db.plays.sessions()
        #expect(zip(sessions, sessions.dropFirst()).allSatisfy { $0.startedAt <= $1.startedAt })
    }

    /// Every task's memory as the machine would build it, one play after another.
    static func replayedTaskMemory(_ snapshots: [EstimationSnapshot]) -> [UUID: TaskMemory] {
        var memory: [UUID: TaskMemory] = [:]
        for s in snapshots.sorted(by: { $0.recordedAt < $1.recordedAt }) {
            guard let id = s.taskID else { continue }
            memory[id, default: TaskMemory()].record(
                estimatedSeconds: s.estimatedSeconds, actualSeconds: s.actualSeconds, absDifference: s.absDifferenceSeconds, isCalibration: s.isCalibration)
        }
        return memory
    }

    @Test("the world's task memory from SQL equals the in-memory derivation from the history")
    func taskMemoryFromSQL() throws {
        let (db, _) = try freshDatabase()
        let base = Date(timeIntervalSince1970: 1_780_000_000)
        // 3 calibration sessions, then more: calibration counts for last estimate and best, not for hints.
        for day in 0..<9 {
            try recordQuest(db, at: base.addingTimeInterval(Double(day) * 86_400),
                            durations: [(60 + Double(day) * 15, 70 + Double(day * 7 % 11)), (120, 100 + Double(day * 13 % 17)), (90, 300)])
        }
        let fromSQL = try db.plays.taskMemories()
        let fromHistory = Self.replayedTaskMemory(try db.plays.snapshots())
        #expect(fromSQL == fromHistory)
        #expect(fromSQL.values.allSatisfy { $0.recentActuals.count == 5 })
        let world = try db.loadWorld(calendar: Calendar(identifier: .gregorian), bootID: "b")
        #expect(world.taskMemory == fromHistory)
        #expect(world.plays == QuestPlay.completedPlays(sessions: try db.plays.sessions(), snapshots: try db.plays.snapshots()))
    }

    @Test("task memory: an unreadable task id is skipped, and of two rows at the same time the later written is the newer")
    func taskMemoryEdges() throws {
        let (db, _) = try freshDatabase()
        let base = Date(timeIntervalSince1970: 1_780_000_000)
        for day in 0..<6 {
            try recordQuest(db, at: base.addingTimeInterval(Double(day) * 86_400), durations: [(60 + Double(day), 70), (120 + Double(day), 100 + Double(day))])
        }
        let tasks = morningRoutine.tasks.map(\.id)
        try db.pool.writeWithoutTransaction { db in
            // Bit flips: the triggers are not asked.
            try db.execute(sql: "DROP TRIGGER estimation_no_change")
            try db.execute(sql: "DROP TRIGGER estimation_trusted_time_final")
            // The newest row of the first task loses its id (text, then an integer elsewhere).
            try db.execute(sql: "UPDATE estimation SET taskId = 'not a uuid' WHERE rowid = (SELECT MAX(rowid) FROM estimation WHERE orderIndex = 0)")
            try db.execute(sql: "UPDATE estimation SET taskId = 7 WHERE rowid = (SELECT MIN(rowid) FROM estimation WHERE orderIndex = 1)")
            // The second task's last two rows recorded at the same instant.
            try db.execute(sql: """
                UPDATE estimation SET recordedAt = (SELECT MAX(recordedAt) FROM estimation WHERE orderIndex = 1)
                WHERE rowid = (SELECT MAX(rowid) FROM estimation WHERE orderIndex = 1 AND rowid < (SELECT MAX(rowid) FROM estimation WHERE orderIndex = 1))
                """)
        }
        let memory = try db.plays.taskMemories()
        #expect(Set(memory.keys) == Set(tasks.prefix(2)), "the two tasks played; no entry for the unreadable ids")
        #expect(memory[tasks[0]]?.lastEstimateSeconds == 64, "the newest readable row of the first task is day 4's")
        #expect(memory[tasks[0]]?.recentActuals == [70, 70], "days 3 and 4 only: the first three quests were calibration")
        #expect(memory[tasks[1]]?.lastEstimateSeconds == 125, "day 5's, written after day 4's at the same instant")
        // Equal times: rowid decides, so day 5's row stays the newest and the order is kept.
        #expect(memory[tasks[1]]?.recentActuals == [103, 104, 105], "\(String(describing: memory[tasks[1]]))")
    }

    @Test("task memory: a task whose every difference is unreadable has no closest miss and no bias, and keeps the rest")
    func taskMemoryAllDifferencesUnreadable() throws {
        let (db, _) = try freshDatabase()
        let base = Date(timeIntervalSince1970: 1_780_000_000)
        // 3 calibration quests, then 3 that count for INS-1's bias.
        for day in 0..<6 {
            try recordQuest(db, at: base.addingTimeInterval(Double(day) * 86_400), durations: [(60 + Double(day), 70), (120, 100 + Double(day))])
        }
        let before = try db.plays.taskMemories()
        let tasks = morningRoutine.tasks.map(\.id)
        try db.pool.writeWithoutTransaction { db in
            try db.execute(sql: "DROP TRIGGER estimation_no_change")  // a bit flip does not ask the triggers
            try db.execute(sql: "UPDATE estimation SET differenceSeconds = 'abc' WHERE orderIndex = 1")
        }
        let memory = try db.plays.taskMemories()
        #expect(before[tasks[1]]?.bias.count == 3 && before[tasks[1]]?.bestAbsDifferenceSeconds == 15)
        #expect(memory[tasks[1]]?.bestAbsDifferenceSeconds == nil, "no readable difference: no closest miss")
        #expect(memory[tasks[1]]?.bias == BiasSums(), "no readable difference: no bias")
        #expect(memory[tasks[1]]?.lastEstimateSeconds == 120, "its estimates are still readable")
        #expect(memory[tasks[1]]?.recentActuals == [103, 104, 105], "its durations are still readable")
        #expect(memory[tasks[0]] == before[tasks[0]], "the other task's rows in the same scan are untouched")
    }

    @Test("an estimation for an unknown session is refused and nothing of it is written")
    func orphanEstimation() throws {
        let (db, _) = try freshDatabase()
        let result = TimeEstimationScorer.score(estimated: 60, actual: 60)
        let e = TaskEstimation(
            id: UUID(), sessionID: UUID(), taskID: UUID(), taskDisplayName: "T", routineDisplayName: "R", orderIndex: 0, result: result,
            xpEarned: 100, isCalibration: false, recordedAt: Date(), lockMonotonicNanos: 0, stopMonotonicNanos: 60_000_000_000, bootID: "b")
        #expect(throws: StoreError.self) { try db.plays.apply(.estimationCompleted(e), wallClockTrusted: true) }
        #expect(try db.profile().totalXP == 0)
    }

    @Test("estimations are append-only: no delete, no change to what was measured")
    func appendOnly() throws {
        let (db, _) = try freshDatabase()
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 130)])
        #expect(throws: DatabaseError.self) { try db.pool.write { try $0.execute(sql: "DELETE FROM estimation") } }
        #expect(throws: DatabaseError.self) { try db.pool.write { try $0.execute(sql: "UPDATE estimation SET actualSeconds = 1") } }
        #expect(throws: DatabaseError.self) { try db.pool.write { try $0.execute(sql: "UPDATE estimation SET recordedAt = 0") } }  // trusted: final
        #expect(try db.plays.estimations().count == 1)
    }

    @Test("§5: wall times taken before the clock was trusted are corrected from monotonic time, once")
    func wallClockCorrection() throws {
        let (db, _) = try freshDatabase()
        // The Pi booted thinking it is 1970 + a bit; the quest ran at monotonic 5 s … 200 s.
        let wrong = Date(timeIntervalSince1970: 1_000)
        let played = try recordQuest(db, at: wrong, durations: [(60, 61), (60, 62)], trusted: false, bootID: "boot-a")
        try recordQuest(db, at: Date(timeIntervalSince1970: 2_000), durations: [(60, 60)], trusted: false, bootID: "old-boot")
        // NTP syncs at monotonic 1000 s: real time 2026-06-10 07:00 UTC.
        let real = Date(timeIntervalSince1970: 1_781_074_800)
        let corrected = try db.plays.correctUntrustedWallTimes(bootID: "boot-a", wallNow: real, monotonicNow: 1_000_000_000_000)
        #expect(corrected == 3)  // two estimations and their session
        let after = try db.plays.estimations()
        let first = try #require(after.first { $0.id == played[0].id })
        let expected = real.timeIntervalSince1970 - Double(1_000_000_000_000 - played[0].stopMonotonicNanos) / 1e9
        #expect(abs(first.recordedAt.timeIntervalSince1970 - expected) < 1e-3)
        #expect(first.actualSeconds == played[0].actualSeconds)  // durations never change
        let session = try #require(try db.plays.sessions().first { $0.bootID == "boot-a" })
        #expect(abs(session.startedAt.timeIntervalSince1970 - (real.timeIntervalSince1970 - 995)) < 1e-3)
        #expect(session.completedAt! > session.startedAt)
        // The other boot cannot be bridged; a second correction changes nothing.
        #expect(try db.plays.estimations().first { $0.bootID == "old-boot" }?.recordedAt == Date(timeIntervalSince1970: 2_061))
        #expect(try db.plays.correctUntrustedWallTimes(bootID: "boot-a", wallNow: real, monotonicNow: 2_000_000_000_000) == 0)
    }

    @Test("the profile is derived from the history: XP of completed quests and of unfinished ones, count, streak, last day")
    func profileDerived() throws {
        let (db, _) = try freshDatabase()
        #expect(try db.profile() == PlayerProfile())
        #expect(try db.pool.read { try $0.tableExists("playerProfile") } == false)  // no stored copy to go stale
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        // Three days in a row, a gap, two more days: the pause streak waits at 3 (STREAK-1), then 4.
        let day = { (d: Int) in Date(timeIntervalSince1970: 1_780_000_000 + Double(d) * 86_400) }
        var xp = 0
        for d in [0, 1, 2, 5, 6] {
            let played = try recordQuest(db, at: day(d), durations: [(120, 118), (300, 400)])
            xp += played.reduce(XPEngine.sessionCompletionBonus) { $0 + $1.xpEarned }
        }
        // An abandoned quest keeps the XP of its reveals; it is no completed quest.
        let abandoned = GameSession(id: UUID(), routineID: morningRoutine.id, routineDisplayName: "M", startedAt: day(7), startedMonotonicNanos: 0, bootID: "b", isCalibration: false)
        try db.plays.apply(.sessionStarted(abandoned), wallClockTrusted: true)
        let result = TimeEstimationScorer.score(estimated: 60, actual: 60)
        try db.plays.apply(.estimationCompleted(TaskEstimation(
            id: UUID(), sessionID: abandoned.id, taskID: UUID(), taskDisplayName: "T", routineDisplayName: "M", orderIndex: 0, result: result,
            xpEarned: 100, isCalibration: false, recordedAt: day(7), lockMonotonicNanos: 0, stopMonotonicNanos: 60_000_000_000, bootID: "b")),
            wallClockTrusted: true)
        var gone = abandoned
        gone.status = .abandoned
        gone.xpEarned = 100
        try db.plays.apply(.sessionAbandoned(gone), wallClockTrusted: true)
        let profile = try db.profile(calendar: berlin)
        #expect(profile.totalXP == xp + 100)
        #expect(profile.sessionsCompleted == 5)
        #expect(profile.currentStreak == 4)
        #expect(profile.lastPlayedDate == (try db.plays.sessions()).compactMap(\.completedAt).max())
        #expect(try db.inconsistentSessionXP().isEmpty)
        // From history a view already loaded, the same profile.
        #expect(try db.profile(sessions: db.plays.sessions(), plays: QuestPlay.completedPlays(sessions: db.plays.sessions(), snapshots: db.plays.snapshots()), calendar: berlin) == profile)
        // The world the daemon loads carries the same profile.
        #expect(try db.loadWorld(calendar: berlin, bootID: "b").profile == profile)
    }

    @Test("an infinite or NULL-as-text duration in the live file is skipped by every reader and named once")
    func unreadableDurations() throws {
        let (db, _) = try freshDatabase()
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 118), (60, 61), (90, 95)])
        try db.pool.writeWithoutTransaction { db in
            try db.execute(sql: "DROP TRIGGER estimation_no_change")  // a bit flip does not ask the triggers
            try db.execute(sql: "UPDATE estimation SET actualSeconds = 1e999 WHERE orderIndex = 0")
            try db.execute(sql: "UPDATE estimation SET differenceSeconds = 'abc' WHERE orderIndex = 2")
        }
        #expect(try db.plays.snapshots().count == 1)
        #expect(try db.plays.estimations().count == 1)
        // Memory reads only the columns it needs: the flipped row's estimate still counts, its duration not.
        #expect(try db.plays.taskMemories()[morningRoutine.tasks[0].id]?.bestAbsDifferenceSeconds == 2)
        let unreadable = try db.unreadableRows()
        #expect(unreadable.total == 2)
        #expect(unreadable.lines == [
            "estimation row 1: actualSeconds is Inf, expected seconds 0–604800",
            "estimation row 3: differenceSeconds is 'abc', expected seconds -604800–604800",
        ])
        // The same words on every SQLite: quote() itself says Inf up to 3.42, 9.0e+999 after.
        let said = try db.pool.read { db in
            try ["1e999", "-1e999", "2.5", "'abc'", "NULL", "x'00'"].map { value in
                try String.fetchOne(db, sql: "SELECT \(RowRules.quoted("v")) FROM (SELECT \(value) AS v)")
            }
        }
        #expect(said == ["Inf", "-Inf", "2.5", "'abc'", "NULL", "X'00'"])
    }

    @Test("quests left in_progress with no task being timed are closed as abandoned, keeping their XP; the timed one stays")
    func abandonUnfinished() throws {
        let (db, _) = try freshDatabase()
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let open = GameSession(id: UUID(), routineID: UUID(), routineDisplayName: "A", startedAt: start, startedMonotonicNanos: 0, bootID: "b", isCalibration: false)
        let timed = GameSession(id: UUID(), routineID: UUID(), routineDisplayName: "B", startedAt: start, startedMonotonicNanos: 0, bootID: "b", isCalibration: false)
        try db.plays.apply(.sessionStarted(open), wallClockTrusted: true)
        try db.plays.apply(.estimationCompleted(TaskEstimation(
            id: UUID(), sessionID: open.id, taskID: UUID(), taskDisplayName: "T", routineDisplayName: "A", orderIndex: 0,
            result: TimeEstimationScorer.score(estimated: 60, actual: 60), xpEarned: 100, isCalibration: false, recordedAt: start,
            lockMonotonicNanos: 0, stopMonotonicNanos: 60_000_000_000, bootID: "b")), wallClockTrusted: true)
        try db.plays.apply(.sessionStarted(timed), wallClockTrusted: true)
        try db.plays.apply(.taskStarted(InProgressTask(
            session: timed, taskIndex: 0, taskID: UUID(), estimatedSeconds: 60, lockMonotonicNanos: 1, bootID: "b", lockedAt: start,
            lockedAtTrusted: true)), wallClockTrusted: true)
        #expect(try db.plays.abandonUnfinishedSessions() == 1)
        let sessions = try db.plays.sessions()
        #expect(sessions.first { $0.id == open.id }?.status == .abandoned && sessions.first { $0.id == open.id }?.xpEarned == 100)
        #expect(sessions.first { $0.id == timed.id }?.status == .inProgress)
        #expect(try db.plays.abandonUnfinishedSessions() == 0)
        #expect(try db.profile().totalXP == 100)
    }

    @Test("a completed session whose stored XP is not its estimations' plus the bonus is reported")
    func inconsistentSessionXP() throws {
        let (db, _) = try freshDatabase()
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 118)])
        let id = try #require(try db.plays.sessions().first?.id)
        try db.pool.write { try $0.execute(sql: "UPDATE session SET xpEarned = xpEarned + 1000") }
        #expect(try db.inconsistentSessionXP() == [id])
    }

    @Test("settings: defaults, changes, and bad values refused with the field named")
    func settings() throws {
        let (db, _) = try freshDatabase()
        var expected = StoredSettings()
        #expect(try db.settings.current() == expected)
        let switchedAt = Date(timeIntervalSince1970: 1_780_000_000)
        try db.settings.update(now: switchedAt) { s in
            s.game.streakPolicy = .joker
            s.game.hintsEnabled = false
            s.volumePercent = 35
            s.soundEnabled = false
            s.firstWeekday = 1
            s.game.reminderTime = ClockTime(hour: 6, minute: 45) ?? .morning
            s.game.estimateReadBack = true
            s.game.stopGuardSeconds = 4
            s.game.remindersEnabled = false
        }
        expected.game = GameSettings(
            streakPolicy: .joker, hintsEnabled: false, estimateReadBack: true, stopGuardSeconds: 4, remindersEnabled: false,
            reminderTime: ClockTime("06:45"))
        expected.game.firstQuestIntro = true  // GAME-9: a store's default
        // STREAK-3: the switch is stored with its time.
        expected.game.streakPolicyChanges = [StreakPolicyChange(at: switchedAt, from: .pause, to: .joker)]
        expected.volumePercent = 35
        expected.soundEnabled = false
        expected.firstWeekday = 1
        #expect(expected.game.reminderTime.description == "06:45")
        #expect(try db.settings.current() == expected)
        #expect(throws: StoreError.invalid("volume: 140 is not 0–100")) { try db.settings.update { $0.volumePercent = 140 } }
        #expect(throws: StoreError.invalid("firstWeekday: 8 is not a weekday (1 = Sunday … 7 = Saturday)")) { try db.settings.update { $0.firstWeekday = 8 } }
        #expect(throws: StoreError.invalid("stopGuardSeconds: 11 is not 0–10")) { try db.settings.update { $0.game.stopGuardSeconds = 11 } }
        #expect(try db.settings.current() == expected)
    }

    @Test("PAR-1: the PIN is a salted slow hash; wrong attempts are limited")
    func pin() throws {
        let (db, _) = try freshDatabase()
        let s: Int64 = 1_000_000_000
        #expect(try db.parentPIN.verifyPIN("1234", monotonicNanos: 0, bootID: "b") == .notSet)
        #expect(throws: StoreError.invalid("PIN: must be 4 to 8 digits")) { try db.parentPIN.setPIN("12a4") }
        #expect(throws: StoreError.invalid("PIN: must be 4 to 8 digits")) { try db.parentPIN.setPIN("123456789") }
        try db.parentPIN.setPIN("2468")
        let stored = try #require(try db.pool.read { try String.fetchOne($0, sql: "SELECT pinHash FROM settings") })
        #expect(stored.hasPrefix("scrypt$16384$8$1$") && !stored.contains("2468"))
        #expect(try db.settings.current().hasPIN)
        try db.parentPIN.setPIN("2468")
        #expect(try db.pool.read { try String.fetchOne($0, sql: "SELECT pinHash FROM settings") } != stored)  // fresh salt
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "b") == .accepted)
        // #47: twenty in a row from anywhere close the area for everyone (the web app pauses
        // one address after its own five).
        #expect(ParentPINRecords.pinAttemptsBeforeLockout == 20)
        for left in (1..<ParentPINRecords.pinAttemptsBeforeLockout).reversed() {
            #expect(try db.parentPIN.verifyPIN("0000", monotonicNanos: 0, bootID: "b") == .rejected(attemptsLeft: left))
        }
        #expect(try db.parentPIN.verifyPIN("0000", monotonicNanos: 0, bootID: "b") == .lockedOut(seconds: 300))
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 299 * s, bootID: "b") == .lockedOut(seconds: 1))
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 301 * s, bootID: "b") == .accepted)
    }

    @Test("PAR-1: tries made at once (two processes, a flood from the network) each count: 25 wrong PINs in parallel give 19 tries left, then one lockout")
    func pinTriesAtOnce() throws {
        let (db, dir) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        let other = try QuestDatabase(path: (dir as NSString).appendingPathComponent("questbox.sqlite"))
        let results = Mutex<[PINCheck]>([])
        DispatchQueue.concurrentPerform(iterations: ParentPINRecords.pinAttemptsBeforeLockout + 5) { i in
            let check = (try? (i.isMultiple(of: 2) ? db : other).parentPIN.verifyPIN("0000", monotonicNanos: 0, bootID: "b")) ?? .notSet
            results.withLock { $0.append(check) }
        }
        let all = results.withLock { $0 }
        let rejected = all.compactMap { if case .rejected(let left) = $0 { left } else { nil } }.sorted()
        #expect(rejected == Array(1..<ParentPINRecords.pinAttemptsBeforeLockout), "\(all)")
        #expect(all.filter { if case .lockedOut = $0 { true } else { false } }.count == 6, "\(all)")
        #expect(try db.pool.read { try Int.fetchOne($0, sql: "SELECT pinLockouts FROM settings") } == 1, "one lockout, not one per late try")
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "b") == .lockedOut(seconds: 300), "the right PIN waits too")
    }

    @Test("PAR-1: lockouts escalate 5, 10, 20 … minutes up to a day; the right PIN resets them")
    func pinEscalation() throws {
        let (db, _) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        let s: Int64 = 1_000_000_000
        var now: Int64 = 0
        var lockouts: [Int] = []
        // The wrong tries before each lockout's last are set in the row (each try is a slow hash).
        func nearlyLocked() throws {
            try db.pool.write { try $0.execute(sql: "UPDATE settings SET pinFailedAttempts = ?", arguments: [ParentPINRecords.pinAttemptsBeforeLockout - 1]) }
        }
        for _ in 0..<12 {
            try nearlyLocked()
            guard case .lockedOut(let seconds) = try db.parentPIN.verifyPIN("0000", monotonicNanos: now, bootID: "b") else {
                Issue.record("no lockout")
                return
            }
            lockouts.append(seconds / 60)
            now += Int64(seconds) * s
        }
        #expect(lockouts == [5, 10, 20, 40, 80, 160, 320, 640, 1280, 1440, 1440, 1440])
        // Ten thousand 4-digit PINs at twenty a day: more than a year on average.
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: now, bootID: "b") == .accepted)
        #expect(try db.parentPIN.verifyPIN("0000", monotonicNanos: now, bootID: "b") == .rejected(attemptsLeft: ParentPINRecords.pinAttemptsBeforeLockout - 1))
        try nearlyLocked()
        #expect(try db.parentPIN.verifyPIN("0000", monotonicNanos: now, bootID: "b") == .lockedOut(seconds: 300))
    }

    @Test("PAR-1: a lockout survives a restart (same boot) and starts again in full after a reboot; the wall clock plays no part")
    func pinLockoutAcrossRestartAndReboot() throws {
        let (db, dir) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        let s: Int64 = 1_000_000_000
        for _ in 0..<ParentPINRecords.pinAttemptsBeforeLockout { _ = try db.parentPIN.verifyPIN("0000", monotonicNanos: 1_000 * s, bootID: "boot-1") }
        try db.close()
        let reopened = try QuestDatabase(path: (dir as NSString).appendingPathComponent("questbox.sqlite"))
        #expect(try reopened.parentPIN.verifyPIN("2468", monotonicNanos: 1_100 * s, bootID: "boot-1") == .lockedOut(seconds: 200))
        // After a reboot the monotonic clock starts near 0: the lockout is re-armed, not lifted.
        #expect(try reopened.parentPIN.verifyPIN("2468", monotonicNanos: 5 * s, bootID: "boot-2") == .lockedOut(seconds: 300))
        #expect(try reopened.parentPIN.verifyPIN("2468", monotonicNanos: 200 * s, bootID: "boot-2") == .lockedOut(seconds: 105))
        #expect(try reopened.parentPIN.verifyPIN("2468", monotonicNanos: 306 * s, bootID: "boot-2") == .accepted)
    }

    @Test("PAR-1: a stored hash asking for an extreme scrypt cost (a crafted backup) is refused at once, not computed")
    func pinCostBounds() throws {
        let (db, _) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        let stored = try #require(try db.pool.read { try String.fetchOne($0, sql: "SELECT pinHash FROM settings") })
        let parts = stored.split(separator: "$").map(String.init)
        for (n, r, p) in [("1073741824", "8", "1"), ("16384", "1024", "1"), ("16384", "8", "64"), ("16385", "8", "1"), ("-1", "8", "1"), ("65536", "16", "1")] {
            let crafted = ["scrypt", n, r, p, parts[4], parts[5]].joined(separator: "$")
            let start = ContinuousClock.now
            #expect(try !PINHasher.verify("2468", against: crafted), "N=\(n) r=\(r) p=\(p)")
            #expect(ContinuousClock.now - start < .seconds(1))
        }
        #expect(try PINHasher.verify("2468", against: stored))
    }

    @Test("PAR-1: a PIN hash stored before libcrypto (swift-crypto's scrypt) still verifies, a wrong PIN still not")
    func pinFromEarlierBuilds() throws {
        // Made by `questbox pin set` (2468) of a build that hashed with swift-crypto.
        let stored = "scrypt$16384$8$1$0H4DHLHM5oMRhaJbs5P1Rw==$dgBl/h/v7q8hZIjFJGgUA4X0QDs1OhvszCcUYLgfI9s="
        #expect(try PINHasher.verify("2468", against: stored))
        #expect(try !PINHasher.verify("2469", against: stored))
        #expect(try !PINHasher.verify("24680", against: stored))
    }
}

@Suite("Schema and migrations")
struct MigrationTests {
    @Test("an empty file becomes the current schema, marked as ours")
    func fromEmpty() throws {
        let dir = temporaryDirectory()
        let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let db = try QuestDatabase(path: path)
        #expect(try db.schemaVersion() == Schema.currentVersion)
        #expect(try db.integrityCheck() == "ok")
        #expect(try db.pool.read { try Int32.fetchOne($0, sql: "PRAGMA application_id") } == Schema.applicationID)
        #expect(try db.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        #expect(try db.pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)  // FULL
        #expect(try db.pool.read { try Bool.fetchOne($0, sql: "PRAGMA foreign_keys") } == true)
    }

    @Test("a file cut off between creation and the first migration opens as a new database; restore still refuses it")
    func blankSQLiteFile() throws {
        let dir = temporaryDirectory()
        let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
        let blank = try DatabaseQueue(path: path)
        try blank.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }  // what opening leaves
        try blank.close()
        #expect(((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 0)
        let db = try QuestDatabase(path: path)
        #expect(try db.schemaVersion() == Schema.currentVersion)
        let other = (dir as NSString).appendingPathComponent("blank.sqlite")
        let blank2 = try DatabaseQueue(path: other)
        try blank2.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 0") }
        try blank2.close()
        #expect(throws: StoreError.self) { try db.backups.restore(from: other, now: Date()) }
        // Killed after the migrator made its bookkeeping table, before the first migration
        // (seen once in the crash-safety test): still a new database.
        let early = (dir as NSString).appendingPathComponent("early.sqlite")
        let cut = try DatabaseQueue(path: early)
        try cut.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        try cut.close()
        #expect(try QuestDatabase(path: early).schemaVersion() == Schema.currentVersion)
    }

    @Test("a database of the first schema opens with its data intact")
    func fromFirstSchemaFixture() throws {
        let dir = temporaryDirectory()
        let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
        try FileManager.default.copyItem(atPath: "\(packageRoot)/Tests/QuestStoreTests/Fixtures/schema-v1.sqlite", toPath: path)
        let db = try QuestDatabase(path: path)
        #expect(try db.schemaVersion() == Schema.currentVersion)
        #expect(try db.plays.estimations().count == 36)
        #expect(try db.plays.sessions().count == 12)
        #expect(try db.routines.all().map(\.name) == ["School Morning"])
        #expect(try db.plays.estimations().allSatisfy { $0.rating == TimeEstimationScorer.score(estimated: $0.estimatedSeconds, actual: $0.actualSeconds).rating })
        #expect(try db.integrityCheck() == "ok")
    }
}
