import Foundation

/// A read of start-up's done on a thread of its own while the loop's thread does another, then
/// waited for: the store's check for unreadable rows (on the writer's connection) beside the
/// world's load (on the one reader), about 100 ms each with five years of play (a `BoxThread`).
final class StartUpRead<Value: Sendable>: @unchecked Sendable {
    private let done = NSCondition()
    private var outcome: Result<Value, any Error>?

    init(name: String, _ work: @escaping @Sendable () throws -> Value) {
        BoxThread.start(name: name, stackKB: 512) { [self] in
            let result = Result { try work() }
            done.lock()
            outcome = result
            done.broadcast()
            done.unlock()
        }
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
