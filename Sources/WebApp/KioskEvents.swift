import BoxProtocol
import Foundation
import Hummingbird
import Synchronization

/// The kiosk's live screens as Server-Sent Events, relayed from the box's socket: `screen`
/// events of the kiosk's view (kind, headline, lines; the box's own words, so GAME-2 holds:
/// the box sends no time while a task runs, and nothing here adds one, not even an event id).
///
/// All open pages share one subscription, so phones and kiosks never use up the box's few
/// client places (the CLI needs one to tell the box to reload). One thread holds it while
/// any page is open, blocked in poll(2): it wakes for the box's events and every
/// `keepAliveMs` to write a comment, which is how a page that went away is noticed. With no
/// box, every page gets one `offline` screen and its stream ends: browsers come back after
/// `retry`, so nothing here loops while the box is down.
final class KioskEvents: Sendable {
    let socketPath: String
    let retryMs: Int
    let keepAliveMs: Int32

    private struct State {
        var pages: [UInt64: AsyncStream<ByteBuffer>.Continuation] = [:]
        var nextPage: UInt64 = 0
        var relaying = false
        var descriptor: Int32 = -1       // the relay's socket, for shutting it down early
        var interrupted = false          // shut down here, not closed by the box
        var current: ByteBuffer?         // the last screen, for a page that opens mid-quest
        var setupWaiting = false         // a set-up code waits (PresenceCheck)
    }
    private let state = Mutex(State())

    init(socketPath: String, retryMs: Int = 2_000, keepAliveMs: Int32 = 25_000) {
        self.socketPath = socketPath
        self.retryMs = retryMs
        self.keepAliveMs = keepAliveMs
    }

    func stream() -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            continuation.yield(ByteBuffer(string: "retry: \(retryMs)\n\n"))
            let (page, start) = state.withLock { s -> (UInt64, Bool) in
                let page = s.nextPage
                s.nextPage += 1
                s.pages[page] = continuation
                if let current = s.current { continuation.yield(current) }
                if s.setupWaiting { continuation.yield(Self.setupFrame(waiting: true)) }
                defer { s.relaying = true }
                return (page, !s.relaying)
            }
            continuation.onTermination = { [weak self] _ in self?.pageClosed(page) }
            if start {
                let thread = Foundation.Thread { [self] in relay() }
                thread.name = "kiosk-events"
                thread.start()
            }
        }
    }

    static func frame(_ view: KioskView) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(view)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        // JSON escapes newlines, so the data is one line, as SSE needs.
        return ByteBuffer(string: "event: screen\ndata: \(json)\n\n")
    }

    /// Tells the pages that a set-up code is waiting, or no longer. The frame carries no
    /// code: a page opened on the box itself asks for it (`/kiosk/setup-code`), others cannot.
    func setupWaiting(_ waiting: Bool) {
        state.withLock { s in
            s.setupWaiting = waiting
            for page in s.pages.values { page.yield(Self.setupFrame(waiting: waiting)) }
        }
    }

    static func setupFrame(waiting: Bool) -> ByteBuffer {
        ByteBuffer(string: "event: setup\ndata: {\"waiting\":\(waiting)}\n\n")
    }

    private func pageClosed(_ page: UInt64) {
        state.withLock { s in
            s.pages[page] = nil
            // The last page went: the relay's socket is shut down now, so the box counts one
            // client fewer at once (the descriptor stays open until the relay releases it).
            if s.pages.isEmpty, s.descriptor >= 0 {
                BoxClient.interrupt(descriptor: s.descriptor)
                s.interrupted = true
            }
        }
    }

    private func send(_ frame: ByteBuffer, current: Bool = false) {
        state.withLock { s in
            if current { s.current = frame }
            for page in s.pages.values { page.yield(frame) }
        }
    }

    /// Every page gets `frame` and its stream ends; the relay stops.
    private func endAll(with frame: ByteBuffer) {
        let pages = state.withLock { s in
            defer {
                s.pages = [:]
                s.current = nil
                s.relaying = false
                s.descriptor = -1
                s.interrupted = false
            }
            return Array(s.pages.values)
        }
        // Outside the lock: finishing a stream runs its termination handler, which takes it.
        for page in pages {
            page.yield(frame)
            page.finish()
        }
    }

    private func relay() {
        let client: BoxClient
        do {
            client = try BoxClient(path: socketPath, timeoutMs: 800)
            let reply = try client.request(BoxRequest(command: "subscribe", id: "kiosk"), timeoutMs: 800)
            guard reply.ok != false else { throw BoxProtocolError(reply.error ?? "refused") }
            let open = state.withLock { s -> Bool in
                guard !s.pages.isEmpty else { return false }
                s.descriptor = client.descriptor
                return true
            }
            guard open else { return endAll(with: ByteBuffer()) }
            send(Self.frame(KioskView(.online(reply))), current: true)
        } catch {
            return endAll(with: Self.frame(KioskView(.offline(reason: "\(error)"))))
        }
        while true {
            let incoming: BoxClient.Incoming
            do { incoming = try client.next(timeoutMs: keepAliveMs) } catch { incoming = .closed }
            if state.withLock({ $0.pages.isEmpty }) { return endAll(with: ByteBuffer()) }
            switch incoming {
            case .message(let m) where m.type == "event" && m.event == "screen":
                send(Self.frame(KioskView(.online(m))), current: true)
            case .message:
                continue
            case .timedOut:
                // A comment: browsers ignore it; a page gone makes its write fail.
                send(ByteBuffer(string: ": open\n\n"))
            case .closed:
                // Shut down here as the last page went, and a page came since: it reconnects
                // quietly (keeping its screen) rather than being told the box is offline.
                if state.withLock({ $0.interrupted }) { return endAll(with: ByteBuffer()) }
                return endAll(with: Self.frame(KioskView(.offline(reason: "the box stopped"))))
            }
        }
    }
}
