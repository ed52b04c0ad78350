import CEventLoop
import Foundation
import Logging
import QuestCore

/// The box's memory around start-up (#36): its code read ahead before start, and what start-up
/// alone used handed back once the box is ready.
enum StartUpMemory {
    /// The program's and libraries' files into the page cache, so the first reveal does not
    /// wait on code read from the SD card (resident memory is unchanged: cached, not mapped).
    static func readCodeAhead(logger: Logger) {
        let files = qb_prefetch_mapped_code()
        logger.debug("code read ahead", metadata: ["files": "\(files)"])
    }

    /// Start-up maps code and read-only data that the box then never runs again (opening the
    /// store, the board profile, the time zone and locale): about 7 of the 19 MB it held once
    /// ready. The mappings go back (the page cache keeps the pages), then the heap start-up
    /// freed. A rehearsed quest maps the quest's own code again at once, so the first press
    /// does not fault it in (first-use work delayed the first reveal by about 30 ms on the
    /// emulated box, and a Pi reads from its SD card); the loop's idle code maps itself back
    /// at its next wake-up.
    static func release(world: QuestWorld, rules: GameRules, wallClock: Date, logger: Logger, after: String = "start-up") {
        let before = qb_resident_kb()
        let segments = qb_release_code_mappings()
        let rehearsed = QuestRehearsal.run(world: world, rules: rules, wallClock: wallClock)
        qb_release_free_memory()
        logger.info("memory released", metadata: [
            "after": "\(after)", "segments": "\(segments)", "rehearsedEffects": "\(rehearsed.count)",
            "residentKB": "\(before) -> \(qb_resident_kb())",
        ])
    }

    /// A quest maps the code of its screens, words and writes (on a speaking box some 3 MB,
    /// HIL figures), and the box then waits for the rest of the day. A minute after it turns
    /// idle those pages go back the same way, on a thread of their own: the loop is never held
    /// (what it runs meanwhile comes back from the page cache), and the next quest is rehearsed
    /// as at start.
    static let afterQuestDelayNanos: MonotonicNanos = 60_000_000_000

    /// On a `BoxThread`. The same after the start's backup, made off the loop once the box was
    /// ready.
    static func releaseInBackground(
        world: QuestWorld, rules: GameRules, wallClock: Date, logger: Logger, after: String, done: @escaping @Sendable () -> Void
    ) {
        BoxThread.start(name: "questbox-memory") {
            release(world: world, rules: rules, wallClock: wallClock, logger: logger, after: after)
            done()
        }
    }
}
