// #34: many boxes, one house. Starts one Mosquitto on a loopback port and N simulated boxes
// (`questbox simulate`, each on its own store) with a `questbox link` each, all publishing to
// it, and an observer subscribed as a dashboard would be. Each box then switches its sounds
// over its socket M times (a state change through the whole path: the box, its store, its
// link, the broker, the observer) and the figures are printed:
//   - end-to-end latency of a state change (socket request → the observer has the new state):
//     p50 / p99 / max
//   - messages per second through the broker during the changes, and in all
//   - the broker's CPU time over the run (from /proc)
//
//   swift build --product link-figures --product questbox --product questbox-link &&
//     .build/debug/link-figures [--boxes 20] [--changes 10] [--bin .build/debug]
import BoxProtocol
import Foundation
import MQTT

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first } }
let boxes = option("--boxes").flatMap(Int.init) ?? 20
let changes = option("--changes").flatMap(Int.init) ?? 10
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
let bin = option("--bin") ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let work = NSTemporaryDirectory() + "questbox-link-figures-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
signal(SIGPIPE, SIG_IGN)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("link-figures: \(message)\n".utf8))
    exit(1)
}

@discardableResult
func start(_ program: String, _ args: [String], directory: String? = nil, environment: [String: String] = [:], input: Bool = false) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = args
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    if input { p.standardInput = Pipe() }
    try p.run()
    return p
}

func run(_ program: String, _ args: [String]) throws {
    let p = try start(program, args)
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { fail("\(program) \(args.joined(separator: " ")) failed") }
}

var children: [Process] = []
@MainActor func cleanUp() {
    for p in children.reversed() where p.isRunning { kill(p.processIdentifier, SIGKILL) }
    try? FileManager.default.removeItem(atPath: work)
}

let port = 20_000 + Int.random(in: 0..<10_000)
try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 10000\nset_tcp_nodelay true\n".write(toFile: work + "/mosquitto.conf", atomically: true, encoding: .utf8)
let broker = try start("/usr/sbin/mosquitto", ["-c", work + "/mosquitto.conf"])
children.append(broker)
usleep(300_000)

var sockets: [String] = []
for i in 0..<boxes {
    let data = "\(work)/box\(i)"
    try run(bin + "/questbox", ["routine", "import", root + "/deploy/example-routine.json", "--data", data])
    try run(bin + "/questbox", ["settings", "set", "reminders", "false", "--data", data])
    try run(bin + "/questbox", ["settings", "set", "mqtt.url", "mqtt://127.0.0.1:\(port)", "--data", data])
    children.append(try start(bin + "/questbox", ["simulate", "--data", data], directory: root, input: true))
    sockets.append(data + "/questbox.sock")
}
for path in sockets {
    for _ in 0..<200 where !FileManager.default.fileExists(atPath: path) { usleep(50_000) }
}
for i in 0..<boxes { children.append(try start(bin + "/questbox-link", ["--data", "\(work)/box\(i)"])) }

var observerOptions = MQTTConnection.Options(host: "127.0.0.1", port: port, tls: false, clientID: "figures")
observerOptions.subscriptions = ["questbox/#"]
let observer = try MQTTConnection(observerOptions)
var states: [String: String] = [:]
var received = 0
/// Takes what arrived; the time each topic's payload last changed.
@MainActor func poll() {
    for incoming in observer.drain().incoming {
        switch incoming {
        case .connected, .disconnected: break
        case .message(let topic, let payload, _):
            received += 1
            if topic.hasSuffix("/state") { states[topic] = String(decoding: payload, as: UTF8.self) }
        }
    }
}
let readyBy = Date().addingTimeInterval(60)
while states.values.filter({ $0.contains("\"idle\"") }).count < boxes, Date() < readyBy {
    poll()
    usleep(20_000)
}
guard states.count == boxes else { cleanUp(); fail("only \(states.count) of \(boxes) boxes reached the broker") }
// Which topic is which box: learnt from the first change each box tells.
var topicOf: [Int: String] = [:]
func brokerCPU() -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(broker.processIdentifier)/stat", encoding: .utf8) else { return 0 }
    let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
    let ticks = (Double(fields.count > 12 ? fields[11] : "0") ?? 0) + (Double(fields.count > 12 ? fields[12] : "0") ?? 0)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}
