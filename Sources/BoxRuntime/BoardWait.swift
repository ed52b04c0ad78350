import CEventLoop
import Foundation
import Logging
import QuestStore

/// #32: a box with no board stays up and says so, instead of exiting: a fresh install is set
/// up from a phone (the web app's first run stores the board), and the box starts with the
/// board the moment it is chosen, with no restart and no SSH.
public enum BoardWait {
    /// The board the store names, waiting for one if none is chosen yet; nil when SIGTERM or
    /// SIGINT ends the wait. While waiting the box tells systemd it is up (waiting is a steady
    /// state, not a failed start) and feeds its watchdog; it wakes on any write to the data
    /// folder (another program's commit) and, without that watch, every `checkSeconds`.
    public static func board(database: QuestDatabase, directory: String, logger: Logger, checkSeconds: Int32 = 10) throws -> String? {
        if let name = try database.settings.current().boardName { return name }
        let signals = qb_signalfd_term()
        let watch = qb_inotify_directory(directory.isEmpty ? "." : directory)
        defer {
            if signals >= 0 { close(signals) }
            if watch >= 0 { close(watch) }
        }
        do {
            try database.recordBoxStart(BoxStartRecord(state: .waiting, at: Date()))
        } catch {
            logger.warning("the box's wait could not be written down", metadata: ["error": "\(error)"])
        }
        logger.notice("no board chosen: the box waits for one", metadata: [
            "choose": "on the web app (first run, or the parent's settings: Board), or `questbox settings set board NAME` (questbox boards list); QUESTBOX_BOARD in /etc/default/questbox wins where set",
        ])
        _ = qb_sd_notify("READY=1\nSTATUS=Waiting for a board: choose it on the web app")
        let fds = [signals, watch].filter { $0 >= 0 }
        while true {
            var ready = [Int32](repeating: 0, count: max(fds.count, 1))
            _ = qb_poll_readable(fds, Int32(fds.count), checkSeconds * 1000, &ready)
            _ = qb_sd_notify("WATCHDOG=1")
            if signals >= 0, ready[0] != 0 {
                logger.info("stopped while waiting for a board", metadata: ["signal": "\(qb_signalfd_read(signals))"])
                return nil
            }
            if watch >= 0 { _ = qb_inotify_drain(watch) }
            if let name = try database.settings.current().boardName {
                logger.info("board chosen, starting", metadata: ["board": "\(name)"])
                _ = qb_sd_notify("STATUS=Starting with board \(name)")
                return name
            }
        }
    }
}
