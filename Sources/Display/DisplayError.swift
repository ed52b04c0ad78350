import Glibc

/// Why the box's screen cannot be used, in one line naming the device: the box logs it once
/// and goes on with its LED, buzzer and sound (a screen is never required to play).
public struct DisplayError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// "/dev/i2c-1: Permission denied" with the hint a box owner needs for the common errnos.
    static func system(_ device: String, _ errno: Int32, doing action: String = "") -> DisplayError {
        let reason = String(cString: strerror(errno))
        let hint: String
        switch errno {
        case EACCES, EPERM: hint = " (the user running the box needs read and write access: the i2c or video group)"
        case ENOENT: hint = " (no such device: is the bus enabled and its driver loaded?)"
        default: hint = ""
        }
        return DisplayError("\(device): \(action.isEmpty ? "" : action + ": ")\(reason)\(hint)")
    }
}
