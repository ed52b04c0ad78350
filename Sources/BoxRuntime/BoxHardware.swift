import GPIO
import Logging

/// The box's parts the player touches, sees and hears: the button lines coming in
/// (`intake`), the LED and buzzer going out (`outputs`), the sound, the voice (nil: the box
/// has sounds only) and the screen.
struct BoxHardware {
    let board: BoardGPIO
    var intake: EdgeIntake
    var outputs: OutputPatterns
    let sound: SoundOutput
    let speech: SpeechOutput?
    let display: DisplayOutput

    init(board: BoardGPIO, sound: SoundOutput, speech: SpeechOutput?, display: DisplayOutput, logger: Logger) {
        self.board = board
        self.sound = sound
        self.speech = speech
        self.display = display
        intake = EdgeIntake(board: board, logger: logger)
        outputs = OutputPatterns(
            setLED: { [board, logger] color in
                do { try board.setLED(color) } catch { logger.error("LED failed", metadata: ["error": "\(error)"]) }
            },
            setBuzzer: { [board, logger] on in
                do { try board.setBuzzer(on) } catch { logger.error("buzzer failed", metadata: ["error": "\(error)"]) }
            })
    }
}
