import HomeLink
import Testing

@Suite("The house's commands, bounded (#47, #50)")
struct HouseCommandGateTests {
    typealias Gate = HouseCommandGate

    @Test("what a payload on the command topics is: any payload reminds; mute takes ON or OFF, in any case, spaces around")
    func commands() {
        #expect(Gate.command(remind: true, payload: Array("PRESS".utf8)) == .remind)
        #expect(Gate.command(remind: true, payload: []) == .remind)
        #expect(Gate.command(remind: false, payload: Array("ON".utf8)) == .mute(true))
        #expect(Gate.command(remind: false, payload: Array(" off\n".utf8)) == .mute(false))
        #expect(Gate.command(remind: false, payload: Array("On".utf8)) == .mute(true))
        for junk in ["junk", "", "  ", "ON OFF", "ONN", "O\u{1B}N", "\u{202E}ON", "ON" + String(repeating: " ", count: 70)] {
            #expect(Gate.command(remind: false, payload: Array(junk.utf8)) == .notACommand, "\(junk.debugDescription)")
        }
    }

    @Test("REM-1: a reminder from the house at most one per 10 minutes, counted from the one the box took")
    func reminderSpacing() {
        var gate = Gate()
        #expect(gate.admit(.remind, retained: false, at: 100) == .pass)
        gate.reminderTaken(at: 100)
        #expect(gate.admit(.remind, retained: false, at: 160) == .ignored(.reminderTooSoon, tell: true))
        #expect(gate.admit(.remind, retained: false, at: 699) == .ignored(.reminderTooSoon, tell: true))
        #expect(gate.admit(.remind, retained: false, at: 700) == .pass)
        // One the box refused (a quest was running) is not counted: the next goes through.
        #expect(gate.admit(.remind, retained: false, at: 705) == .pass)
        // The mute switch has no such spacing.
        #expect(gate.admit(.mute(true), retained: false, at: 706) == .pass)
    }

    @Test("a flood: five commands a window reach the box, junk and retained never; the first ignored is told, the rest once as a count")
    func flood() {
        var gate = Gate()
        var passed = 0, told = 0
        var counted: [Gate.Reason: Int] = [:]
        // 20,000 commands in 4 s, as the HIL house scenario sends: mostly junk, some switches.
        for i in 0..<20_000 {
            let t = 50 + Double(i) * 0.0002
            let command: Gate.Command = i % 3 == 0 ? .notACommand : .mute(i % 2 == 0)
            switch gate.admit(command, retained: false, at: t) {
            case .pass: passed += 1
            case .ignored(_, tell: true): told += 1
            case .ignored(_, tell: false): break
            }
            #expect(gate.summary(at: t) == nil, "no count while the window runs")
        }
        #expect(passed == Gate.perWindow)
        #expect(told == 1)
        let summary = gate.summary(at: 60)
        for (reason, count) in summary?.counts ?? [:] { counted[reason, default: 0] += count }
        #expect(passed + told + (summary?.total ?? 0) == 20_000, "every command passed, told or counted")
        #expect(counted[.tooMany] ?? 0 > 0 && counted[.notACommand] ?? 0 > 0)
        #expect(gate.summary(at: 61) == nil, "a count is given once")
        // The next window starts fresh.
        #expect(gate.admit(.mute(false), retained: false, at: 62) == .pass)
    }

    @Test("retained commands (a broker's leftovers at reconnect) are never passed")
    func retained() {
        var gate = Gate()
        #expect(gate.admit(.remind, retained: true, at: 0) == .ignored(.retained, tell: true))
        #expect(gate.admit(.mute(true), retained: true, at: 1) == .ignored(.retained, tell: false))
        #expect(gate.summary(at: 10) == Gate.Summary(counts: [.retained: 1]))
        #expect(gate.admit(.mute(true), retained: false, at: 11) == .pass)
    }

    @Test("a time read before the window began (the link's turn starts before its commands come) ends no window")
    func earlierTime() {
        var gate = Gate()
        for _ in 0..<Gate.perWindow { _ = gate.admit(.mute(true), retained: false, at: 100) }
        #expect(gate.admit(.mute(true), retained: false, at: 100.1) == .ignored(.tooMany, tell: true))
        #expect(gate.admit(.mute(true), retained: false, at: 100.2) == .ignored(.tooMany, tell: false))
        #expect(gate.summary(at: 99.9) == nil)
        #expect(gate.admit(.mute(true), retained: false, at: 99.95) == .ignored(.tooMany, tell: false))
        #expect(gate.summary(at: 110) == Gate.Summary(counts: [.tooMany: 2]))
    }
}
