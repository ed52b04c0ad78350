import BoxProtocol
import QuestCore

/// #33: the touch kiosks' presses on their way to the box. Each is one short connection, so
/// two sent at once could reach the box the other way round (a tap's "up" before its "down"
/// leaves the button held, and the next press only lets it go). Here they go one at a time,
/// in the order they came, and the buttons each kiosk holds are known: unpairing a kiosk
/// lets its buttons go, and so does a hold that is never lifted (the page closed, its Wi-Fi
/// gone) after `holdLimitNanos`.
actor KioskPresses {
    /// Longer than any hold the box asks for (GAME-7's 3 s; UP/DOWN repeating through the
    /// whole range of guesses); a finger on the glass that long is a page that went away.
    static let defaultHoldLimitNanos: UInt64 = 30_000_000_000

    typealias Answer = Result<BoxMessage, BoxLink.Refusal>

    let box: BoxLink
    let holdLimitNanos: UInt64
    /// Waits out a hold's limit (a test opens it when it likes).
    let waitOut: @Sendable (UInt64) async -> Void
    /// Holds whose limit is still running or whose let-go has not yet been decided.
    private(set) var limitsRunning = 0
    /// The buttons each kiosk (by its pairing's id) holds down on the box, each with its
    /// down's number: a hold that ends is never let go again by its own time limit.
    private var holds: [Int64: [ButtonRole: UInt64]] = [:]
    private var nextHold: UInt64 = 0
    /// The last press or let-go on its way: the next one waits for it.
    private var last: Task<Void, Never>?

    /// The buttons each kiosk holds down on the box.
    var held: [Int64: Set<ButtonRole>] { holds.mapValues { Set($0.keys) } }

    init(box: BoxLink, holdLimitNanos: UInt64 = KioskPresses.defaultHoldLimitNanos,
         waitOut: @escaping @Sendable (UInt64) async -> Void = { try? await Task.sleep(nanoseconds: $0) }) {
        self.box = box
        self.holdLimitNanos = holdLimitNanos
        self.waitOut = waitOut
    }

    /// Sends one press of the kiosk `kiosk()` names (its pairing's id, nil when it may not
    /// press), after every press before it. The kiosk is looked up in turn, so a kiosk
    /// unpaired meanwhile presses nothing: nil is the answer then.
    func press(_ button: ButtonRole, _ action: SocketPress, kiosk: @escaping @Sendable () throws -> Int64?) async throws -> Answer? {
        try await inTurn { presses in try await presses.send(button, action, kiosk: kiosk) }
    }

    /// The buttons kiosk `id` holds go up on the box (it was unpaired).
    func letGo(kiosk id: Int64) async {
        _ = try? await inTurn { presses in await presses.release(kiosk: id, only: nil) }
    }

    /// `work` runs once the one before it has finished; the order is the order of the calls
    /// (an actor's method runs up to its first `await` without interleaving).
    private func inTurn<T: Sendable>(_ work: @escaping @Sendable (KioskPresses) async throws -> T) async throws -> T {
        let before = last
        let task = Task { [self] in
            await before?.value
            return try await work(self)
        }
        last = Task { _ = try? await task.value }
        return try await task.value
    }

    private func send(_ button: ButtonRole, _ action: SocketPress, kiosk: @Sendable () throws -> Int64?) async throws -> Answer? {
        guard let id = try kiosk() else { return nil }
        let answer = await box.exchange(BoxRequest(command: "touch", button: button.rawValue, action: action.rawValue))
        switch action {
        case .down:
            guard case .success = answer else { break }
            // #47: a down re-sent while the button is held is the same hold: its limit counts
            // from the first down (a kiosk re-sending every 20 s held STOP for ever).
            guard holds[id]?[button] == nil else { break }
            nextHold += 1
            holds[id, default: [:]][button] = nextHold
            expire(kiosk: id, button: button, hold: nextHold)
        case .up, .tap:
            forget(kiosk: id, button: button)
        }
        return answer
    }

    /// After the limit, the hold (if it is still this one) is let go, in turn.
    private func expire(kiosk id: Int64, button: ButtonRole, hold: UInt64) {
        let limit = holdLimitNanos, waitOut = waitOut
        limitsRunning += 1
        Task { [self] in
            await waitOut(limit)
            _ = try? await inTurn { presses in
                await presses.release(kiosk: id, only: (button, hold))
                await presses.limitEnded()
            }
        }
    }

    private func limitEnded() { limitsRunning -= 1 }

    /// Sends "up" for the kiosk's held buttons (or one hold of them, if it is still held).
    private func release(kiosk id: Int64, only: (button: ButtonRole, hold: UInt64)?) async {
        var buttons = held[id] ?? []
        if let only {
            guard holds[id]?[only.button] == only.hold else { return }
            buttons = [only.button]
        }
        for button in ButtonRole.allCases where buttons.contains(button) {
            forget(kiosk: id, button: button)
            _ = await box.exchange(BoxRequest(command: "touch", button: button.rawValue, action: SocketPress.up.rawValue))
        }
    }

    private func forget(kiosk id: Int64, button: ButtonRole) {
        holds[id]?[button] = nil
        if holds[id]?.isEmpty == true { holds[id] = nil }
    }
}
