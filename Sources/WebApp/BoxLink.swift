import BoxProtocol
import Foundation
import Synchronization

/// The web app's way to the running box: the daemon's local socket, never its memory.
/// Each question is one short connection, asked off the server's threads (the client
/// blocks); with no daemon the answer is "offline", never an error page.
public struct BoxLink: Sendable {
    public let socketPath: String
    /// How long the box may take to answer before the page says "offline".
    public var timeoutMs: Int32 = 800
    /// The box's state as last asked, shared by every copy of this link.
    let recentState: RecentValue<State>

    /// `stateFreshMs`: how long one `state` answer serves every page that asks.
    public init(socketPath: String, stateFreshMs: Int = 250) {
        self.socketPath = socketPath
        recentState = RecentValue(freshNanos: UInt64(stateFreshMs) * 1_000_000)
    }

    public enum State: Sendable {
        case online(BoxMessage)
        case offline(reason: String)
    }

    /// The box's current screen and status (`state` over the socket). However many pages
    /// ask at once, the box is asked once, and its answer serves for `stateFreshMs`: a flood
    /// of requests to the web costs the box a few connections a second, never one each.
    public func state() async -> State {
        await recentState.get { await ask(BoxRequest(command: "state")) }
    }

    /// Asks the box to re-read the store after a change (`applied`: now or after the quest).
    /// The next `state` is asked anew.
    public func reload() async -> State {
        defer { recentState.forget() }
        return await ask(BoxRequest(command: "reload"))
    }

    /// Why the box could not be reached, for whoever asked over the network: without the
    /// socket's path.
    static func reason(_ error: any Error, socketPath: String) -> String {
        let text = "\(error)"
        return text.hasPrefix(socketPath + ": ") ? String(text.dropFirst(socketPath.count + 2)) : text
    }

    /// Lights, buzzes or sounds one output for the wiring check (`test-output`).
    public func testOutput(_ request: BoxRequest) async -> Result<BoxMessage, Refusal> { await exchange(request) }

    /// Why a request got no yes: no box to ask, or the box said no (its one line).
    public enum Refusal: Error, Sendable {
        case offline(String)
        case refused(String)
    }

    /// One request on a short connection, where a refusal (`ok: false`) is `.offline` with
    /// the box's reason.
    func ask(_ request: BoxRequest) async -> State {
        switch await exchange(request) {
        case .success(let reply): .online(reply)
        case .failure(.offline(let reason)), .failure(.refused(let reason)): .offline(reason: reason)
        }
    }

    /// One request on a short connection, off the server's threads (the client blocks).
    func exchange(_ request: BoxRequest) async -> Result<BoxMessage, Refusal> {
        let path = socketPath, timeout = timeoutMs
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let client = try BoxClient(path: path, timeoutMs: timeout)
                    let reply = try client.request(request, timeoutMs: timeout)
                    continuation.resume(returning: reply.ok == false ? .failure(.refused(reply.error ?? "refused")) : .success(reply))
                } catch {
                    continuation.resume(returning: .failure(.offline(Self.reason(error, socketPath: path))))
                }
            }
        }
    }
}

/// A value made at most once per `freshNanos` however many ask (the box's state, the stats
/// read from five years of history). Askers within its freshness get it as it is; the first
/// asker after it gets it as it was while one new one is made in the background (so no page
/// waits for a re-read under load); with none yet, or after `forget`, askers wait for the one
/// being made.
final class RecentValue<Value: Sendable>: Sendable {
    private struct Held {
        var value: Value?
        var madeAt: UInt64 = 0
        var making = false
        var waiting: [CheckedContinuation<Value?, Never>] = []
        /// Counts `forget`s: a value begun before one is not fresh for those who came after.
        var generation = 0
    }
    private enum Next { case ready(Value), readyAndRenew(Value), wait, make }
    private let held = Mutex(Held())
    let freshNanos: UInt64

    init(freshNanos: UInt64) { self.freshNanos = freshNanos }

    func get(_ make: @escaping @Sendable () async -> Value) async -> Value {
        let now = DispatchTime.now().uptimeNanoseconds
        let (next, generation) = held.withLock { h -> (Next, Int) in
            (Self.next(&h, now: now, freshNanos: freshNanos), h.generation)
        }
        switch next {
        case .ready(let value):
            return value
        case .readyAndRenew(let value):
            Task { await self.made(await make(), generation: generation) }
            return value
        case .wait:
            let made: Value? = await withCheckedContinuation { continuation in
                // Made meanwhile: it is there.
                let value = held.withLock { h -> Value?? in
                    if !h.making { return .some(h.value) }
                    h.waiting.append(continuation)
                    return .none
                }
                if let value { continuation.resume(returning: value) }
            }
            if let made { return made }
            return await get(make)   // forgotten while it was made: make it anew
        case .make:
            let value = await make()
            await self.made(value, generation: generation)
            return value
        }
    }

    private static func next(_ h: inout Held, now: UInt64, freshNanos: UInt64) -> Next {
        if let value = h.value {
            if now &- h.madeAt < freshNanos || h.making { return .ready(value) }
            h.making = true
            return .readyAndRenew(value)
        }
        if h.making { return .wait }
        h.making = true
        return .make
    }

    /// A value begun in `generation` is done: kept and handed to the waiting askers, unless
    /// a `forget` came since (then they ask again, for one begun after it).
    private func made(_ value: Value, generation: Int) async {
        let (waiting, current) = held.withLock { h in
            defer {
                h.waiting = []
                h.making = false
            }
            guard h.generation == generation else { return (h.waiting, false) }
            h.value = value
            h.madeAt = DispatchTime.now().uptimeNanoseconds
            return (h.waiting, true)
        }
        for continuation in waiting { continuation.resume(returning: current ? value : nil) }
    }

    /// The next `get` makes it anew.
    func forget() {
        held.withLock { h in
            h.value = nil
            h.generation += 1
        }
    }
}
