@testable import BoxRuntime
import QuestCore
import Testing

@Suite("The LED and the buzzer: patterns, a wiring check, the not-saved cue")
struct OutputPatternsTests {
    /// What was set on the lines, in order.
    final class Lines {
        var led: [LEDColor] = []
        var buzzer: [Bool] = []
    }

    func outputs(_ lines: Lines) -> OutputPatterns {
        OutputPatterns(setLED: { lines.led.append($0) }, setBuzzer: { lines.buzzer.append($0) })
    }

    static let ms: MonotonicNanos = 1_000_000

    /// The loop's wake-ups: each change at its time, up to `end`.
    func run(_ o: inout OutputPatterns, to end: MonotonicNanos) {
        while let next = o.nextChangeAt, next <= end { o.advance(to: next) }
        o.advance(to: end)
    }

    @Test("a pattern's first value is set at once; steps follow on time; the next change is the sooner of the two")
    func patterns() {
        let lines = Lines()
        var o = outputs(lines)
        #expect(o.nextChangeAt == nil)
        o.showMachine(.reveal(.off), at: 0)  // yellow 400, off 200, yellow 1800, off
        o.buzz(.tap, at: 10 * Self.ms)  // on 40, off
        #expect(lines.led == [.yellow] && lines.buzzer == [true])
        #expect(o.nextChangeAt == 50 * Self.ms)
        run(&o, to: 50 * Self.ms)
        #expect(lines.buzzer == [true, false])
        #expect(o.nextChangeAt == 400 * Self.ms)
        run(&o, to: 2_399 * Self.ms)
        #expect(lines.led == [.yellow, .off, .yellow])
        run(&o, to: 2_400 * Self.ms)
        #expect(lines.led == [.yellow, .off, .yellow, .off] && o.nextChangeAt == nil)
    }

    @Test("a wiring check's colour lasts 2 s, then the machine's pattern shows again")
    func wiringCheck() {
        let lines = Lines()
        var o = outputs(lines)
        o.showMachine(.estimating, at: 0)  // steady white
        o.testLED(.red, at: 0)
        #expect(lines.led == [.white, .red])
        run(&o, to: 1_999 * Self.ms)
        #expect(lines.led == [.white, .red])
        run(&o, to: 2_000 * Self.ms)
        #expect(lines.led == [.white, .red, .off, .white])
        #expect(o.ledShowing == .white && o.nextChangeAt == nil)
        // A machine pattern during the check ends it: no return to the old one after.
        o.testLED(.blue, at: 3_000 * Self.ms)
        o.showMachine(.reflection, at: 3_100 * Self.ms)
        run(&o, to: 9_000 * Self.ms)
        #expect(lines.led.suffix(2) == [.blue, .green])
    }

    @Test("the not-saved cue waits for the pattern playing; a repeating LED pattern keeps going and only the buzz plays")
    func cue() {
        let lines = Lines()
        var o = outputs(lines)
        o.showMachine(.reveal(.close), at: 0)  // cyan 200, off 100, cyan 200, off 100, cyan 1800, off
        o.buzz(.tap, at: 0)
        o.cueNotSaved()
        o.playCueWhenFree(at: 0)
        #expect(lines.led == [.cyan] && lines.buzzer == [true], "the cue waits for both patterns")
        run(&o, to: 40 * Self.ms)  // the tap ends: the buzz starts (80 ms quiet, then 500 on)
        #expect(lines.buzzer == [true, false, false])
        run(&o, to: 120 * Self.ms)
        #expect(lines.buzzer == [true, false, false, true])
        run(&o, to: 620 * Self.ms)
        #expect(lines.buzzer == [true, false, false, true, false])
        run(&o, to: 2_399 * Self.ms)
        #expect(!lines.led.contains(.red), "the reveal keeps its colours")
        run(&o, to: 2_400 * Self.ms)
        #expect(lines.led.last == .red, "the blinks start once the reveal rests")
        run(&o, to: 3_300 * Self.ms)
        #expect(Array(lines.led.suffix(6)) == [.red, .off, .red, .off, .red, .off])
        #expect(o.nextChangeAt == nil)

        let calm = Lines()
        var running = outputs(calm)
        running.showMachine(.active, at: 0)
        running.cueNotSaved()
        running.playCueWhenFree(at: 0)
        run(&running, to: 3_000 * Self.ms)
        #expect(!calm.led.contains(.red), "the running task's heartbeat is left alone")
        #expect(calm.buzzer.contains(true))
    }
}
