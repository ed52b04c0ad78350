import Foundation
import Hummingbird
import QuestStore
import Synchronization
import SystemClock

/// Who is in the parent's area (PAR-1): a random id per signed-in browser, kept in this
/// process only (a restart signs everyone out), carried by an HttpOnly, SameSite=Strict
/// cookie. A session ends after 30 minutes unused or 12 hours in all, on sign-out, and
/// every session ends when the PIN is set anew. Times are CLOCK_MONOTONIC: a wall clock
/// that jumps neither ends nor extends one.
final class ParentSessions: Sendable {
    static let cookieName = "questbox_parent"
    static let idleNanos: Int64 = 30 * 60 * 1_000_000_000
    static let lifetimeNanos: Int64 = 12 * 3600 * 1_000_000_000
    /// A few phones and a kiosk; past this the least recently used session ends.
    static let maximumSessions = 16

    private struct Session { var opened: Int64; var lastSeen: Int64 }
    private let sessions = Mutex<[String: Session]>([:])
    let clock: any SystemClock

    init(clock: any SystemClock) { self.clock = clock }

    /// A new session and the cookie that carries it.
    func open() -> Cookie {
        let id = CSRFTokens.randomHex(bytes: 32)
        let now = clock.monotonicNanos()
        sessions.withLock { all in
            all = all.filter { Self.isLive($0.value, now: now) }
            if all.count >= Self.maximumSessions, let oldest = all.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
                all[oldest] = nil
            }
            all[id] = Session(opened: now, lastSeen: now)
        }
        return Cookie(
            name: Self.cookieName, value: id, maxAge: Int(Self.lifetimeNanos / 1_000_000_000), path: "/", httpOnly: true, sameSite: .strict)
    }

    /// True when the request carries a live session (which counts as a use of it).
    func isSignedIn(_ request: Request) -> Bool {
        guard let id = request.cookies[Self.cookieName]?.value else { return false }
        let now = clock.monotonicNanos()
        return sessions.withLock { all in
            guard let session = all[id] else { return false }
            guard Self.isLive(session, now: now) else {
                all[id] = nil
                return false
            }
            all[id]?.lastSeen = now
            return true
        }
    }

    func close(_ request: Request) {
        guard let id = request.cookies[Self.cookieName]?.value else { return }
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    func closeAll() { sessions.withLock { $0 = [:] } }

    /// The cookie that makes the browser forget its session.
    static var expiredCookie: Cookie {
        Cookie(name: cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict)
    }

    private static func isLive(_ s: Session, now: Int64) -> Bool {
        now - s.lastSeen < idleNanos && now - s.opened < lifetimeNanos
    }
}

/// PIN checks one at a time, off the server's threads: each is a slow hash with 16 MiB of
/// memory (scrypt), so a flood of tries neither fills the memory nor the event loops. Past
/// a few waiting, a try is turned away (429) before it is hashed.
final class PINChecks: Sendable {
    static let maximumWaiting = 4
    private let queue = DispatchQueue(label: "questbox-web.pin")
    private let waiting = Mutex(0)
    let database: QuestDatabase
    let clock: any SystemClock

    init(database: QuestDatabase, clock: any SystemClock) {
        self.database = database
        self.clock = clock
    }

    /// The store's verdict, or nil when too many tries are already waiting.
    func check(_ pin: String) async throws -> PINCheck? {
        let admitted = waiting.withLock { count -> Bool in
            guard count < Self.maximumWaiting else { return false }
            count += 1
            return true
        }
        guard admitted else { return nil }
        defer { waiting.withLock { $0 -= 1 } }
        let database = database, clock = clock
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try database.verifyPIN(pin, monotonicNanos: clock.monotonicNanos(), bootID: clock.bootID) })
            }
        }
    }
}
