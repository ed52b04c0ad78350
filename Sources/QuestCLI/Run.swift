import ArgumentParser
import BoardProfile
import BoxProtocol
import BoxRuntime
import Display
import Foundation
import GPIO
import Logging
import QuestStore
import Speech
import SystemClock

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the box: buttons, lights, buzzer, the quest loop (the daemon systemd starts).")

    /// The option, else the environment variable; empty counts as not chosen (the package's
    /// /etc/default/questbox has `QUESTBOX_BOARD=` and `QUESTBOX_SOUND=` until a parent sets them).
    static func chosen(_ option: String?, orVariable name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        (option ?? environment[name]).flatMap { $0.isEmpty ? nil : $0 }
    }

    @Option(name: .long, help: "Board profile name or file (default: $QUESTBOX_BOARD).") var board: String?
    @Option(name: .long, help: "ALSA PCM to play on instead of the board's card (e.g. null, default, plughw:CARD=Headphones,DEV=0; default: $QUESTBOX_SOUND).") var sound: String?
    @Flag(name: .long, help: "Also log every button edge, level read and screen (debug level).") var verbose = false
    @Option(name: .long, help: "How many socket clients (watch, the web app) at once.") var socketClients = 4
    @Option(name: .long, help: ArgumentHelp(
        "SCHED_FIFO priority of the button loop, below the audio thread's 10; 0: normal priority.",
        discussion: "Needs root, CAP_SYS_NICE or LimitRTPRIO (the systemd unit sets it); without, the loop runs at normal priority and logs it."))
    var loopPriority: Int32 = 8
    @OptionGroup var options: DataOptions

    func validate() throws {
        guard (0...9).contains(loopPriority) else {
            throw ValidationError("--loop-priority \(loopPriority): allowed 0 (normal) to 9 (below the audio thread's 10)")
        }
    }

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        var logger = Logger(label: "questbox")
        logger.logLevel = verbose ? .debug : .info
        // The store first: on a fresh install it is created here, as the web app would.
        let db = try options.open(footprint: .small)
        // The option, else QUESTBOX_BOARD (an empty one, the package's /etc/default/questbox
        // before a parent picks one, is no board), else the board chosen on the web app; with
        // none, the box stays up and waits for one (#32).
        guard let name = try Self.chosen(board, orVariable: "QUESTBOX_BOARD")
            ?? BoardWait.board(database: db, directory: options.directory, logger: logger)
        else {
            try db.close()
            return
        }
        // #48: what the box says of its start, for the pages while its socket is silent.
        func record(_ state: BoxStartRecord.State, reason: String? = nil) {
            do {
                try db.recordBoxStart(BoxStartRecord(state: state, board: name, reason: reason, at: Date()))
            } catch {
                logger.warning("the box's start could not be written down", metadata: ["state": "\(state.rawValue)", "error": "\(error)"])
            }
        }
        record(.starting)
        let clock = LiveSystemClock()
        let profile: BoardProfile
        let gpio: BoardGPIO
        do {
            profile = try BoardCatalog.resolve(name, in: BoardCatalog.searchDirectories())
            gpio = try BoardGPIO(profile: profile, backend: LiveGPIO())
        } catch let failure as GPIOFailure {
            let line = "\(failure.description) (run `questbox doctor --board \(name)`)"
            record(.failed, reason: line)
            throw CLIError(line)
        } catch {
            record(.failed, reason: "\(error)")
            throw error
        }
        logger.info("starting", metadata: [
            "board": "\(profile.name)", "gpio": "\(LiveGPIO.libraryDescription)", "data": "\(options.directory)",
            "boot": "\(clock.bootID)", "clockTrusted": "\(clock.isWallClockTrusted())",
        ])
        let settings = try db.settings.current()
        let audio = EngineSoundOutput.start(
            device: Self.chosen(sound, orVariable: "QUESTBOX_SOUND"), card: profile.audioCard, latencyMs: profile.audioLatencyMs,
            soundEnabled: settings.soundEnabled, volumePercent: settings.volumePercent, logger: logger)
        defer { audio.engine.stop() }
        let engine = audio.engine
        let control = BoxDaemon.ControlOptions(
            socketPath: BoxSocketPath.forDaemon(dataDirectory: options.directory, environment: ProcessInfo.processInfo.environment),
            maximumClients: socketClients, allowPress: profile.socketPress, soundDevice: { engine.statistics.device })
        let panel = Self.openPanel(profile: profile, logger: logger)
        defer { panel?.stop() }
        let logged = LoggingDisplayOutput(logger: logger)
        let voice = RenderedSpeech.espeak(
            engine: engine, choice: settings.voice, cache: PhraseCache(dataDirectory: options.directory), logger: logger)
        let daemon = try BoxDaemon(
            board: gpio, database: db, clock: clock, sound: audio, speech: voice,
            display: panel.map { PanelDisplayOutput(panel: $0, besides: logged) } ?? logged,
            calendar: Calendar.current, control: control, logger: logger)
        daemon.offCard = OffCardCopier(database: db, dataFolder: options.directory, logger: logger)
        record(.running)
        try daemon.run(handleSignals: true, loopPriority: loopPriority)
        record(.stopped)
        try db.close()
        logger.info("stopped")
    }

    /// The board's own screen, drawing on its own thread; nil (after one log line) when the
    /// profile has none or it cannot be opened: the box plays without it.
    static func openPanel(profile: BoardProfile, logger: Logger) -> ScreenPanel? {
        guard let config = profile.display else { return nil }
        let screen: BoxScreen
        do {
            screen = try ScreenOpener.open(config)
        } catch {
            logger.warning("display unavailable, the box goes on without its screen", metadata: ["error": "\(error)"])
            return nil
        }
        // 0 minutes: never dark (the panel reads 0 as no limit).
        let idle = Int64(config.idleOffMinutes) * 60_000_000_000
        let nightClock: ScreenPanel.NightClock? = config.night.map { hours in
            { @Sendable in
                let state = hours.state(at: Date(), calendar: Calendar.current)
                return (state.isNight, Int64(state.secondsUntilChange * 1e9))
            }
        }
        let panel = ScreenPanel(screen: screen, width: config.width, height: config.height, idleOffNanos: idle, night: nightClock) { line in
            logger.warning("display", metadata: ["problem": "\(line)"])
        }
        guard panel.start() else { return nil }
        logger.info("display ready", metadata: [
            "screen": "\(screen.summary)", "idleOffMinutes": "\(config.idleOffMinutes)", "night": "\(config.night?.description ?? "none")",
        ])
        return panel
    }
}
