import ArgumentParser
import BoxProtocol
import Foundation
import QuestCore
import QuestStore

/// UPD-1: what the root updater (docs/updates.md) asks the box's own user before it installs
/// the box's software: may an update start now, and, while it installs, a hold on the box's
/// buttons so no quest starts under it. Run as the box's user: it reads the store.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Whether the box's own software may be updated now (UPD-1), for the updater.",
        subcommands: [Window.self, Hold.self])

    /// The exit status for "not now": sysexits' EX_TEMPFAIL, as systemd and apt read it.
    static let notNow: Int32 = 75

    struct Window: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "window",
            abstract: "Say whether an update may start: the box idle, no reminder within 30 minutes (exit 0), else why not (exit 75).")
        @Flag(help: "One JSON object: {\"open\": Bool, \"reason\": String}.") var json = false
        @OptionGroup var options: DataOptions

        func run() throws {
            let (verdict, calendar) = try UpdateCommand.verdict(options, phase: UpdateCommand.boxPhase(options))
            UpdateCommand.say(verdict, calendar: calendar, json: json)
            if !verdict.isOpen { throw ExitCode(UpdateCommand.notNow) }
        }
    }

    struct Hold: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hold",
            abstract: "While an update installs: hold the box's buttons (no quest can start) until this command's input closes; refused (exit 75) mid-quest or near a reminder.")
        @OptionGroup var options: DataOptions

        func run() throws {
            let socket = BoxNotifier.socketPath(options)
            let (verdict, calendar) = try UpdateCommand.verdict(options, phase: UpdateCommand.boxPhase(options))
            guard verdict.isOpen else {
                UpdateCommand.say(verdict, calendar: calendar, json: false)
                throw ExitCode(UpdateCommand.notNow)
            }
            // The box refuses the hold while a quest runs: a press between the window and
            // the hold is caught here.
            var hold: BoxHold?
            switch BoxHold.take(socketPath: socket, for: "update") {
            case .held(let held):
                hold = held
                UpdateCommand.tell("held: the box's buttons are held until the update is done")
            case .noBox:
                UpdateCommand.tell("held: no box runs, so nothing can start")
            case .refused(let reason):
                print("not now: \(reason)")
                throw ExitCode(UpdateCommand.notNow)
            }
            // Until the updater closes our input (or ends): the box, restarted by the
            // install, lets go of a hold by itself.
            while let line = readLine(strippingNewline: true), line != "release" {}
            hold?.release()
        }
    }

    /// The running box's phase, nil when none runs; a box that does not answer is counted as
    /// busy (an update never guesses that a quest is not in play).
    static func boxPhase(_ options: DataOptions) -> String? {
        let path = BoxNotifier.socketPath(options)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try BoxClient(path: path, timeoutMs: 2_000).hello.box?.phase ?? "unknown"
        } catch let error as BoxProtocolError where error.description.contains("the box is not running") {
            return nil
        } catch {
            return "not answering"
        }
    }

    static func verdict(_ options: DataOptions, phase: String?) throws -> (UpdateWindow.Verdict, Calendar) {
        let world = try options.open(access: .readOnly).loadWorld(calendar: .current, bootID: "", taskMemory: false)
        let verdict = UpdateWindow.verdict(
            boxPhase: phase, routines: world.routines, plays: world.plays, reminded: world.reminders, settings: world.settings,
            now: Date(), calendar: world.calendar)
        return (verdict, world.calendar)
    }

    /// A line the updater waits for, written at once (print's buffer would hold it while
    /// this process waits on its input).
    static func tell(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func say(_ verdict: UpdateWindow.Verdict, calendar: Calendar, json: Bool) {
        let words = verdict.words(calendar: calendar)
        if json {
            let object: [String: Any] = ["open": verdict.isOpen, "reason": words]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
        } else {
            print(verdict.isOpen ? "now: \(words)" : "not now: \(words)")
        }
    }
}
