/// Event scripts for `questbox simulate --events` (times in ms from the start).
public enum EventScripts {
    /// Start, then per task: optional up presses, lock, stop after `takesMs`; continue with lock.
    public static func quest(_ tasks: [(ups: Int, takesMs: Int64)], bounce: Bool = false) -> String {
        var lines = ["# generated", "1000 lock down", "1080 lock up"]
        var t: Int64 = 3000
        for task in tasks {
            for _ in 0..<task.ups {
                lines += ["\(t) up down", "\(t + 60) up up"]
                t += 1000
            }
            if bounce {
                // A bouncy lock press: a burst of edges within 5 ms; it counts once, from the first edge.
                for i in 0..<9 { lines.append("\(t + Int64(i / 2)) lock \(i % 2 == 0 ? "down" : "up")") }
            } else {
                lines.append("\(t) lock down")
            }
            lines.append("\(t + 70) lock up")
            let stop = t + task.takesMs
            lines += ["\(stop) stop down", "\(stop + 80) stop up", "\(stop + 3000) lock down", "\(stop + 3080) lock up"]
            t = stop + 5000
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
