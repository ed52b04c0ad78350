import BoxProtocol
import Foundation
import HomeLink
import MQTT
import HomeLinkTestSupport
import TestSupport

/// #34's end-to-end rig: Debian's Mosquitto on a loopback port with its own config
/// (`Broker`), the simulated box (`questbox simulate`) on a fresh store, `questbox-link`
/// beside it, and an observer (libmosquitto, as Home Assistant would subscribe) that keeps
/// what it hears.
///
/// The simulated box and the link on one store.
final class LinkRig {
    let directory: String
    let data: String
    var box: Process?
    var boxInput: Pipe?
    var link: Process?
    var linkLog: String { (try? String(contentsOfFile: (directory as NSString).appendingPathComponent("link.log"), encoding: .utf8)) ?? "" }
    var socketPath: String { (data as NSString).appendingPathComponent("questbox.sock") }

    init() throws {
        directory = temporaryDirectory()
        data = (directory as NSString).appendingPathComponent("data")
        try questbox(["routine", "import", "\(packageRoot)/deploy/example-routine.json"])
        try questbox(["settings", "set", "reminders", "false"])
        try questbox(["settings", "set", "intro", "false"])  // GAME-9: she has seen how it works
    }

    /// `questbox ARGS --data DATA`, which must succeed.
    @discardableResult
    func questbox(_ arguments: [String]) throws -> String {
        let r = try runProcess(productPath("questbox"), arguments + ["--data", data])
        guard r.status == 0 else { throw RigError("questbox \(arguments.joined(separator: " ")): \(r.stderr)") }
        return r.stdout
    }

    func startBox() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: productPath("questbox"))
        p.arguments = ["simulate", "--data", data]
        p.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        ignoreBrokenPipes()
        try p.run()
        box = p
        boxInput = input
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socketPath) { usleep(100_000) }
        guard FileManager.default.fileExists(atPath: socketPath) else { throw RigError("the simulated box did not start") }
    }

    func startLink(environment extra: [String: String] = [:]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: productPath("questbox-link"))
        p.arguments = ["--data", data]
        var environment = ProcessInfo.processInfo.environment
        environment["QUESTBOX_LINK_REFRESH_SECONDS"] = "1"
        environment.merge(extra) { _, new in new }
        p.environment = environment
        let log = (directory as NSString).appendingPathComponent("link.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: log)
        p.standardError = FileHandle(forWritingAtPath: log)
        try p.run()
        link = p
    }

    /// The box and its link, publishing to `broker`.
    func startLinked(to broker: Broker, scheme: String = "mqtt", host: String = "127.0.0.1", environment: [String: String] = [:]) throws {
        try questbox(["settings", "set", "mqtt.url", "\(scheme)://\(host):\(broker.port)"])
        try startBox()
        try startLink(environment: environment)
    }

    /// A request to the box over its socket (as the web app or `questbox watch` sends it).
    @discardableResult
    func ask(_ request: BoxRequest) throws -> BoxMessage {
        try BoxClient(path: socketPath).request(request)
    }

    func stop() {
        for p in [link, box].compactMap({ $0 }) where p.isRunning {
            p.terminate()
            for _ in 0..<100 where p.isRunning { usleep(50_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            p.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}

/// Subscribes to everything on the broker (or to `topics`) and keeps what it hears, with when.
final class Observer {
    let connection: MQTTConnection
    private(set) var heard: [(topic: String, payload: String, retained: Bool, at: Date)] = []

    init(
        port: Int, tls: Bool = false, caFile: String? = nil, host: String = "127.0.0.1", username: String? = nil, password: String? = nil,
        topics: [String] = ["#"]
    ) throws {
        var options = MQTTConnection.Options(
            host: host, port: port, tls: tls, caFile: caFile, username: username, password: password, clientID: "observer-\(UUID().uuidString.prefix(8))")
        options.subscriptions = topics
        connection = try MQTTConnection(options)
    }

    /// Takes what arrived (the connection subscribes again at every connect: a clean session).
    func poll() {
        for incoming in connection.drain().incoming {
            switch incoming {
            case .connected, .disconnected: break
            case .message(let topic, let payload, let retained):
                heard.append((topic, String(decoding: payload, as: UTF8.self), retained, Date()))
            }
        }
    }

    /// The last payload on `topic` that `accept` takes, waiting up to `seconds`.
    func wait(for topic: String, seconds: Double = 10, _ accept: (String) -> Bool = { _ in true }) -> String? {
        let end = Date().addingTimeInterval(seconds)
        repeat {
            poll()
            if let found = heard.last(where: { $0.topic == topic && accept($0.payload) }) { return found.payload }
            usleep(20_000)
        } while Date() < end
        return nil
    }

    /// Everything heard on topics under `prefix` (the latest payload per topic).
    func latest(under prefix: String) -> [String: String] {
        poll()
        var result: [String: String] = [:]
        for h in heard where h.topic.hasPrefix(prefix) { result[h.topic] = h.payload }
        return result
    }

    func forget() { heard.removeAll() }

    static func json(_ payload: String?) -> [String: Any]? {
        payload.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