let startedAll = Date()
let cpuBefore = brokerCPU()
let receivedBefore = received
var latencies: [Double] = []
for round in 0..<changes {
    let muted = round % 2 == 0
    for i in 0..<boxes {
        // The box's topic: the one whose state flips after this request.
        let before = states
        let asked = Date()
        _ = try BoxClient(path: sockets[i]).request(BoxRequest(command: "mute", action: muted ? "on" : "off"))
        let wanted = "\"muted\":\(muted)"
        var seen: Date?
        while seen == nil, Date().timeIntervalSince(asked) < 10 {
            poll()
            if let topic = topicOf[i] {
                if states[topic]?.contains(wanted) == true { seen = Date() }
            } else if let flipped = states.first(where: { $0.value.contains(wanted) && before[$0.key]?.contains(wanted) != true }) {
                topicOf[i] = flipped.key
                seen = Date()
            }
            if seen == nil { usleep(500) }
        }
        guard let seen else { cleanUp(); fail("box \(i) did not tell its change within 10 s") }
        latencies.append(seen.timeIntervalSince(asked) * 1000)
    }
}
let seconds = Date().timeIntervalSince(startedAll)
let cpu = brokerCPU() - cpuBefore
latencies.sort()
// Bursts: every box changes at once (a house where all quests end together).
var burstLatencies: [Double] = []
let burstStart = Date(), burstCPUBefore = brokerCPU(), burstReceivedBefore = received
for round in 0..<changes {
    let muted = round % 2 == 0
    var asked: [Int: Date] = [:]
    for i in 0..<boxes {
        asked[i] = Date()
        _ = try BoxClient(path: sockets[i]).request(BoxRequest(command: "mute", action: muted ? "on" : "off"))
    }
    var waiting = Set(0..<boxes)
    let wanted = "\"muted\":\(muted)"
    let limit = Date().addingTimeInterval(15)
    while !waiting.isEmpty, Date() < limit {
        poll()
        for i in waiting where topicOf[i].flatMap({ states[$0] })?.contains(wanted) == true {
            burstLatencies.append(Date().timeIntervalSince(asked[i]!) * 1000)
            waiting.remove(i)
        }
        usleep(500)
    }
    guard waiting.isEmpty else { cleanUp(); fail("\(waiting.count) boxes did not tell a burst's change within 15 s") }
}
let burstSeconds = Date().timeIntervalSince(burstStart), burstCPU = brokerCPU() - burstCPUBefore
burstLatencies.sort()
func pct(_ values: [Double], _ p: Double) -> Double { values[min(values.count - 1, Int((Double(values.count - 1) * p).rounded()))] }
print("link figures: \(boxes) simulated boxes, each with its own questbox link, one Mosquitto on loopback; \(latencies.count) state changes")
print(String(format: "one box at a time, socket request → observer has the state: p50 %.1f ms · p99 %.1f ms · max %.1f ms", pct(latencies, 0.5), pct(latencies, 0.99), latencies.last ?? 0))
print(String(format: "  messages to the observer: %d in %.1f s (%.0f per second); broker CPU %.2f s (%.1f%% of one core)", received - receivedBefore, seconds, Double(received - receivedBefore) / seconds, cpu, 100 * cpu / seconds))
print(String(format: "all %d boxes at once, %d bursts: p50 %.1f ms · p99 %.1f ms · max %.1f ms", boxes, changes, pct(burstLatencies, 0.5), pct(burstLatencies, 0.99), burstLatencies.last ?? 0))
print(String(format: "  messages to the observer: %d in %.1f s (%.0f per second); broker CPU %.2f s (%.1f%% of one core)", received - burstReceivedBefore, burstSeconds, Double(received - burstReceivedBefore) / burstSeconds, burstCPU, 100 * burstCPU / burstSeconds))
cleanUp()
