import Foundation

/// Debian's Mosquitto on a loopback port with its own config (the link's end-to-end tests and
/// the MQTT connection's own).
public final class Broker {
    public let directory: String
    public let port: Int
    public let config: String
    public private(set) var process: Process?

    /// `extra`: config lines after the listener (a password file, TLS files).
    public init(directory: String, listener: String = "", extra: [String] = [], anonymous: Bool = true) throws {
        self.directory = directory
        // Below the kernel's ephemeral ports (32768 on): no client of this machine holds it.
        port = 20_000 + Int.random(in: 0..<10_000)
        config = (directory as NSString).appendingPathComponent("mosquitto.conf")
        // Started as root, Mosquitto reads its files as the mosquitto user after dropping to it
        // (trixie's 2.0.21 could then not read a password file the test made): it stays root.
        let user = getuid() == 0 ? ["user root"] : []
        let lines = ["listener \(port) 127.0.0.1"] + (listener.isEmpty ? [] : [listener]) + extra + user + [
            "allow_anonymous \(anonymous)", "persistence false", "log_dest stderr", "log_type error",
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: config, atomically: true, encoding: .utf8)
        try start()
    }

    public func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        p.arguments = ["-c", config]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        process = p
        // Ready once it takes a TCP connection.
        for _ in 0..<100 {
            if Self.accepts(port: port) { return }
            usleep(50_000)
        }
        throw RigError("mosquitto did not listen on \(port)")
    }

    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        // A connect whose SYN goes unanswered would wait for the kernel's retries (15 s).
        var limit = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// SIGKILL: the test runner's threads block SIGTERM and a child inherits the mask, and
    /// Mosquitto waits for signals with the mask it started with (it never sees SIGTERM).
    public func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public func signal(_ number: Int32) {
        if let process { kill(process.processIdentifier, number) }
    }

    deinit { stop() }
}

public struct RigError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
