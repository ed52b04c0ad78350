import BoxProtocol
import Foundation
import Hummingbird
import QuestCore
import Synchronization

/// The box's events relayed from its socket to pages as Server-Sent Events, through one
/// `Channel`'s choice of requests and frames: the kiosk's screens, the wiring page's presses.
///
/// All open pages of a relay share one connection, so phones and kiosks never use up the
/// box's few client places (the CLI needs one to tell the box to reload). One thread holds
/// it while any page is open, blocked in poll(2): it wakes for the box's events and every
/// `keepAliveMs` to write a comment, which is how a page that went away is noticed. With no
/// box (or a refusal), every page gets one offline frame and its stream ends: browsers come
/// back after `retry`, so nothing here loops while the box is down.
final class BoxEventRelay: Sendable {
    /// What a relay asks the box for and what its pages are sent.
    struct Channel: Sendable {
        /// Sent in order after connecting; the last reply is the first frame's source.
        var requests: [BoxRequest]
        /// The frame for the last request's reply.
        var first: @Sendable (BoxMessage) -> ByteBuffer
        /// The frame for an event, or nil for none; `current` frames are also kept for a
        /// page that opens later.
        var frame: @Sendable (BoxMessage) -> (frame: ByteBuffer, current: Bool)?
        /// What every page gets when the box cannot be reached, refuses, or stops.
        var offline: @Sendable (_ reason: String) -> ByteBuffer
    }

    let socketPath: String
    let channel: Channel
    let retryMs: Int
    let keepAliveMs: Int32
    /// Told of each event before the pages are (the player's pages forget what they read
    /// when a quest ends on the box, so the home page's next read has its XP).
    let onEvent: @Sendable (BoxMessage) -> Void

    /// #47: the open pages one client address may have; its next one ends its oldest (a
    /// stranger's 260 streams held the web app's every connection).
    static let streamsPerClient = 8

    private struct State {
        var pages: [UInt64: AsyncStream<ByteBuffer>.Continuation] = [:]
        /// Each open page's client address.
        var clients: [UInt64: String] = [:]
        var nextPage: UInt64 = 0
        var relaying = false
        var descriptor: Int32 = -1       // the relay's socket, for shutting it down early
        var interrupted = false          // shut down here, not closed by the box
        var current: ByteBuffer?         // the last current frame, for a page that opens later
        var announced: ByteBuffer?       // `announce`d to stay, for a page that opens later
    }
    private let state = Mutex(State())

    init(socketPath: String, channel: Channel, retryMs: Int = 2_000, keepAliveMs: Int32 = 25_000, onEvent: @escaping @Sendable (BoxMessage) -> Void = { _ in }) {
        self.onEvent = onEvent
        self.socketPath = socketPath
        self.channel = channel
        self.retryMs = retryMs
        self.keepAliveMs = keepAliveMs
    }

    func stream(client: String = "-") -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            continuation.yield(ByteBuffer(string: "retry: \(retryMs)\n\n"))
            let (page, start, evicted) = state.withLock { s -> (UInt64, Bool, [AsyncStream<ByteBuffer>.Continuation]) in
                let page = s.nextPage
                s.nextPage += 1
                s.pages[page] = continuation
                s.clients[page] = client
                if let current = s.current { continuation.yield(current) }
                if let announced = s.announced { continuation.yield(announced) }
                // Past the client's share its oldest pages go (ended outside the lock: an
                // ended stream's termination takes it again).
                let mine = s.clients.filter { $0.value == client }.keys.sorted()
                let evicted = mine.dropLast(Self.streamsPerClient).compactMap { old -> AsyncStream<ByteBuffer>.Continuation? in
                    s.clients[old] = nil
                    return s.pages.removeValue(forKey: old)
                }
                defer { s.relaying = true }
                return (page, !s.relaying, evicted)
            }
            for old in evicted { old.finish() }
            continuation.onTermination = { [weak self] _ in self?.pageClosed(page) }
            if start {
                let thread = Foundation.Thread { [self] in relay() }
                thread.name = "box-event-relay"
                thread.start()
            }
        }
    }

    /// Sends `frame` to every open page; with `keep`, also to pages that open later (until
    /// the next `announce`).
    func announce(_ frame: ByteBuffer, keep: Bool) {
        state.withLock { s in
            s.announced = keep ? frame : nil
            for page in s.pages.values { page.yield(frame) }
        }
    }

    /// One Server-Sent Event: JSON escapes newlines, so its data is one line, as SSE needs.
    static func event(_ name: String, _ value: some Encodable) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ByteBuffer(string: "event: \(name)\ndata: \(json)\n\n")
    }

    /// The pages `client` has open (tests, logs).
    func pagesOpen(client: String) -> Int { state.withLock { s in s.clients.values.filter { $0 == client }.count } }

    private func pageClosed(_ page: UInt64) {
        state.withLock { s in
            s.pages[page] = nil
            s.clients[page] = nil
            // The last page went: the relay's socket is shut down now, so the box counts one
            // client fewer at once (and lets go of what it held for it, as a button check).
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
            var reply = BoxMessage(type: "none")
            for request in channel.requests {
                reply = try client.request(request, timeoutMs: 800)
                guard reply.ok != false else { throw BoxProtocolError(reply.error ?? "refused") }
            }
            let open = state.withLock { s -> Bool in
                guard !s.pages.isEmpty else { return false }
                s.descriptor = client.descriptor
                return true
            }
            guard open else { return endAll(with: ByteBuffer()) }
            send(channel.first(reply), current: true)
        } catch {
            return endAll(with: channel.offline(BoxLink.reason(error, socketPath: socketPath)))
        }
        while true {
            let incoming: BoxClient.Incoming
            do { incoming = try client.next(timeoutMs: keepAliveMs) } catch { incoming = .closed }
            if state.withLock({ $0.pages.isEmpty }) { return endAll(with: ByteBuffer()) }
            switch incoming {
            case .message(let m) where m.type == "event":
                onEvent(m)
                if let (frame, current) = channel.frame(m) { send(frame, current: current) }
            case .message:
                continue
            case .timedOut:
                // A comment: browsers ignore it; a page gone makes its write fail.
                send(ByteBuffer(string: ": open\n\n"))
            case .closed:
                // Shut down here as the last page went, and a page came since: it reconnects
                // quietly (keeping its screen) rather than being told the box is offline.
                if state.withLock({ $0.interrupted }) { return endAll(with: ByteBuffer()) }
                return endAll(with: channel.offline("the box stopped"))
            }
        }
    }
}

