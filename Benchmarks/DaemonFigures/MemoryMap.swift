import Foundation

/// Where a process's resident pages are, from /proc/PID/smaps: the program's own code,
/// read-only data and writable (relocated) data, the shared libraries, the heap and other
/// anonymous memory, the stacks. RSS counts every page mapped; PSS shares each shared page
/// among the processes that map it; USS is what the process alone holds (what freeing it
/// would give back).
struct MemoryMap: Codable {
    struct Part: Codable {
        var name: String
        var rssKB = 0
        var pssKB = 0
        var privateKB = 0
    }

    var parts: [Part] = []

    var rssMB: Double { Double(parts.map(\.rssKB).reduce(0, +)) / 1024 }
    var pssMB: Double { Double(parts.map(\.pssKB).reduce(0, +)) / 1024 }
    var ussMB: Double { Double(parts.map(\.privateKB).reduce(0, +)) / 1024 }

    static let order = ["program code", "program read-only data", "program writable data", "libraries", "heap and anonymous", "stacks", "other"]

    /// The map of `pid` (default: this process).
    static func read(pid: String = "self") -> MemoryMap? {
        // Read to the end: a /proc file reports size 0, and a single read stops at a page.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps") else { return nil }
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
        var totals: [String: Part] = [:]
        var current = "other"
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-"), fields.count >= 5, first.first?.isHexDigit == true {
                // A mapping's header: range, perms, offset, device, inode, [path].
                let perms = fields[1]
                let path = fields.count >= 6 ? fields[5...].joined(separator: " ") : ""
                if path == program {
                    current = perms.hasPrefix("r-x") ? "program code" : perms.hasPrefix("rw") ? "program writable data" : "program read-only data"
                } else if path.hasPrefix("/") {
                    current = "libraries"
                } else if path == "[stack]" {
                    current = "stacks"
                } else if path.isEmpty || path == "[heap]" {
                    current = "heap and anonymous"
                } else {
                    current = "other"
                }
                continue
            }
            guard fields.count >= 2, let kb = Int(fields[1]) else { continue }
            var part = totals[current] ?? Part(name: current)
            switch first {
            case "Rss:": part.rssKB += kb
            case "Pss:": part.pssKB += kb
            case "Private_Clean:", "Private_Dirty:": part.privateKB += kb
            default: continue
            }
            totals[current] = part
        }
        return MemoryMap(parts: order.compactMap { totals[$0] })
    }

    /// One line per part: RSS, PSS, USS in MB.
    var lines: [String] {
        parts.map {
            "    " + $0.name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + String(format: "%6.1f  %6.1f  %6.1f", Double($0.rssKB) / 1024, Double($0.pssKB) / 1024, Double($0.privateKB) / 1024)
        }
    }
}
