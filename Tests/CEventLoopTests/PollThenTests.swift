import CEventLoop
import Foundation
import Testing

/// #49: `qb_poll_then` runs its `after` in the poll's own call, with the ready flags, before
/// the caller sees the result (the loop reads and lights a press there).
@Suite("Work done as the poll returns (#49)")
struct PollThenTests {
    /// What `after` saw: the ready flags, and the byte it read from the readable pipe.
    struct Seen {
        var calls = 0
        var ready: [Int32] = []
        var byte: UInt8 = 0
    }

    @Test("after runs once per poll that finds something, sees the flags as written, and reads before the caller; errno is the poll's")
    func afterRunsInThePollsCall() throws {
        var a: [Int32] = [0, 0], b: [Int32] = [0, 0]
        #expect(pipe(&a) == 0 && pipe(&b) == 0)
        defer { [a[0], a[1], b[0], b[1]].forEach { close($0) } }
        var byte: UInt8 = 42
        #expect(write(b[1], &byte, 1) == 1)
        var fds: [Int32] = [a[0], b[0]]
        var want: [Int32] = [0, 0]
        var ready: [Int32] = [0, 0]
        var seen = Seen()
        let after: qb_after_poll = { fds, ready, count, context in
            guard let fds, let ready, let seen = context?.assumingMemoryBound(to: Seen.self) else { return }
            seen.pointee.calls += 1
            seen.pointee.ready = (0..<Int(count)).map { ready[$0] }
            for i in 0..<Int(count) where ready[i] & 1 != 0 {
                var got: UInt8 = 0
                if read(fds[i], &got, 1) == 1 { seen.pointee.byte = got }
            }
            errno = EBADF  // the caller's errno stays the poll's
        }
        errno = 0
        let n = withUnsafeMutablePointer(to: &seen) { qb_poll_then(&fds, &want, 2, 1_000, &ready, after, $0) }
        #expect(n == 1)
        #expect(errno == 0)
        #expect(seen.calls == 1 && seen.ready == [0, 1] && ready == [0, 1])
        #expect(seen.byte == 42, "read in the poll's call")
        // Nothing ready (a timeout): after is not called.
        let none = withUnsafeMutablePointer(to: &seen) { qb_poll_then(&fds, &want, 2, 10, &ready, after, $0) }
        #expect(none == 0 && seen.calls == 1)
        // No after: qb_poll as before.
        #expect(write(a[1], &byte, 1) == 1)
        #expect(qb_poll_then(&fds, &want, 2, 1_000, &ready, nil, nil) == 1 && ready == [1, 0])
    }
}
