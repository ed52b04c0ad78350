import CGPIOD
import Foundation

/// Edges read by the poll's own C call the moment it returns (#49): in a VM figures run the
/// loop spent ~0.4 ms between getting a CPU and the read that lights a press, in the poll's
/// return and the Swift that maps its wakes. CEventLoop's `qb_poll_then` calls
/// `qb_read_ready_edges` on this table; `BoardGPIO` then hands out the entries in place of
/// reading. Kept in C memory, one entry per libgpiod descriptor, each with its own events.
final class EdgeReadAhead {
    let table: UnsafeMutablePointer<qb_reads_ahead>
    private let entries: UnsafeMutablePointer<qb_read_ahead>
    private let indexOfDescriptor: [Int32: Int]
    /// Presses lit by the C read these entries made (the loop's shutdown line).
    private(set) var pressesLit = 0

    /// Nil with no libgpiod descriptors, or more than the table holds.
    init?(_ descriptors: [(fd: Int32, request: LiveGPIORequest)]) {
        guard !descriptors.isEmpty, descriptors.count <= Int(QB_READ_AHEAD_FDS) else { return nil }
        table = .allocate(capacity: 1)
        table.initialize(to: qb_reads_ahead())
        // The entries are the struct's first field, a fixed C array.
        entries = UnsafeMutableRawPointer(table).bindMemory(to: qb_read_ahead.self, capacity: Int(QB_READ_AHEAD_FDS))
        var index: [Int32: Int] = [:]
        for (k, d) in descriptors.enumerated() {
            entries[k].request = d.request.handle
            entries[k].fd = d.fd
            entries[k].state = Int32(QB_READ_AHEAD_EMPTY)
            index[d.fd] = k
        }
        table.pointee.entry_count = descriptors.count
        indexOfDescriptor = index
    }

    deinit { table.deallocate() }

    /// Before a poll: the lights its read may set (nil: none).
    func prepare(plan: UnsafeMutablePointer<qb_press_lights>?) {
        table.pointee.plan = UnsafePointer(plan)
    }

    /// Whether the poll's call read this descriptor and the loop has not taken it yet.
    func holds(_ fd: Int32) -> Bool {
        indexOfDescriptor[fd].map { entries[$0].state == Int32(QB_READ_AHEAD_FULL) } ?? false
    }

    /// The edges the poll's call read from `fd` (and the light it set for the first), taken:
    /// nil when it read nothing there. A failed read throws its error once.
    func take(_ fd: Int32) throws -> (edges: [GPIOEdge], lit: Int?)? {
        guard let k = indexOfDescriptor[fd], entries[k].state == Int32(QB_READ_AHEAD_FULL) else { return nil }
        entries[k].state = Int32(QB_READ_AHEAD_EMPTY)
        let n = Int(entries[k].count)
        guard n >= 0 else {
            throw GPIOFailure("reading GPIO events failed: \(String(cString: strerror(entries[k].error)))")
        }
        let edges = withUnsafeBytes(of: &entries[k].events) { raw in
            raw.bindMemory(to: qb_edge_event.self).prefix(min(n, Int(QB_READ_AHEAD_EVENTS))).map {
                GPIOEdge(offset: $0.offset, rising: $0.rising != 0, timestampNanos: Int64(bitPattern: $0.timestamp_ns))
            }
        }
        let lit = entries[k].lit >= 0 ? Int(entries[k].lit) : nil
        if lit != nil { pressesLit += 1 }
        return (edges, lit)
    }
}

/// What the loop's poll runs the moment it returns (`qb_poll_then`'s `after` and `context`).
public struct PollReadAhead {
    public let after: @convention(c) (UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32, UnsafeMutableRawPointer?) -> Void
    public let context: UnsafeMutableRawPointer
}
