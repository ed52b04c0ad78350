// `questbox web` (or `questbox-web`): the family's web app, in its own process. It reads and
// writes the box's SQLite store and talks to the running box only through its socket.
import ArgumentParser
import BoxProtocol
import BuildVersion
import CEventLoop
import Foundation
import Hummingbird
import Logging
import QuestStore
import WebApp

@main
struct WebCommand: AsyncParsableCommand, AppArguments {
    static let configuration = CommandConfiguration(
        commandName: "questbox web", abstract: "Serve the web app: the kiosk view, the player's pages and the parent's area.",
        version: BuildVersion.described)

    @Option(name: .long, help: "Address to listen on (0.0.0.0: every network of the box).") var listen = "0.0.0.0"
    @Option(name: .long, help: "TCP port.") var port = 8080
    @Option(name: .long, help: "Data directory (default: $QUESTBOX_DATA, /var/lib/questbox as root, ~/.local/share/questbox).") var data: String?
    @Option(name: .long, help: "Folder with templates/ and assets/ (default: $QUESTBOX_WEB_RESOURCES, /usr/share/questbox/web, or beside this program).")
    var resources: String?

    var hostname: String { listen }
    var dataDirectory: String { DataDirectory.current(option: data) }
    var databasePath: String { DataDirectory.databasePath(in: dataDirectory) }
    var socketPath: String { BoxSocketPath.forClient(dataDirectory: dataDirectory, environment: ProcessInfo.processInfo.environment) }
    var resourcesDirectory: String {
        // None found: the packaged place, so the start-up error names a real folder.
        WebResources.locate(explicit: resources ?? ProcessInfo.processInfo.environment["QUESTBOX_WEB_RESOURCES"]) ?? WebResources.packagedDirectory
    }

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port \(port): allowed 1 to 65535") }
    }

    func run() async throws {
        qb_malloc_for_bursts()   // a burst of /stats reads leaves no heap behind
        var logger = Logger(label: "questbox-web")
        logger.logLevel = .info
        do {
            let app = try await buildApplication(self, logger: logger)
            try await app.runService()
        } catch let error as WebError {
            FileHandle.standardError.write(Data("questbox web: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}

