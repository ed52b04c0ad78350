import BoxProtocol
import CEventLoop
import GPIO
import Logging
import QuestCore

/// Edge intake: the button lines' edges with the kernel's CLOCK_MONOTONIC timestamps, the
/// level read that settles a debounce window, and buttons pushed over the socket (simulated
/// boards), whose level reads as pressed while they are held.
struct EdgeIntake {
    let board: BoardGPIO
    let logger: Logger
    /// Buttons held down over the socket (`press` down … up).
    private(set) var socketHeld: Set<ButtonRole> = []

    init(board: BoardGPIO, logger: Logger) {
        self.board = board
        self.logger = logger
    }

    /// The descriptors `poll` watches for edges.
    var descriptors: [Int32] { board.pollDescriptors }

    /// The read the loop's poll makes of the lines as it returns (the edges then taken by
    /// `edges(from:)`), lighting a press when `lighting`.
    func readAheadOnPoll(lighting: Bool) -> PollReadAhead? { board.readAheadOnPoll(lighting: lighting) }

    /// Presses whose LED the poll's read set.
    var pressesLitByPoll: Int { board.pressesLitByPoll }

    /// The edges waiting on one line's descriptor (a read that fails is one log line). With
    /// `lightingAhead`, a first edge that is a press the board's armed lights cover has its LED
    /// set by the read itself (`litAhead`: the colour).
    func edges(from fd: Int32, lightingAhead: Bool = false) -> (edges: [ButtonEdge], litAhead: LEDColor?) {
        do {
            let (edges, lit) = try board.readButtonEdges(from: fd, lightingAhead: lightingAhead)
            for edge in edges {
                logger.debug("edge", metadata: ["button": "\(edge.role)", "pressed": "\(edge.pressed)", "ns": "\(edge.atNanos)"])
            }
            return (edges, lit)
        } catch {
            logger.error("reading buttons failed", metadata: ["error": "\(error)"])
            return ([], nil)
        }
    }

    /// Every edge already waiting on any line, without blocking: a level read must come after
    /// them, as it is newer.
    func waitingEdges() -> [ButtonEdge] {
        var fds = board.pollDescriptors
        var ready = [Int32](repeating: 0, count: fds.count)
        guard qb_poll_readable(&fds, Int32(fds.count), 0, &ready) > 0 || fds.contains(where: board.holdsReadAhead) else { return [] }
        // What the poll's read holds first (older), then what came since.
        return fds.indices.flatMap { i in
            (board.holdsReadAhead(fds[i]) ? edges(from: fds[i]).edges : []) + (ready[i] != 0 ? edges(from: fds[i]).edges : [])
        }
    }

    /// The button's level now: its line, or held over the socket.
    func level(of role: ButtonRole) throws -> Bool {
        try board.isPressed(role) || socketHeld.contains(role)
    }

    /// A push over the socket; returns whether the machine sees the button go down or up.
    mutating func push(_ role: ButtonRole, _ action: SocketPress) -> Bool {
        switch action {
        case .down:
            socketHeld.insert(role)
            return true
        case .up:
            socketHeld.remove(role)
            return false
        case .tap:
            socketHeld.remove(role)
            return true
        }
    }
}

/// One edge of a button line, stamped by the kernel.
typealias ButtonEdge = (role: ButtonRole, pressed: Bool, atNanos: MonotonicNanos)
