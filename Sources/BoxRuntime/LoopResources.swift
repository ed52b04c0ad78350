import CEventLoop
import Foundation
import GPIO
import QuestCore

/// The loop's own descriptors (its monotonic timerfd, the shutdown eventfd, the signalfd),
/// systemd's watchdog pings and the loop's counters; the descriptors close with it.
final class LoopResources: @unchecked Sendable {
    let timerFD: Int32
    let wakeFD: Int32
    private(set) var signalFD: Int32 = -1
    /// When the box started (CLOCK_MONOTONIC), for its uptime in `state`.
    let startedNanos: MonotonicNanos
    private let watchdogInterval: MonotonicNanos?
    private(set) var nextWatchdogPing: MonotonicNanos?
    // Read from other threads (tests, the figures): behind a lock.
    private let counters = NSLock()
    private var wakeupCount = 0
    private var releaseCount = 0

    init(startedNanos: MonotonicNanos) throws {
        self.startedNanos = startedNanos
        timerFD = qb_timerfd_create()
        wakeFD = qb_eventfd_create()
        guard timerFD >= 0, wakeFD >= 0 else {
            for fd in [timerFD, wakeFD] where fd >= 0 { close(fd) }
            throw GPIOFailure("cannot create the event loop's descriptors: \(String(cString: strerror(errno)))")
        }
        if let usec = ProcessInfo.processInfo.environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogInterval = usec * 1_000 / 2  // ping at half the interval systemd expects
        } else {
            watchdogInterval = nil
        }
    }

    deinit {
        for fd in [timerFD, wakeFD, signalFD] where fd >= 0 { close(fd) }
    }

    /// SIGTERM and SIGINT come through a descriptor of the loop's.
    func watchSignals() throws {
        signalFD = qb_signalfd_term()
        guard signalFD >= 0 else { throw GPIOFailure("cannot watch SIGTERM/SIGINT: \(String(cString: strerror(errno)))") }
    }

    /// The first watchdog ping is due an interval after `now` (none without systemd's watchdog).
    func startWatchdog(at now: MonotonicNanos) { nextWatchdogPing = watchdogInterval.map { now + $0 } }

    /// Pings systemd's watchdog when due.
    func pingWatchdogIfDue(at now: MonotonicNanos) {
        guard let ping = nextWatchdogPing, ping <= now, let interval = watchdogInterval else { return }
        _ = qb_sd_notify("WATCHDOG=1")
        nextWatchdogPing = now + interval
    }

    func countWakeup() { counters.withLock { wakeupCount += 1 } }
    func countRelease() { counters.withLock { releaseCount += 1 } }
    var wakeups: Int { counters.withLock { wakeupCount } }
    var releases: Int { counters.withLock { releaseCount } }
}
