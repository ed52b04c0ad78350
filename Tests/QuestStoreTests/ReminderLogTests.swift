import Foundation
import TestSupport
import QuestCore
import Testing
@testable import QuestStore

@Suite("REM-1: the store's log of sounded reminders")
struct ReminderLogTests {
    @Test("REM-1: a sounded reminder is stored, and the world loads each routine's last one (never twice a day after a restart)")
    func reminderLog() throws {
        let (db, _) = try freshDatabase()
        let routine = Routine(id: UUID(), name: "r", displayName: "R", activeDays: Array(1...7), tasks: [RoutineTask(id: UUID(), name: "t", displayName: "T")])
        try db.routines.save(routine)
        let first = Date(timeIntervalSince1970: 1_780_000_000), second = first.addingTimeInterval(86_400)
        try db.plays.apply(.reminderSounded(routineID: routine.id, name: "R", at: first), wallClockTrusted: true)
        try db.plays.apply(.reminderSounded(routineID: routine.id, name: "R", at: second), wallClockTrusted: true)
        #expect(try db.plays.lastReminders() == [routine.id: second])
        #expect(try db.loadWorld(calendar: .current, bootID: "b").reminders == [routine.id: second])
        #expect(try db.contentReport(limit: 5).rows.isEmpty)
    }
}
