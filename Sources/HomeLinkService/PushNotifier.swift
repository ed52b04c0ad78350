import CPushHTTP
import Foundation
import HomeLink
import Logging
import Synchronization

/// #34: pushes to phones (ntfy: a POST with the text and a Title header), from a worker thread
/// of its own: `send` only queues (at most `capacity`; the oldest waiting goes first when full)
/// and never waits. Each push is tried again after 2, 8 and 30 s; one that still fails is
/// reported once to `failed` (the parent's health page), and the next that goes through to
/// `delivered`.
final class PushNotifier: @unchecked Sendable {
    struct Job: Sendable {
        var url: String
        var message: PushMessage
    }

    static let capacity = 32
    static let retryDelays: [Double] = [2, 8, 30]

    private let logger: Logger
    private let caFile: String?
    private let timeoutMs: Int
    private let delays: [Double]
    private let failed: @Sendable (String) -> Void
    private let delivered: @Sendable () -> Void
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var stopping = false
    private var failing = false
    private var thread: Thread?

    init(
        logger: Logger, caFile: String?, timeoutMs: Int = 10_000, delays: [Double] = PushNotifier.retryDelays,
        failed: @escaping @Sendable (String) -> Void, delivered: @escaping @Sendable () -> Void
    ) {
        self.logger = logger
        self.caFile = caFile
        self.timeoutMs = timeoutMs
        self.delays = delays
        self.failed = failed
        self.delivered = delivered
        let thread = Thread { [unowned self] in self.work() }
        thread.name = "push"
        self.thread = thread
        thread.start()
    }

    /// Queues a push; never blocks.
    func send(_ message: PushMessage, to url: String) {
        condition.lock()
        if queue.count >= Self.capacity {
            let dropped = queue.removeFirst()
            logger.warning("push dropped (too many waiting)", metadata: ["kind": "\(dropped.message.kind)"])
        }
        queue.append(Job(url: url, message: message))
        condition.signal()
        condition.unlock()
    }

    /// Lets the worker end after the push in hand (its retries are given up).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !stopping { condition.wait() }
        return stopping ? nil : queue.removeFirst()
    }

    /// Waits `seconds` unless stopping; false when stopping.
    private func pause(_ seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let until = Date().addingTimeInterval(seconds)
        while !stopping, condition.wait(until: until) {}
        return !stopping
    }

    private func work() {
        while let job = next() {
            var problem = ""
            for attempt in 0...delays.count {
                if attempt > 0, !pause(delays[attempt - 1]) { return }
                guard let p = post(job) else {
                    problem = ""
                    break
                }
                problem = p
                logger.info("push not taken yet", metadata: ["kind": "\(job.message.kind)", "attempt": "\(attempt + 1)", "problem": "\(p)"])
            }
            if problem.isEmpty {
                logger.info("push sent", metadata: ["kind": "\(job.message.kind)"])
                if failing {
                    failing = false
                    delivered()
                }
            } else {
                logger.error("push failed", metadata: ["kind": "\(job.message.kind)", "problem": "\(problem)"])
                if !failing {
                    failing = true
                    failed("\(job.message.kind): \(problem)")
                }
            }
        }
    }

    /// One attempt; nil when the service took it (a 2xx answer), else what went wrong.
    private func post(_ job: Job) -> String? {
        var status = 0
        var error = [CChar](repeating: 0, count: 256)
        let message = job.message
        let rc = qb_push_post(
            job.url, PushMessage.headerSafe(message.title), message.tags, message.body, timeoutMs, caFile, &status, &error, error.count)
        if rc != 0 { return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return (200..<300).contains(status) ? nil : "HTTP \(status)"
    }
}
