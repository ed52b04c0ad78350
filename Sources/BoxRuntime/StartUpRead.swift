import Foundation

/// A read of start-up's done on a thread of its own while the loop's thread does another, then
/// waited for: the store's check for unreadable rows (on the writer's connection) beside the
/// world's load (on the one reader), about 100 ms each with five years of play. A thread that
/// ends, not a dispatch queue: libdispatch's worker pool keeps a timer that wakes the idle box.
final class StartUpRead<Value: Sendable>: @unchecked Sendable {
    private let done = NSCondition()
    private var outcome: Result<Value, any Error>?

    init(name: String, _ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let result = Result { try work() }
            done.lock()
            outcome = result
            done.broadcast()
            done.unlock()
        }
        thread.name = name
        thread.stackSize = 512 * 1024
        thread.start()
    }

    /// The read's value, once it is done (its error rethrown).
    func value() throws -> Value {
        done.lock()
        defer { done.unlock() }
        while true {
            if let outcome { return try outcome.get() }
            done.wait()
        }
    }
}
