import ArgumentParser
import BoxProtocol
import Foundation
import QuestCore

/// `questbox watch`: the running box's live stream over its socket.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print the running box's live events: screens, presses, LED, buzzer, sounds (Ctrl-C ends).")
    @Flag(name: .long, help: "Print the raw JSON lines of the box's protocol (docs/box-protocol.md).") var json = false
    @OptionGroup var options: DataOptions

    func run() throws {
        let client = try BoxClient(path: BoxNotifier.socketPath(options))
        let out = FileHandle.standardOutput
        if json {
            out.write(client.hello.line())
            try client.send(BoxRequest(command: "subscribe", id: "watch"))
            while let line = try client.readLine(timeoutMs: -1) { out.write(line + Data([0x0A])) }
        } else {
            let reply = try client.request(BoxRequest(command: "subscribe", id: "watch"))
            if let box = reply.box {
                out.write(Data("box: \(box.board) · \(box.phase) · sound \(box.soundDevice ?? "off") · clock \(box.clockTrusted ? "trusted" : "not synced yet")\n".utf8))
            }
            if let screen = reply.screen { out.write(Data(WatchText.line(for: .event("screen") { $0.screen = screen; $0.notice = reply.notice }).utf8)) }
            while let message = try client.readMessage(timeoutMs: -1) { out.write(Data(WatchText.line(for: message).utf8)) }
        }
        FileHandle.standardError.write(Data("questbox: the box closed the connection\n".utf8))
    }
}

/// One human line per event (names escaped: they come from files and the web).
enum WatchText {
    static func line(for m: BoxMessage) -> String {
        // When the line arrived, on the wall clock: for the person reading, not a duration.
        let t = Calendar.current.dateComponents([.hour, .minute, .second], from: Date())
        let stamp = [t.hour, t.minute, t.second].map { String(format: "%02d", $0 ?? 0) }.joined(separator: ":")
        let text: String
        switch m.event {
        case "screen":
            let lines = m.screen?.screen.textLines.map(DisplayText.escaped) ?? []
            text = "screen \(m.screen?.kind ?? "?"): " + lines.joined(separator: " │ ") + (m.notice.map { " │ ⚠ \($0)" } ?? "")
        case "press": text = "press  \(m.button ?? "?") \(m.pressed == true ? "down" : "up")"
        case "led": text = "led    \(m.pattern ?? "?")"
        case "buzzer": text = "buzzer \(m.pattern ?? "?")"
        case "sound": text = "sound  \(m.sound ?? "?")"
        case "reminder": text = "reminder \(DisplayText.escaped(m.routine ?? "?"))"
        case "speak": text = "say    \(DisplayText.escaped(m.words ?? "?"))"
        case "speech-cut": text = "say    (cut)"
        case "reflection": text = "reflection \(DisplayText.escaped(m.reflection?.weekIdentifier ?? "?")) offered"
        case "box": text = "box    \(m.box.map { "\($0.phase) · data v\($0.dataVersion) · unsaved \($0.unsavedPlays)" } ?? "?")"
        default: text = "\(m.type) \(m.event ?? "")"
        }
        return "\(stamp) \(text)\n"
    }
}

/// Tells a running box that the store changed (it also notices by itself; this makes it
/// immediate). Quiet when no box runs.
enum BoxNotifier {
    static func socketPath(_ options: DataOptions) -> String {
        BoxSocketPath.forClient(dataDirectory: options.directory, environment: ProcessInfo.processInfo.environment)
    }

    static func reload(_ options: DataOptions) {
        let path = socketPath(options)
        guard FileManager.default.fileExists(atPath: path), let client = try? BoxClient(path: path, timeoutMs: 1_000) else { return }
        _ = try? client.request(BoxRequest(command: "reload"), timeoutMs: 2_000)
    }
}
