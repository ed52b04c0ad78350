import Foundation
import CSystemClock

/// The machine's clocks as the shell needs them (§5): wall time for calendar facts only,
/// CLOCK_MONOTONIC for durations, the boot id to know whether monotonic times still compare,
/// and whether the wall clock can be trusted yet (a Pi has no RTC).
public protocol SystemClock: Sendable {
    func wallNow() -> Date
    func monotonicNanos() -> Int64
    var bootID: String { get }
    func isWallClockTrusted() -> Bool
}

/// The real clocks.
///
/// "Trusted" means the kernel says the wall clock is synchronized: `adjtimex(2)` (read-only)
/// returns a state other than TIME_ERROR and STA_UNSYNC is clear — what systemd-timesyncd or
/// chrony set once NTP has synced. `QUESTBOX_CLOCK_TRUSTED=1` or `0` overrides it (for
/// simulation and tests); where the state cannot be read the clock is not trusted.
public struct LiveSystemClock: SystemClock {
    public let bootID: String
    let trustOverride: Bool?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        bootID = Self.readBootID()
        switch environment["QUESTBOX_CLOCK_TRUSTED"] {
        case "1", "true", "yes": trustOverride = true
        case "0", "false", "no": trustOverride = false
        default: trustOverride = nil
        }
    }

    public func wallNow() -> Date { Date() }

    public func monotonicNanos() -> Int64 { questbox_monotonic_nanos() }

    public func isWallClockTrusted() -> Bool {
        trustOverride ?? (questbox_wall_clock_synchronized() == 1)
    }

    /// `/proc/sys/kernel/random/boot_id`: a new value every boot.
    public static func readBootID(path: String = "/proc/sys/kernel/random/boot_id") -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "unknown-boot" }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? "unknown-boot" : id
    }
}

/// A clock the tests move by hand.
public final class FakeSystemClock: SystemClock, @unchecked Sendable {
    private let lock = NSLock()
    private var wall: Date
    private var monotonic: Int64
    private var trusted: Bool
    public let bootID: String

    public init(wall: Date, monotonic: Int64 = 1_000_000_000, bootID: String = "fake-boot", trusted: Bool = true) {
        self.wall = wall
        self.monotonic = monotonic
        self.bootID = bootID
        self.trusted = trusted
    }

    public func wallNow() -> Date { lock.withLock { wall } }
    public func monotonicNanos() -> Int64 { lock.withLock { monotonic } }
    public func isWallClockTrusted() -> Bool { lock.withLock { trusted } }

    /// Time passes: both clocks move together.
    public func advance(seconds: Double) {
        lock.withLock {
            wall = wall.addingTimeInterval(seconds)
            monotonic += Int64((seconds * 1e9).rounded())
        }
    }

    /// The wall clock jumps (NTP sync after boot) without the monotonic clock moving.
    public func setWall(_ date: Date, trusted: Bool) {
        lock.withLock {
            wall = date
            self.trusted = trusted
        }
    }
}
