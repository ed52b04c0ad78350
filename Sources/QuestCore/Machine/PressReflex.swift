/// What a press of each button would light, worked out ahead by the machine's own step, so
/// the shell can set the LED from a press's kernel edge before it runs that step (#49: under
/// emulation the step and the loop's other work held the LED back by a millisecond).
///
/// The step stays the truth: the shell runs it right after and sets its LED when the two
/// differ. An entry holds only from `fromNanos` on: before that a debounce window, GAME-8's
/// grace after the box changed screen by itself, or the stop guard after a lock-in may
/// decide the press differently, and the shell waits for the step.
public struct PressReflex: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let pattern: LEDPattern
        public let fromNanos: MonotonicNanos
    }

    /// By `ButtonRole.index`: the lookup on a press hashes nothing.
    let entries: [Entry?]

    /// Every button whose press is known ahead: its pattern, from when on.
    public var presses: [(role: ButtonRole, pattern: LEDPattern, fromNanos: MonotonicNanos)] {
        ButtonRole.allCases.compactMap { role in entries[role.index].map { (role, $0.pattern, $0.fromNanos) } }
    }

    /// The LED a press of `role` stamped `t` lights, when it is known ahead.
    public func pattern(forPressOf role: ButtonRole, at t: MonotonicNanos) -> LEDPattern? {
        guard let entry = entries[role.index], t >= entry.fromNanos else { return nil }
        return entry.pattern
    }
}

extension ButtonRole {
    /// The role's place in `allCases`.
    var index: Int {
        switch self {
        case .lock: 0
        case .stop: 1
        case .up: 2
        case .down: 3
        }
    }
}

extension QuestMachine {
    /// Each button's press stepped on a copy of `state` at `now` (or later, once the press
    /// can no longer be bounce, early or meant for the screen before): the first LED pattern
    /// that step sets.
    public static func pressReflex(_ state: QuestState, env: QuestEnvironment, at now: MonotonicNanos) -> PressReflex {
        PressReflex(entries: ButtonRole.allCases.map { role in
            // A press edge of a button already down is no change: the step decides it.
            guard !state.debouncer.isPressed(role) else { return nil }
            let from = max(now, state.pressDecidedFrom(role))
            let effects = step(state, .button(role, pressed: true, atNanos: from), env: env).effects
            for case .led(let pattern) in effects { return PressReflex.Entry(pattern: pattern, fromNanos: from) }
            return nil
        })
    }
}

extension QuestState {
    /// From when on a press of `role` is played as the state stands: after the line's
    /// debounce window, GAME-8's grace and (a STOP while timing) the stop guard.
    func pressDecidedFrom(_ role: ButtonRole) -> MonotonicNanos {
        var from = MonotonicNanos.min
        if let last = debouncer.lines[role]?.lastAcceptedNanos { from = max(from, last + debouncer.windowNanos) }
        if let changed = changedByItselfAt { from = max(from, changed + QuestMachine.changedByItselfGraceNanos) }
        if role == .stop, case .active(_, _, _, let lock, _) = phase {
            from = max(from, lock + world.settings.stopGuardMs(rules: rules) * 1_000_000)
        }
        return from
    }
}
