/// CAL-1: the first completed sessions teach the box the player's patterns.
public enum CalibrationTracker: Sendable {
    public static func isCalibrationSession(completedSessionsBefore: Int, rules: GameRules = .standard) -> Bool {
        completedSessionsBefore < rules.calibrationSessions
    }

    /// How many calibration sessions are still to come (for the idle screen).
    public static func remainingCalibrationSessions(completedSessions: Int, rules: GameRules = .standard) -> Int {
        max(0, rules.calibrationSessions - completedSessions)
    }
}
