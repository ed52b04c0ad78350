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
        let program = try Self.requireWebProgram()
        let argv = [program] + arguments
        var cArgs = argv.map { strdup($0) } + [nil]
        execv(program, &cArgs)
        let reason = String(cString: strerror(errno))
        for p in cArgs { free(p) }
        throw CLIError("\(program): cannot start the web app (\(reason))")
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
