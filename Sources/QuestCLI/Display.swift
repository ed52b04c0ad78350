import ArgumentParser
import BoardProfile
import InputFiles
import BoxProtocol
import Display
import Foundation
import QuestCore
import ScreenRender
import SystemClock

/// `questbox display`: the box's own screen, for whoever just soldered one on.
struct DisplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "display", abstract: "The box's own screen (an SSD1306/SH1106 OLED or a framebuffer).", subcommands: [Test.self, Render.self])

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw each of the box's screens on the board's display, to check its wiring, way up and contrast.",
            discussion: """
                Stop the box first (sudo systemctl stop questbox): two programs drawing on one screen mix their pictures.
                Example: questbox display test --board questbox-sim-oled (a profile with a display: section)
                """)
        @Option(name: .long, help: "Board profile name or file (default: $QUESTBOX_BOARD).") var board: String?
        @Option(name: .long, help: "Seconds each screen stays (0 to 60).") var pause: Double = 2

        func validate() throws {
            guard pause.isFinite, (0...60).contains(pause) else { throw ValidationError("--pause \(pause) is not 0 to 60 seconds") }
        }

        func run() throws {
            guard let name = RunCommand.chosen(board, orVariable: "QUESTBOX_BOARD") else {
                throw CLIError("no board chosen: pass --board NAME or set QUESTBOX_BOARD (questbox boards list shows them)")
            }
            let profile = try BoardCatalog.resolve(name, in: BoardCatalog.searchDirectories())
            guard let config = profile.display else {
                throw CLIError("board \(profile.name) has no display: add a display: section to its profile (see Boards/README.md)")
            }
            let screen: BoxScreen
            do {
                screen = try ScreenOpener.open(config)
            } catch {
                throw CLIError("display: \(error)")
            }
            print("\(screen.summary):")
            let clock = LiveSystemClock()
            for (index, sample) in ScreenSamples.tour.enumerated() {
                let frame = ScreenRenderer.render(sample.screen, width: config.width, height: config.height)
                let start = clock.monotonicNanos()
                do {
                    try screen.show(frame)
                } catch {
                    throw CLIError("display: \(sample.name): \(error)")
                }
                let took = Double(clock.monotonicNanos() - start) / 1e6
                print("  \(sample.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(screen.lastWrite), took \(String(format: "%.1f", took)) ms")
                if index < ScreenSamples.tour.count - 1, pause > 0 { Thread.sleep(forTimeInterval: pause) }
            }
        }
    }

    /// What the OLED shows for a screen the box reported (`questbox watch --json`), as a PBM:
    /// pictures for a manual, and the HIL's expected frames for what the running box drew.
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw one screen (JSON as questbox watch --json prints it) as a 128×64 PBM picture.",
            discussion: "Example: questbox watch --json | head -n 2 | tail -n 1 > s.json; questbox display render s.json --to s.pbm")
        @Argument(help: "A JSON file: one watch --json line with a screen, or the screen object itself.") var file: String
        @Option(name: .long, help: "Where the PBM goes (default: standard output).") var to: String?
        @Option(name: .long, help: "The module's height: 64 or 32.") var height = 64

        static let maximumBytes = 64 * 1024

        func validate() throws {
            guard height == 64 || height == 32 else { throw ValidationError("--height \(height) is not 64 or 32") }
        }

        func run() throws {
            let bytes: [UInt8]
            do {
                bytes = try InputFile.read(file, maximumBytes: Self.maximumBytes)
            } catch {
                throw CLIError("\(error)")
            }
            let (screen, notice) = try Self.screen(in: bytes, file: file)
            let pbm = ScreenRenderer.render(screen, notice: notice, width: 128, height: height).pbm
            guard let to else { print(pbm, terminator: ""); return }
            do {
                try Data(pbm.utf8).write(to: URL(fileURLWithPath: to), options: .atomic)
            } catch {
                throw CLIError("\(to): cannot write: \(error.localizedDescription)")
            }
            print("\(ScreenPayload(screen).kind) screen drawn to \(to)")
        }

        /// The screen in a watch line (`{"type": "event", "screen": {…}, "notice": …}`, the
        /// notice drawn below it as the box draws it) or on its own.
        static func screen(in bytes: [UInt8], file: String) throws -> (Screen, notice: String?) {
            struct Line: Decodable {
                var screen: ScreenPayload
                var notice: String?
            }
            let data = Data(bytes)
            guard let object = try? JSONSerialization.jsonObject(with: data), let fields = object as? [String: Any] else {
                throw CLIError("\(file): not a JSON object")
            }
            let decoder = JSONDecoder()
            do {
                if fields["screen"] != nil {
                    let line = try decoder.decode(Line.self, from: data)
                    return (line.screen.screen, line.notice)
                }
                return (try decoder.decode(ScreenPayload.self, from: data).screen, nil)
            } catch let DecodingError.keyNotFound(key, context) {
                throw CLIError("\(file): \(path(context, key)): missing (not a screen as questbox watch --json prints it)")
            } catch let DecodingError.dataCorrupted(context) {
                throw CLIError("\(file): \(path(context)): \(context.debugDescription)")
            } catch let DecodingError.typeMismatch(_, context) {
                throw CLIError("\(file): \(path(context)): wrong type")
            } catch let DecodingError.valueNotFound(_, context) {
                throw CLIError("\(file): \(path(context)): null")
            } catch {
                throw CLIError("\(file): not a screen as questbox watch --json prints it")
            }
        }

        private static func path(_ context: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            let keys = context.codingPath.map(\.stringValue) + (key.map { [$0.stringValue] } ?? [])
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
    }
}
