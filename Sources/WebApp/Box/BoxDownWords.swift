import Foundation
import QuestCore
import QuestStore

/// #48: what the pages say of a box whose socket is silent, from what the box wrote down of
/// its start (`BoxStartRecord`): waiting, starting, could not start (its one line and the next
/// step), stopped, or nothing heard. "Board chosen: the box starts in a few seconds" stayed up
/// while the box exited on every start.
struct BoxDownWords: Equatable {
    var line: String
    /// The box could not start with the board chosen: the board list is offered again.
    var failed: Bool

    /// A start or a wait this recent is still going on (systemd restarts a failed box in 5 s).
    static let startingSeconds: TimeInterval = 60

    static func of(_ record: BoxStartRecord?, storedBoard: String?, now: Date, calendar: Calendar, clock: ClockStyle) -> BoxDownWords {
        let when = { (date: Date) in CalendarWords.day(date, now: now, calendar: calendar, clock: clock) }
        guard let board = storedBoard else {
            return BoxDownWords(line: "The box waits for a board: choose it, and the box starts with it.", failed: false)
        }
        guard let record, record.board == board || record.state == .waiting else {
            return BoxDownWords(
                line: "The box does not answer and has not started with the board \(board) yet: is its service running (sudo systemctl status questbox)?",
                failed: false)
        }
        // A waiting box takes a chosen board up within seconds (and writes that down).
        let stillStarting = record.state == .waiting || (record.state == .starting && now.timeIntervalSince(record.at) < startingSeconds)
        if stillStarting {
            return BoxDownWords(line: "The box is starting with the board \(board): reload this page in a few seconds.", failed: false)
        }
        switch record.state {
        case .failed:
            return BoxDownWords(
                line: "The box could not start with the board \(board) (\(when(record.at))): \(record.reason ?? "no reason given"). Choose another board, or check the wiring and run questbox doctor --board \(board) on the box.",
                failed: true)
        case .waiting, .starting:
            return BoxDownWords(
                line: "The box began to start with the board \(board) (\(when(record.at))) and does not answer: see the health page.", failed: false)
        case .running:
            return BoxDownWords(line: "The box does not answer (it was running since \(when(record.at))): it may be restarting; see the health page.", failed: false)
        case .stopped:
            return BoxDownWords(line: "The box was stopped (\(when(record.at))): start it again (sudo systemctl start questbox).", failed: false)
        }
    }
}
