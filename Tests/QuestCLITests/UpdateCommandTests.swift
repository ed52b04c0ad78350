import BoxProtocol
import Foundation
import TestSupport
import Testing

/// UPD-1 at the command line: what the root updater asks the box's user before it installs.
@Suite("UPD-1 questbox update window and hold")
struct UpdateCommandTests {
    let questbox = productPath("questbox")

    static let everyDay = """
        [{"name": "Morning", "displayName": "Morning Quest", "activeDays": [1,2,3,4,5,6,7],
          "tasks": [{"name": "Brush teeth", "displayName": "Tooth Time"}]}]
        """

    /// A data folder with an every-day routine whose reminder sounds `minutes` from now (in
    /// this process's time zone, which the command shares).
    func box(reminderInMinutes minutes: Int?) throws -> String {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        let routine = (dir as NSString).appendingPathComponent("routine.json")
        _ = FileManager.default.createFile(atPath: routine, contents: Data(Self.everyDay.utf8))
        #expect(try runProcess(questbox, ["routine", "import", routine, "--data", data]).status == 0)
        if let minutes {
            let at = Calendar.current.dateComponents([.hour, .minute], from: Date().addingTimeInterval(Double(minutes) * 60))
            let time = String(format: "%02d:%02d", at.hour ?? 0, at.minute ?? 0)
            #expect(try runProcess(questbox, ["settings", "set", "reminder.time", time, "--data", data]).status == 0)
        } else {
            #expect(try runProcess(questbox, ["settings", "set", "reminders", "off", "--data", data]).status == 0)
        }
        return data
    }

    @Test("open with no box and no reminder near; 75 and why in the 30 minutes before a reminder; --json says the same")
    func reminderWindow() throws {
        let quiet = try runProcess(questbox, ["update", "window", "--data", try box(reminderInMinutes: nil)])
        #expect(quiet.status == 0 && quiet.stdout.hasPrefix("now: the box is idle"), "\(quiet)")
        let far = try runProcess(questbox, ["update", "window", "--data", try box(reminderInMinutes: 50)])
        #expect(far.status == 0, "\(far)")
        let near = try box(reminderInMinutes: 10)
        let soon = try runProcess(questbox, ["update", "window", "--data", near])
        #expect(soon.status == 75 && soon.stdout.hasPrefix("not now: Morning Quest's reminder sounds at "), "\(soon)")
        let json = try runProcess(questbox, ["update", "window", "--json", "--data", near])
        #expect(json.status == 75, "\(json)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["open"] as? Bool == false && (object?["reason"] as? String)?.contains("Morning Quest") == true, "\(json.stdout)")
    }

    @Test("mid-quest the box's phase says no; a box that does not answer counts as busy")
    func questInPlay() throws {
        let data = try box(reminderInMinutes: nil)
        let fake = try FakeBox(data: data, phase: "active")
        defer { fake.stop() }
        let busy = try runProcess(questbox, ["update", "window", "--data", data])
        #expect(busy.status == 75 && busy.stdout == "not now: a quest is in play on the box (active): the update waits until it is over\n", "\(busy)")
        fake.stop()
        // A socket file nobody serves: the box is not running.
        let gone = try runProcess(questbox, ["update", "window", "--data", data])
        #expect(gone.status == 0, "\(gone)")
        let silent = try FakeBox(data: data, phase: "idle", silent: true)
        defer { silent.stop() }
        let mute = try runProcess(questbox, ["update", "window", "--data", data])
        #expect(mute.status == 75 && mute.stdout.contains("(not answering)"), "\(mute)")
    }

    @Test("hold: the box holds its buttons until the updater closes the input, then lets go; refused when the box refuses")
    func hold() throws {
        let data = try box(reminderInMinutes: nil)
        let fake = try FakeBox(data: data, phase: "idle")
        let held = try runProcess(questbox, ["update", "hold", "--data", data], input: "")
        fake.stop()
        #expect(held.status == 0 && held.stdout.hasPrefix("held: the box's buttons are held"), "\(held)")
        #expect(fake.commands() == ["button-check start", "button-check stop"])

        let refusing = try FakeBox(data: data, phase: "idle", refuse: "a quest is running")
        defer { refusing.stop() }
        let refused = try runProcess(questbox, ["update", "hold", "--data", data], input: "")
        #expect(refused.status == 75 && refused.stdout == "not now: a quest is being played on the box; update once it is over (nothing was changed)\n", "\(refused)")
    }

    @Test("hold is refused before it asks the box when a reminder is near")
    func holdNearReminder() throws {
        let data = try box(reminderInMinutes: 10)
        let fake = try FakeBox(data: data, phase: "idle")
        let refused = try runProcess(questbox, ["update", "hold", "--data", data], input: "")
        fake.stop()
        #expect(refused.status == 75 && refused.stdout.contains("reminder sounds at"), "\(refused)")
        #expect(fake.commands() == [])
    }
}

/// The box's socket as the box serves it, in a Python process: its hello (with `phase`), and
/// a reply to each request (refused with `refuse` when given); the commands it took are
/// written one per line ("button-check start").
final class FakeBox {
    let process = Process()
    let log: String

    init(data: String, phase: String, refuse: String? = nil, silent: Bool = false) throws {
        let socket = (data as NSString).appendingPathComponent(BoxSocketPath.fileName)
        log = (data as NSString).appendingPathComponent("fake-box.log")
        _ = FileManager.default.createFile(atPath: log, contents: Data())
        let script = """
            import json, os, socket, sys
            path, log, phase, refuse, version, silent = sys.argv[1:7]
            if os.path.exists(path): os.unlink(path)
            server = socket.socket(socket.AF_UNIX); server.bind(path); server.listen(4)
            print("ready", flush=True)
            while True:
                conn, _ = server.accept()
                if silent: continue
                hello = {"type": "hello", "protocol": int(version), "box": {"board": "rpi4", "clockTrusted": True, "dataVersion": 1, "unsavedPlays": 0, "phase": phase}}
                conn.sendall((json.dumps(hello) + "\\n").encode())
                for line in conn.makefile():
                    request = json.loads(line)
                    with open(log, "a") as f: f.write(request["command"] + " " + (request.get("action") or "start") + "\\n")
                    reply = {"type": "reply", "id": request.get("id"), "command": request["command"], "ok": not refuse}
                    if refuse: reply["error"] = refuse
                    conn.sendall((json.dumps(reply) + "\\n").encode())
                conn.close()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, socket, log, phase, refuse ?? "", String(BoxProtocol.version), silent ? "1" : ""]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // Served once it says so (availableData: readData(ofLength:) waits for the end here).
        var said = Data()
        while !said.contains(UInt8(ascii: "\n")) {
            let more = out.fileHandleForReading.availableData
            if more.isEmpty { throw CocoaError(.fileReadUnknown) }
            said.append(more)
        }
    }

    func commands() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func stop() {
        // SIGKILL: the test runner's children inherit a mask that holds SIGTERM.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
