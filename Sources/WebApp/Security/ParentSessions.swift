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
        let id = RandomText.hex(bytes: 32)
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
///
/// #47: wrong PINs count per client address: five from one address pause that address (5
/// minutes, doubling at each further pause up to a day), before any hashing, while the parent
/// on her own phone still gets in. The store counts every wrong PIN from anywhere too and
/// closes the area for everyone after `ParentPINRecords.pinAttemptsBeforeLockout` in a row (a
/// stranger with many addresses). Kept in this process: a restart forgets the addresses, never
/// the store's count.
final class PINChecks: Sendable {
    static let maximumWaiting = 4
    static let triesPerClient = 5
    /// Addresses remembered at most; past it the longest unseen without a pause in force go.
    static let maximumClients = 512

    /// What a try comes to: the store's verdict, with a pause said as whose it is.
    enum Verdict: Equatable, Sendable {
        case accepted
        case rejected(attemptsLeft: Int)
        /// This address's own pause (its five wrong tries).
        case addressPaused(seconds: Int)
        /// The store's lockout, for everyone (wrong tries from anywhere).
        case areaClosed(seconds: Int)
        case notSet
    }

    struct ClientTries: Equatable, Sendable {
        var failures = 0
        var pauses = 0
        var pausedUntil: Int64?
        var lastSeen: Int64
    }

    private let queue = DispatchQueue(label: "questbox-web.pin")
    private let waiting = Mutex(0)
    private let clients = Mutex<[String: ClientTries]>([:])
    let database: QuestDatabase
    let clock: any SystemClock

    init(database: QuestDatabase, clock: any SystemClock) {
        self.database = database
        self.clock = clock
    }

    /// The seconds left of `client`'s pause, or nil when it may try.
    func pausedSeconds(client: String) -> Int? {
        let now = clock.monotonicNanos()
        return clients.withLock { table in
            guard let until = table[client]?.pausedUntil, now < until else { return nil }
            return Int((until - now + 999_999_999) / 1_000_000_000)
        }
    }

    /// The verdict for `client`: the store's, or this address's pause; nil when too many
    /// tries are already waiting.
    ///
    /// `atTheBox` (#47): the page's claim was confirmed by the act at the box (and its try
    /// counted there), so neither this address's pause nor the store's lockout stops it.
    func check(_ pin: String, client: String, atTheBox: Bool = false) async throws -> Verdict? {
        if !atTheBox, let seconds = pausedSeconds(client: client) { return .addressPaused(seconds: seconds) }
        guard let verdict = try await storeCheck(pin, atTheBox: atTheBox) else { return nil }
        let now = clock.monotonicNanos()
        switch verdict {
        case .accepted:
            clients.withLock { $0[client] = nil }
            return .accepted
        case .rejected(let storeLeft) where atTheBox:
            return .rejected(attemptsLeft: storeLeft)
        case .rejected(let storeLeft):
            return clients.withLock { table -> Verdict in
                var tries = table[client] ?? ClientTries(lastSeen: now)
                tries.lastSeen = now
                tries.failures += 1
                defer {
                    table[client] = tries
                    Self.bound(&table, now: now)
                }
                guard tries.failures >= Self.triesPerClient else {
                    return .rejected(attemptsLeft: min(storeLeft, Self.triesPerClient - tries.failures))
                }
                let seconds = ParentPINRecords.lockoutSeconds(afterLockouts: tries.pauses)
                tries.failures = 0
                tries.pauses += 1
                tries.pausedUntil = now + seconds * 1_000_000_000
                return .addressPaused(seconds: Int(seconds))
            }
        case .lockedOut(let seconds):
            return .areaClosed(seconds: seconds)
        case .notSet:
            return .notSet
        }
    }

    /// At most `maximumClients` addresses: the longest unseen go first, those not paused now
    /// before those that are (a flood of new addresses cannot free a paused one while others
    /// may go).
    static func bound(_ table: inout [String: ClientTries], now: Int64) {
        guard table.count > maximumClients else { return }
        let order = table.sorted { a, b in
            let pausedA = (a.value.pausedUntil ?? 0) > now, pausedB = (b.value.pausedUntil ?? 0) > now
            return pausedA != pausedB ? !pausedA : a.value.lastSeen < b.value.lastSeen
        }
        for (client, _) in order.prefix(table.count - maximumClients) { table[client] = nil }
    }

    private func storeCheck(_ pin: String, atTheBox: Bool) async throws -> PINCheck? {
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
                continuation.resume(with: Result { try database.parentPIN.verifyPIN(pin, monotonicNanos: clock.monotonicNanos(), bootID: clock.bootID, atTheBox: atTheBox) })
            }
        }
    }
}
