import Foundation

/// The box's work off its loop (the start's backup, the USB copy, a hand-back of pages, a read
/// of start-up's): a named thread that runs once and ends. Not a dispatch queue: libdispatch's
/// worker pool, once started, keeps a timer that wakes the idle box every second.
enum BoxThread {
    /// `stackKB`: what the work needs (SQLite's and the Swift runtime's calls fit in 256 KiB),
    /// not the 8 MB a thread otherwise reserves.
    static func start(name: String, stackKB: Int = 256, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread(block: work)
        thread.name = name
        thread.stackSize = stackKB * 1024
        thread.start()
    }
}
