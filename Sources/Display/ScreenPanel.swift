import CDisplay
import CSystemClock
import Glibc
import QuestCore
import ScreenRender

/// The running box's screen: draws the core's screens on a `BoxScreen` from a thread of its
/// own, so a full OLED frame (≈28 ms of I2C at 400 kHz) never holds up the event loop that
/// timestamps the next press. Only the newest screen is drawn: one that is replaced before
/// its turn is skipped. The panel goes dark after `idleOffNanos` without a screen or a press
/// (OLED burn-in) and lights at the next one. A failing screen is reported once, and again
/// only when it answers after that; the box goes on either way.
///
/// At night (`night`, wall-clock hours) it is dark unless a press lights it: new screens are
/// drawn but stay dark, and a press lights it for `nightLitNanos` (or the idle time if
/// shorter). With no idle limit it lights again when the night ends.
///
/// Idle, the thread sleeps on a condition variable with no timeout (lit with no idle limit,
/// or dark): a static screen costs no wake-ups. Lit with a limit, it wakes once, to go dark;
/// with night hours, once more where night begins or (always lit by day) ends.
public final class ScreenPanel: @unchecked Sendable {
    /// Whether it is night now, and in how many nanoseconds that changes (at least 1 s).
    public typealias NightClock = @Sendable () -> (isNight: Bool, nanosUntilChange: Int64)

    // Everything below `mutex` is read and written with it held; `screen` only by the thread.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending: (screen: Screen, notice: String?)?
    private var woken = false
    private var lastActivity: Int64
    private var stopping = false
    private var running = false
    private var drawn = 0
    private var dark = false

    private let screen: BoxScreen
    private let width: Int
    private let height: Int
    private let idleOffNanos: Int64?
    private let report: @Sendable (String) -> Void
    private let night: NightClock?
    private let nightLitNanos: Int64
    private var thread = pthread_t()
    private var failing = false

