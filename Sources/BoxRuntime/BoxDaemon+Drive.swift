import BoxProtocol
import Foundation
import QuestCore

/// The loop's work driven by hand on a fake clock: what `run` does when a descriptor is
/// ready, without `poll` and its timerfds. `Tests/Family` lives a family's weeks through the
/// daemon's own rooms this way (the machine, the persist queue, the store follower, the day's
/// schedule with its reminders, midnight and backups, the socket's commands) in seconds. The
/// box itself always runs `run`.
extension BoxDaemon {
    /// Start-up as `run` does it: unfinished quests closed, the daily backup, the first
    /// screen, a task in progress picked up, the day's timer armed.
    public func startDriven() {
        let resuming = startUp()
        day.backupIfDue(calendar: state.world.calendar)
        offCard?.check()
        day.arm(for: state.world)
        showFirstScreen(resuming: resuming)
    }

    /// When something is next due on the monotonic clock (a machine timer, a write retry, a
    /// store re-check) and on the wall clock (midnight or a reminder). LED and buzzer steps are
    /// left out: they change no state and catch up at the next step.
    public var nextDue: (monotonic: MonotonicNanos?, wall: Date?) {
        let mono = [memory.timers.next?.atNanos, persist.retryAt, follower.recheckAt].compactMap { $0 }.min()
        return (mono, day.armed?.at)
    }

    /// The button edges waiting on the lines, stepped in order (a ready line descriptor).
    public func takeEdges() { _ = tick([.edges(nil)]) }

    /// Everything due at the clocks' current time, as one step of `run`: the day's timer when
    /// its wall time came (the driven box's wall clock is no timerfd's), whatever the store's
    /// watch holds (another program's writes), then the same work as every step.
    public func runDue() {
        let dayDue: [Wake] = if let armed = day.armed, clock.wallNow() >= armed.at {
            [.dayTimer(reason: armed.reminder ? "reminder" : "midnight")]
        } else {
            []
        }
        _ = tick(dayDue + [.storeWatch])
    }

    /// The wall clock was set (the day's timer is cancelled by the kernel then).
    public func wallClockWasSet() { calendarChanged(reason: "wall clock set") }

    /// One request as a socket client's (`reload`, `state`, …), answered.
    public func request(_ request: BoxRequest) -> BoxMessage { handle(request, from: -1) }

    /// Plays the store could not take yet (a full card): kept in memory and retried.
    public var unsavedPlays: Int { persist.waiting }
}
