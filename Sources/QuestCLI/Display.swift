import ArgumentParser
import BoardProfile
import Display
import Foundation
import QuestCore
import ScreenRender
import SystemClock

/// `questbox display`: the box's own screen, for whoever just soldered one on.
struct DisplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "display", abstract: "The box's own screen (an SSD1306/SH1106 OLED or a framebuffer).", subcommands: [Test.self])

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
}
