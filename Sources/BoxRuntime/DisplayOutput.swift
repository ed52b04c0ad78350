import Display
import Logging
import QuestCore

/// Where screens go (terminal, kiosk page, or only the log on a headless box).
public protocol DisplayOutput: AnyObject {
    /// `notice`: a line the shell adds below any screen (a play that is not saved yet).
    func show(_ screen: Screen, notice: String?)
    /// A press: a screen that went dark to spare an OLED lights again.
    func wake()
}

extension DisplayOutput {
    public func show(_ screen: Screen) { show(screen, notice: nil) }
    public func wake() {}
}

/// The box's own screen (OLED or framebuffer) beside another output (the log, the
/// terminal): each screen goes to both; the panel draws it on its own thread.
public final class PanelDisplayOutput: DisplayOutput {
    public let panel: ScreenPanel
    let other: DisplayOutput
    public init(panel: ScreenPanel, besides other: DisplayOutput) {
        self.panel = panel
        self.other = other
    }
    public func show(_ screen: Screen, notice: String?) {
        other.show(screen, notice: notice)
        panel.show(screen, notice: notice)
    }
    public func wake() {
        other.wake()
        panel.wake()
    }
}

public final class LoggingDisplayOutput: DisplayOutput {
    let logger: Logger
    /// Only the latest: the daemon runs for months.
    public private(set) var lastShown: Screen?
    public private(set) var lastNotice: String?
    public init(logger: Logger) { self.logger = logger }
    public func show(_ screen: Screen, notice: String?) {
        lastShown = screen
        lastNotice = notice
        logger.debug("screen", metadata: ["text": "\((screen.textLines + (notice.map { [$0] } ?? [])).joined(separator: " | "))"])
    }
}
