import Foundation
import QuestCore
import RoutineFormat
import Testing

@Suite("ROUT-1: an edited or re-imported routine's tasks keep their history")
struct TaskIDTests {
    static func id(_ n: Int) -> UUID { UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n)) ?? UUID() }

    static let stored = Routine(
        id: id(100), name: "morning", displayName: "Morning", activeDays: [2],
        tasks: [
            RoutineTask(id: id(1), name: "teeth", displayName: "Teeth"),
            RoutineTask(id: id(2), name: "dress", displayName: "Dress"),
            RoutineTask(id: id(3), name: "dress", displayName: "Dress again"),
        ])

    /// New ids from 900 on, in the order they are asked for.
    final class NewIDs {
        var next = 900
        func make() -> UUID { defer { next += 1 }; return TaskIDTests.id(next) }
    }

    @Test("on import, by name: each stored task once, in order, however the names repeat; new names get new ids")
    func byName() {
        let ids = NewIDs()
        let result = RoutineDocument.taskIDs(names: ["dress", "dress", "dress", "teeth", "bag"], claimed: [], existing: Self.stored, newID: ids.make)
        #expect(result == [Self.id(2), Self.id(3), Self.id(900), Self.id(1), Self.id(901)])
    }

    @Test("on the web, a row's own id first (a renamed or moved task), then by name; a claim of another routine's id or a second claim is not honoured")
    func claimed() {
        let ids = NewIDs()
        // Row 0 renamed "teeth" to "brush"; row 1 claims task 3; row 2 claims task 3 again; row 3 a stranger's id.
        let result = RoutineDocument.taskIDs(
            names: ["brush", "dress", "dress", "teeth"], claimed: [Self.id(1), Self.id(3), Self.id(3), Self.id(77)], existing: Self.stored, newID: ids.make)
        #expect(result == [Self.id(1), Self.id(3), Self.id(2), Self.id(900)])
        #expect(Set(result).count == result.count)
    }

    @Test("a new routine: every task gets a new id")
    func fresh() {
        let ids = NewIDs()
        #expect(RoutineDocument.taskIDs(names: ["a", "b"], claimed: [nil, nil], existing: nil, newID: ids.make) == [Self.id(900), Self.id(901)])
    }
}
