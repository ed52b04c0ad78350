// `questbox link` (or `questbox-link`): the box in the house (#34), in a process of its own:
// it follows the box through its socket and the store, and tells an MQTT broker (Home
// Assistant's discovery). The box runs the same with this stopped, slow or its broker gone.
import ArgumentParser
import BoxProtocol
import BuildVersion
import Foundation
import HomeLinkService
import Logging
import QuestStore
import Synchronization

/// Set by SIGTERM or SIGINT; the loop looks at it at least every 200 ms.
let stopRequested = Atomic<Bool>(false)

@main
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "questbox link",
        abstract: "Tell the house about the box: an MQTT broker with Home Assistant's discovery (settings mqtt.*).",
        discussion: "Set the broker with `questbox settings set mqtt.url mqtt://HOST:1883`; docs/mqtt.md lists every topic.",
        version: BuildVersion.described)

    @Option(name: .long, help: "Data directory (default: $QUESTBOX_DATA, /var/lib/questbox as root, ~/.local/share/questbox).") var data: String?
    @Option(name: .long, help: "A CA certificate (PEM) to trust for mqtts:// instead of the system's (default: $QUESTBOX_MQTT_CA).") var caFile: String?

    func run() throws {
        var logger = Logger(label: "questbox-link")
        logger.logLevel = .info
        let directory = DataDirectory.current(option: data)
        let environment = ProcessInfo.processInfo.environment
        let ca = caFile ?? environment["QUESTBOX_MQTT_CA"].flatMap { $0.isEmpty ? nil : $0 }
        if let ca {
            guard FileManager.default.isReadableFile(atPath: ca) else { throw ValidationError("--ca-file \(ca): cannot be read") }
        }
        let database: QuestDatabase
        do {
            database = try QuestDatabase(path: DataDirectory.databasePath(in: directory), footprint: .small)
        } catch {
            FileHandle.standardError.write(Data("questbox link: \(error)\n".utf8))
            throw ExitCode(1)
        }
        signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) }
        signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
        signal(SIGPIPE, SIG_IGN)
        // A parent that blocked them (a test runner's thread) passes the mask on.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        sigaddset(&stopping, SIGTERM)
        sigaddset(&stopping, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &stopping, nil)
        var options = HomeLinkService.Options(
            socketPath: BoxSocketPath.forClient(dataDirectory: directory, environment: environment), version: BuildVersion.text, caFile: ca)
        if let web = environment["QUESTBOX_WEB_URL"], web.hasPrefix("http://") || web.hasPrefix("https://"), web.utf8.count <= 256 { options.webURL = web }
        if let name = environment["QUESTBOX_NAME"], !name.isEmpty, name.utf8.count <= 64 { options.name = name }
        // Shorter waits for the tests (never needed on a box).
        if let seconds = environment["QUESTBOX_LINK_REFRESH_SECONDS"].flatMap(Double.init), seconds >= 0.1 { options.refreshSeconds = seconds }
        if let ms = environment["QUESTBOX_LINK_PUSH_TIMEOUT_MS"].flatMap(Int.init), (100...60_000).contains(ms) { options.pushTimeoutMs = ms }
        if let delays = environment["QUESTBOX_LINK_PUSH_RETRY_SECONDS"]?.split(separator: ",").compactMap({ Double($0) }),
           !delays.isEmpty, delays.count <= 5, delays.allSatisfy({ (0.05...300).contains($0) })
        {
            options.pushRetryDelays = delays
        }
        let service = HomeLinkService(database: database, options: options, logger: logger)
        service.run { stopRequested.load(ordering: .relaxed) }
    }
}
