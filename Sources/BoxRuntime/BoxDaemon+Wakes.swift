import CEventLoop
import QuestCore

/// What `run`'s `poll` waits on, and what each ready descriptor is for (`tick` takes it from
/// there).
extension BoxDaemon {
    /// What woke the loop: a ready descriptor, by what it is for.
    enum Wake {
        /// Button edges on a line (nil: whatever waits on any line).
        case edges(Int32?)
        /// `requestShutdown`, or SIGTERM/SIGINT (the signal's number).
        case shutdown(signal: Int32?)
        /// The monotonic timerfd: what is due runs at the end of every tick anyway.
        case monotonicTimer
        case dayTimer(reason: String)
        case storeWatch
        case sticks
        case client(Int32, ready: Int32)
    }

    /// The descriptors `poll` waits on, each with what it waits for (1: writable too, 4: the
    /// mount table's priority event).
    func pollSet() -> (fds: [Int32], wantWrite: [Int32]) {
        let watchFD = follower.watchFD
        var fds = hardware.intake.descriptors + [loop.timerFD, day.timerFD, loop.wakeFD]
            + (loop.signalFD >= 0 ? [loop.signalFD] : []) + (watchFD >= 0 ? [watchFD] : [])
        var wantWrite = [Int32](repeating: 0, count: fds.count)
        if let offCard, offCard.watchFD >= 0 {
            fds.append(offCard.watchFD)
            wantWrite.append(4)
        }
        for entry in server?.pollEntries ?? [] {
            fds.append(entry.fd)
            wantWrite.append(entry.wantWrite ? 1 : 0)
        }
        return (fds, wantWrite)
    }

    func wake(for fd: Int32, ready: Int32) -> Wake {
        switch fd {
        case loop.wakeFD:
            qb_eventfd_drain(loop.wakeFD)
            return .shutdown(signal: nil)
        case loop.signalFD: return .shutdown(signal: qb_signalfd_read(loop.signalFD))
        case loop.timerFD:
            qb_timerfd_drain(loop.timerFD)
            return .monotonicTimer
        case day.timerFD: return .dayTimer(reason: day.fired())
        case follower.watchFD: return .storeWatch
        case offCard?.watchFD: return .sticks
        case let fd where server?.owns(fd) == true: return .client(fd, ready: ready)
        default: return .edges(fd)
        }
    }
}
