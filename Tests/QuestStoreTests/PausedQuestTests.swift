import Foundation
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// GAME-7 through the store: a paused quest is kept as such, survives a restart of the box
/// (the world loaded again picks it up) and completes once.
@Suite("GAME-7: a paused quest in the store")
struct PausedQuestTests {
    static let cal: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        return c
    }()
    static let second: Int64 = 1_000_000_000
    /// A Wednesday morning (the routine plays Monday to Friday).
    static let morning = Date(timeIntervalSince1970: 1_781_067_600)  // 2026-06-10 07:00 Berlin

    /// The box as the daemon runs it, on a virtual clock: the world read from the store, every
    /// persist request written back in order.
    struct Box {
        let db: QuestDatabase
        var sim: QuestSimulator
        var written = 0

        init(_ db: QuestDatabase, wallClockStart: Date, bootID: String) throws {
            self.db = db
            let world = try db.loadWorld(calendar: PausedQuestTests.cal, bootID: bootID)
            sim = QuestSimulator(state: QuestState(world: world), wallClockStart: wallClockStart, ids: .random)
            sim.start()
        }

        mutating func tap(_ role: ButtonRole, at t: Int64) throws {
            sim.press(role, at: t)
            sim.release(role, at: t + 80_000_000)
            try persist()
        }

        mutating func advance(to t: Int64) throws {
            sim.advance(to: t)
            try persist()
        }

        mutating func persist() throws {
            let requests = sim.allEffects.compactMap { if case .persist(let p) = $0 { p } else { nil } }
            for request in requests.dropFirst(written) { try db.plays.apply(request, wallClockTrusted: true) }
            written = requests.count
        }

        var requests: [PersistRequest] { sim.allEffects.compactMap { if case .persist(let p) = $0 { p } else { nil } } }
    }

    @Test("paused with its first task's XP; a restart the same day picks it up at task 2; it completes once, with all its XP")
    func pauseRestartResume() throws {
        let (db, _) = try freshDatabase()
        try db.settings.update { $0.game.firstQuestIntro = false }  // GAME-9: she has seen how it works
        try db.routines.save(morningRoutine)
        let s = Self.second
        var box = try Box(db, wallClockStart: Self.morning, bootID: "boot-a")
        try box.tap(.lock, at: 1 * s)
        try box.tap(.lock, at: 2 * s)
        try box.tap(.stop, at: 62 * s)
        try box.advance(to: 80 * s + GameRules.standard.walkAwayPauseMs * 1_000_000)
        #expect(box.sim.state.phase.name == "idle")

        let paused = try db.plays.pausedQuests()
        #expect(paused.count == 1)
        #expect(paused.first?.session.status == .paused && paused.first?.estimations.count == 1)
        let firstXP = paused.first?.estimations.first?.xpEarned ?? -1
        #expect(paused.first?.session.xpEarned == firstXP)
        #expect(try db.profile(calendar: Self.cal).totalXP == firstXP, "the played task's XP counts at once")
        #expect(try db.profile(calendar: Self.cal).sessionsCompleted == 0)
        #expect(try db.plays.abandonUnfinishedSessions() == 0, "a paused quest is not an unfinished one")
        #expect(try db.loadWorld(calendar: Self.cal, bootID: "boot-b").pausedQuests == paused)

        // The box restarts two hours later (another boot), reads the store, and the next lock
        // picks the quest up.
        var again = try Box(db, wallClockStart: Self.morning.addingTimeInterval(2 * 3600), bootID: "boot-b")
        try again.tap(.lock, at: 1 * s)
        guard case .sessionResumed(let resumed)? = again.requests.last else { Issue.record("not resumed: \(again.requests.map(\.kind))"); return }
        #expect(resumed.id == paused.first?.session.id)
        #expect(try db.plays.pausedQuests().isEmpty)
        var t = 2 * s
        for _ in 0..<2 {
            try again.tap(.lock, at: t)
            try again.tap(.stop, at: t + 60 * s)
            try again.tap(.lock, at: t + 62 * s)
            t += 70 * s
        }
        let sessions = try db.plays.sessions()
        #expect(sessions.count == 1)
        #expect(sessions.first?.status == .completed)
        let estimations = try db.plays.estimations()
        #expect(estimations.map(\.orderIndex) == [0, 1, 2])
        #expect(sessions.first?.xpEarned == estimations.reduce(GameRules.standard.xpSessionCompletionBonus) { $0 + $1.xpEarned })
        #expect(try db.inconsistentSessionXP().isEmpty)
        #expect(try db.profile(calendar: Self.cal).sessionsCompleted == 1)
    }

    @Test("only each routine's latest quest counts as paused: one started after it (the next day) leaves it in the history")
    func latestOnly() throws {
        let (db, _) = try freshDatabase()
        try db.settings.update { $0.game.firstQuestIntro = false }  // GAME-9: she has seen how it works
        try db.routines.save(morningRoutine)
        let s = Self.second
        var box = try Box(db, wallClockStart: Self.morning, bootID: "boot-a")
        try box.tap(.lock, at: 1 * s)
        try box.advance(to: 2 * s + GameRules.standard.walkAwayPauseMs * 1_000_000)
        #expect(try db.plays.pausedQuests().count == 1)
        // The next day: a fresh quest, the old one stays paused in the history.
        let day: Int64 = 86_400 * s
        try box.advance(to: day)
        box.sim.send(.wallClockTick(atNanos: day), at: day)
        try box.tap(.lock, at: day + 1 * s)
        guard case .sessionStarted? = box.requests.last else { Issue.record("no fresh quest: \(box.requests.map(\.kind))"); return }
        #expect(try db.plays.pausedQuests().isEmpty)
        #expect(try db.plays.sessions().map(\.status).sorted { $0.rawValue < $1.rawValue } == [.inProgress, .paused])
    }
}
