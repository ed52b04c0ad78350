import Foundation
import QuestCore

/// What the loop keeps between the machine's steps besides the machine's own state.
struct StepMemory {
    var timers = TimerQueue()
    /// The last screen the machine showed, to show again when the save status changes.
    var lastScreen: Screen?
    /// A change arrived during a quest: it applies when the box is idle again.
    var pendingReload = false
    /// The id the next step may give a play, drawn at the end of `perform`, after the lines
    /// were set: getrandom(2) is a system call, not to be made between an edge and its LED.
    var nextID: UUID
    /// When the pages a quest mapped go back (#36): a while after the box turned idle.
    var pagesBackAt: MonotonicNanos?
    /// How long after a quest they go back (tests shorten it).
    var pagesBackAfterQuestNanos = StartUpMemory.afterQuestDelayNanos

    /// #49: what a press of each button lights, worked out at the end of the tick that last
    /// changed the state (nil: not yet), so a press's LED is set before its step runs.
    var reflex: PressReflex?
    /// Presses whose LED the reflex set (of them, those the board set as their edge was read),
    /// and those where the step then lit another (a defect).
    var litAhead = 0
    var litAsRead = 0
    var reflexMisses = 0

    init(nextID: UUID) { self.nextID = nextID }

    /// The box went idle or left it: a quest that ended starts the pages' wait; a quest in
    /// play keeps them.
    mutating func idleChanged(toIdle: Bool, at now: MonotonicNanos) {
        pagesBackAt = toIdle ? now + pagesBackAfterQuestNanos : nil
    }

    /// Whether the pages are due to go back at `now` (once).
    mutating func pagesBackDue(at now: MonotonicNanos) -> Bool {
        guard let at = pagesBackAt, at <= now else { return false }
        pagesBackAt = nil
        return true
    }
}
