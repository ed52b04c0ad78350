import ArgumentParser
import Foundation
import InputFiles

/// `questbox web`: starts the web app, a program of its own (`questbox-web`, installed beside
/// this one) so that nothing the web does can share a process with the box's loop.
struct WebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web", abstract: "Serve the web app (kiosk view, player pages, parent's area) in its own process.",
        discussion: "Options go to questbox-web: --listen ADDRESS, --port N (8080), --data DIR, --resources DIR.")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        try SiblingExec.replaceProcess(with: try Self.requireWebProgram(), arguments: arguments, what: "the web app")
    }

    /// `questbox-web` in this program's own folder (a package installs both in /usr/bin).
    static func webProgram(executable: String = "/proc/self/exe") -> String? {
        SiblingProgram.path(of: "questbox-web", executable: executable)
    }

    static func requireWebProgram() throws -> String {
        guard let program = webProgram(executable: "/proc/self/exe") else {
            throw CLIError("questbox-web is not installed beside this program (build it with `swift build --product questbox-web`)")
        }
        return program
    }
}

/// `questbox link`: the box in the house (#34), a program of its own (`questbox-link`, installed
/// beside this one) so that no broker can share a process with the box's loop.
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link", abstract: "Tell the house about the box: an MQTT broker with Home Assistant's discovery (settings mqtt.*), in its own process.",
        discussion: "Options go to questbox-link: --data DIR, --ca-file FILE. docs/mqtt.md lists every topic.")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        guard let program = SiblingProgram.path(of: "questbox-link") else {
            throw CLIError("questbox-link is not installed beside this program (build it with `swift build --product questbox-link`)")
        }
        try SiblingExec.replaceProcess(with: program, arguments: arguments, what: "the link")
    }
}

enum SiblingExec {
    /// Replaces this process with `program` (the sibling's own arguments after it); returns
    /// only by throwing, with the reason in one line.
    static func replaceProcess(with program: String, arguments: [String], what: String) throws {
        var cArgs = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, &cArgs)
        let reason = String(cString: strerror(errno))
        for p in cArgs { free(p) }
        throw CLIError("\(program): cannot start \(what) (\(reason))")
    }
}
