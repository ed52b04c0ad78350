import QuestCore

/// What `run`'s `poll` waits on, what each ready descriptor is for (`tick` takes it from
/// there), and what the loop counted.
extension BoxDaemon {
    /// Times `poll` returned: the measure of wake-ups (0 while idle).
    public var wakeups: Int { loop.wakeups }
    /// Presses whose LED was set from the reflex before their step, those whose line the read
    /// of their edge set, by the poll's own call, and those whose step then lit another
    /// pattern (#49; a defect, logged).
    public var pressesLitAhead: (lit: Int, asRead: Int, byPoll: Int, missed: Int) {
        (memory.litAhead, memory.litAsRead, hardware.intake.pressesLitByPoll, memory.reflexMisses)
    }
    /// How many times a quest's pages went back since start (#36).
    public var memoryReleasesAfterQuests: Int { loop.releases }
    /// Whether the start's daily backup is still being written off the loop, or logged.
    public var isBackingUp: Bool { day.isBackingUp }

    /// What woke the loop: a ready descriptor, by what it is for. Naming one reads nothing:
    /// `tick` reads and drains each after the button edges are stepped.
    enum Wake {
        /// Button edges on a line (nil: whatever waits on any line).
        case edges(Int32?)
        /// `requestShutdown`'s eventfd.
        case shutdownRequested
        /// SIGTERM or SIGINT.
        case signal
        /// The monotonic timerfd: what is due runs at the end of every tick anyway.
        case monotonicTimer
        /// The day's timer: why it fired (nil: its timerfd says, read in `tick`).
        case dayTimer(reason: String?)
        case storeWatch
        /// The start's backup file was written off the loop: it is logged on it.
        case backupFileWritten
        case sticks
        case client(Int32, ready: Int32)
    }

    /// The descriptors `poll` waits on, each with what it waits for (1: writable too, 4: the
    /// mount table's priority event).
    func pollSet() -> (fds: [Int32], wantWrite: [Int32]) {
        let watchFD = follower.watchFD
        var fds = hardware.intake.descriptors + [loop.timerFD, day.timerFD, loop.wakeFD]
            + (loop.signalFD >= 0 ? [loop.signalFD] : []) + (watchFD >= 0 ? [watchFD] : []) + (day.backupDoneFD.map { [$0] } ?? [])
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
        case loop.wakeFD: .shutdownRequested
        case loop.signalFD: .signal
        case loop.timerFD: .monotonicTimer
        case day.timerFD: .dayTimer(reason: nil)
        case follower.watchFD: .storeWatch
        case day.backupDoneFD: .backupFileWritten
        case offCard?.watchFD: .sticks
        case let fd where server?.owns(fd) == true: .client(fd, ready: ready)
        default: .edges(fd)
        }
    }
}