    /// `idleOffNanos`: nil or 0 keeps it lit. `night`: nil for no night hours.
    /// `report`: one line for the log.
    public init(
        screen: BoxScreen, width: Int, height: Int, idleOffNanos: Int64?,
        night: NightClock? = nil, nightLitNanos: Int64 = 60_000_000_000,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.night = night
        self.nightLitNanos = max(1, nightLitNanos)
        self.screen = screen
        self.width = width
        self.height = height
        self.idleOffNanos = idleOffNanos.flatMap { $0 > 0 ? $0 : nil }
        self.report = report
        lastActivity = Self.monotonicNow()
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines on CLOCK_MONOTONIC: setting the wall clock must not light or darken it.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        stop()
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Starts the drawing thread; false (and one report) when the system refuses a thread.
    @discardableResult
    public func start() -> Bool {
        locked { guard !running else { return true }
            let box = Unmanaged.passRetained(self)
            // The thread starts with every signal blocked (it inherits the mask it is created
            // with): SIGTERM must reach the event loop's signalfd, never end the process here.
            var all = sigset_t(), previous = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_SETMASK, &all, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            let result = pthread_create(&thread, nil, { argument in
                guard let argument else { return nil }
                let panel = Unmanaged<ScreenPanel>.fromOpaque(argument).takeRetainedValue()
                panel.drawLoop()
                return nil
            }, box.toOpaque())
            guard result == 0 else {
                box.release()
                report("display: no thread to draw on (\(String(cString: strerror(result)))): the box goes on without its screen")
                return false
            }
            running = true
            return true
        }
    }

    /// Draws `screen` as soon as the thread gets to it (after the LED, buzzer and sound the
    /// event loop has already set), lighting the panel if it was dark. `notice`: a line the
    /// box adds below any screen (a play not saved yet), as on every surface.
    public func show(_ screen: Screen, notice: String? = nil) {
        locked {
            pending = (screen, notice)
            lastActivity = Self.monotonicNow()
            pthread_cond_signal(condition)
        }
    }

    /// A press or a reminder that changed nothing on the screen: light it again if dark.
    public func wake() {
        locked {
            lastActivity = Self.monotonicNow()
            if dark { woken = true }
            pthread_cond_signal(condition)
        }
    }

    /// Ends the thread after the frame it is drawing; the screen keeps what it shows.
    public func stop() {
        let wasRunning: Bool = locked {
            stopping = true
            pthread_cond_signal(condition)
            return running
        }
        if wasRunning {
            pthread_join(thread, nil)
            locked { running = false }
        }
    }

    /// How many screens have been drawn, and whether the panel is dark (tests, figures).
    public var state: (drawn: Int, dark: Bool) { locked { (drawn, dark) } }

    /// Waits (up to `seconds`) until `drawn` screens were drawn and nothing is pending.
    public func waitUntilDrawn(_ count: Int, seconds: Double) -> Bool {
        let deadline = Self.monotonicNow() + Int64(seconds * 1e9)
        return locked {
            while drawn < count || pending != nil {
                if Self.monotonicNow() >= deadline { return false }
                waitLocked(until: deadline)
            }
            return true
        }
    }

    // MARK: the drawing thread

    private enum Work { case draw(Screen, notice: String?, light: Bool), light, darken, end }

    private func drawLoop() {
        // Its own name in /proc/PID/task/*/comm: the HIL counts this thread's wake-ups.
        qb_display_name_thread("questbox-screen")
        while true {
            switch nextWork() {
            case .end: return
            case .draw(let next, let notice, let light):
                let frame = ScreenRenderer.render(next, notice: notice, width: width, height: height)
                attempt { try screen.show(frame); if light { try screen.setOn(true) } }
                locked { drawn += 1; pthread_cond_broadcast(condition) }
            case .light: attempt { try screen.setOn(true) }
            case .darken: attempt { try screen.setOn(false) }
            }
        }
    }

    /// Sleeps until there is something to do: a screen, a wake-up, the idle deadline, the
    /// night's edges, the end.
    private func nextWork() -> Work {
        locked {
            while true {
                if stopping { return .end }
                let now = Self.monotonicNow()
                // Never closer than 1 ms: a clock that says "now" must not spin the thread.
                let hours = night.map { clock in let h = clock(); return (isNight: h.isNight, nanosUntilChange: max(h.nanosUntilChange, 1_000_000)) }
                let isNight = hours?.isNight ?? false
                if let next = pending {
                    pending = nil
                    let pressed = woken
                    woken = false
                    // At night a screen alone does not light the glass; a press does.
                    let light = dark && (pressed || !isNight)
                    if light { dark = false }
                    return .draw(next.screen, notice: next.notice, light: light)
                }
                if woken {
                    woken = false
                    if dark { dark = false; return .light }
                }
                if dark {
                    // Always lit by day: dark only for the night, lit again when it ends.
                    if idleOffNanos == nil, let hours {
                        if !hours.isNight { dark = false; return .light }
                        waitLocked(until: now + hours.nanosUntilChange)
                    } else {
                        pthread_cond_wait(condition, mutex)
                    }
                    continue
                }
                var deadline: Int64? = nil
                if isNight {
                    deadline = lastActivity + min(idleOffNanos ?? nightLitNanos, nightLitNanos)
                } else {
                    if let idle = idleOffNanos { deadline = lastActivity + idle }
                    if let hours { deadline = min(deadline ?? .max, now + hours.nanosUntilChange) }
                }
                guard let deadline else {
                    pthread_cond_wait(condition, mutex)
                    continue
                }
                if now >= deadline {
                    // A day deadline that was night's edge, with no idle time spent: loop,
                    // and the night's shorter limit decides.
                    let idleSpent = idleOffNanos.map { now >= lastActivity + $0 } ?? false
                    if !isNight && !idleSpent { continue }
                    dark = true
                    return .darken
                }
                waitLocked(until: deadline)
            }
        }
    }

    private func attempt(_ write: () throws -> Void) {
        do {
            try write()
            if failing {
                failing = false
                report("display: \(screen.summary) answers again")
            }
        } catch {
            if !failing {
                failing = true
                report("display: \(error) — the box goes on without its screen and tries again at the next screen")
            }
        }
    }

    // MARK: locking and time

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func waitLocked(until deadline: Int64) {
        var at = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = pthread_cond_timedwait(condition, mutex, &at)
    }

    /// The box's CLOCK_MONOTONIC reading, the clock the condition variable waits on.
    static func monotonicNow() -> Int64 { questbox_monotonic_nanos() }
}
