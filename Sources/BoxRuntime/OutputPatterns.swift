import QuestCore

/// The LED and the buzzer: the machine's patterns timed on the monotonic clock from the
/// moment their first value is set, a wiring check's colour (then the machine's pattern
/// again), and the "not saved" cue, played after whatever plays now. Setting a line is the
/// caller's (`setLED`, `setBuzzer`: one ioctl each on the box).
struct OutputPatterns {
    private var led = PatternPlayer<LEDColor>()
    private var buzzer = PatternPlayer<Bool>()
    /// The machine's last LED pattern, shown again after a wiring check.
    private(set) var machineLED: LEDPattern = .off
    private var ledUnderTest = false
    /// The "not saved" cue waits for the buzzer and LED patterns playing now to end.
    private var cue: (buzzer: Bool, led: Bool) = (false, false)
    private let setLED: (LEDColor) -> Void
    private let setBuzzer: (Bool) -> Void

    init(setLED: @escaping (LEDColor) -> Void, setBuzzer: @escaping (Bool) -> Void) {
        self.setLED = setLED
        self.setBuzzer = setBuzzer
    }

    /// The LED value showing now (nil before any pattern).
    var ledShowing: LEDColor? { led.current }

    /// When the LED or the buzzer changes next (nil: both rest).
    var nextChangeAt: MonotonicNanos? {
        switch (led.nextChangeAt, buzzer.nextChangeAt) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
    }

    /// The machine's LED pattern (it ends a wiring check's colour). `lineSet`: its first
    /// colour is on the lines already (set as the press's edge was read).
    mutating func showMachine(_ pattern: LEDPattern, at now: MonotonicNanos, lineSet: Bool = false) {
        machineLED = pattern
        ledUnderTest = false
        if let color = led.start(pattern.sequence, repeats: pattern.repeats, at: now), !lineSet { setLED(color) }
    }

    mutating func buzz(_ pattern: BuzzerPattern, at now: MonotonicNanos) {
        if let on = buzzer.start(pattern.sequence, repeats: false, at: now) { setBuzzer(on) }
    }

    /// A wiring check's colour for 2 s; then the machine's pattern again.
    mutating func testLED(_ color: LEDColor, at now: MonotonicNanos) {
        ledUnderTest = true
        if let first = led.start([(color, 2_000), (.off, 0)], repeats: false, at: now) { setLED(first) }
    }

    /// A play was not saved: a long buzz and three red blinks, each once the pattern
    /// playing now has ended (from the next `playCueWhenFree`, after the step's effects).
    mutating func cueNotSaved() { cue = (true, true) }

    /// Moves both patterns to `now`, ends a wiring check that is over, plays a waiting cue.
    mutating func advance(to now: MonotonicNanos) {
        if let color = led.advance(to: now) { setLED(color) }
        if ledUnderTest && led.nextChangeAt == nil {
            ledUnderTest = false
            if let color = led.start(machineLED.sequence, repeats: machineLED.repeats, at: now) { setLED(color) }
        }
        if let on = buzzer.advance(to: now) { setBuzzer(on) }
        playCueWhenFree(at: now)
    }

    /// The cue after the pattern playing now (the reveal keeps its colours). A repeating LED
    /// pattern (the calm heartbeat of a running task) is left alone; the buzz and the screen
    /// tell it.
    mutating func playCueWhenFree(at now: MonotonicNanos) {
        if cue.buzzer && buzzer.nextChangeAt == nil {
            cue.buzzer = false
            if let on = buzzer.start([(false, 80), (true, 500), (false, 0)], repeats: false, at: now) { setBuzzer(on) }
        }
        if cue.led {
            if led.repeats {
                cue.led = false
            } else if led.nextChangeAt == nil {
                cue.led = false
                let rest = led.current ?? .off
                let blinks: [(value: LEDColor, durationMs: Int)] = [(.red, 150), (.off, 150), (.red, 150), (.off, 150), (.red, 150), (.off, 150), (rest, 0)]
                if let color = led.start(blinks, repeats: false, at: now) { setLED(color) }
            }
        }
    }
}
