/// The Raspberry Pi's 40-pin header (every model since the B+: Pi 3, 4, 5, Zero 2 W): what
/// each physical pin carries. GPIO lines are named by their BCM number, as the kernel's
/// gpiochip names them (`GPIO17`).
public enum RaspberryPiHeader {
    public enum Pin: Equatable, Sendable {
        case gpio(Int)
        case ground
        case power3V3
        case power5V
    }

    public static let pinCount = 40

    /// Header pin → BCM line for the 28 GPIO pins.
    static let bcmByPin: [Int: Int] = [
        3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10, 21: 9, 22: 25,
        23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21,
    ]
    public static let groundPins = [6, 9, 14, 20, 25, 30, 34, 39]
    public static let power3V3Pins = [1, 17]
    public static let power5VPins = [2, 4]

    /// What the physical pin (1–40) carries, or nil for a number off the header.
    public static func pin(_ number: Int) -> Pin? {
        if let bcm = bcmByPin[number] { return .gpio(bcm) }
        if groundPins.contains(number) { return .ground }
        if power3V3Pins.contains(number) { return .power3V3 }
        if power5VPins.contains(number) { return .power5V }
        return nil
    }

    /// The physical pin of a line named `GPIO<n>` (n 0–27), or nil for any other name.
    public static func pin(forLineName name: String) -> Int? {
        guard name.hasPrefix("GPIO"), let bcm = Int(name.dropFirst(4)), name.count <= 6, String(bcm) == name.dropFirst(4) else { return nil }
        return bcmByPin.first { $0.value == bcm }?.key
    }
}