extension BoxEventRelay.Channel {
    /// The kiosk's live screens: `screen` events of the kiosk's view (kind, headline, lines;
    /// the box's own words, so GAME-2 holds: the box sends no time while a task runs, and
    /// nothing here adds one, not even an event id). A waiting set-up code is `setup`.
    static let kiosk = Self(
        requests: [BoxRequest(command: "subscribe", id: "kiosk")],
        first: { BoxEventRelay.kioskFrame(KioskView(.online($0))) },
        frame: { m in m.event == "screen" ? (BoxEventRelay.kioskFrame(KioskView(.online(m))), true) : nil },
        offline: { BoxEventRelay.kioskFrame(KioskView(.offline(reason: $0))) })
}

extension BoxEventRelay {
    static func kioskFrame(_ view: KioskView) -> ByteBuffer { event("screen", view) }

    /// Tells the kiosk pages that a set-up code is waiting, or no longer. The frame carries no
    /// code: a page opened on the box itself asks for it (`/kiosk/setup-code`), others cannot.
    func setupWaiting(_ waiting: Bool) { announce(Self.setupFrame(waiting: waiting), keep: waiting) }

    static func setupFrame(waiting: Bool) -> ByteBuffer {
        ByteBuffer(string: "event: setup\ndata: {\"waiting\":\(waiting)}\n\n")
    }
}

extension BoxEventRelay.Channel {
    /// The wiring page's presses: the relay holds a button check on the box (so a press there
    /// starts no quest) for as long as a wiring page is open, and sends `press` events
    /// (`button`, `pressed`) and `check` events (whether the box is listening, and if not why).
    static let wiring = Self(
        requests: [BoxRequest(command: "subscribe", id: "wiring"), BoxRequest(command: "button-check", id: "wiring-check")],
        first: { BoxEventRelay.event("check", WiringCheckStatus(box: $0.box)) },
        frame: { m in
            switch m.event {
            case "press": (BoxEventRelay.event("press", WiringPress(button: m.button ?? "", pressed: m.pressed ?? false)), false)
            case "box": (BoxEventRelay.event("check", WiringCheckStatus(box: m.box)), true)
            default: nil
            }
        },
        offline: { BoxEventRelay.event("check", WiringCheckStatus(listening: false, reason: $0)) })
}

/// Whether the box tells the wiring page its presses, and if not, why.
struct WiringCheckStatus: Encodable {
    var listening: Bool
    var reason: String?

    init(listening: Bool, reason: String?) {
        self.listening = listening
        self.reason = reason
    }

    init(box: BoxStatus?) {
        let held = box?.buttonCheck == true
        let limit = QuestMachine.buttonCheckLimitNanos / 60_000_000_000
        self.init(listening: held, reason: held ? nil : "The check ended (it lasts at most \(limit) minutes). Reload the page to go on.")
    }
}

struct WiringPress: Encodable {
    var button: String
    var pressed: Bool
}
