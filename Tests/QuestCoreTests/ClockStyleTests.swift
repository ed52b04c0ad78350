import Testing
@testable import QuestCore

/// #48: one clock format everywhere, the box's locale's.
@Suite("Clock style: a time of day as the box's locale writes it")
struct ClockStyleTests {
    @Test("POSIX time formats: %r, %I, %l and %p count twelve hours; %T, %H and escaped %% do not")
    func fromPosixFormat() {
        #expect(ClockStyle(posixTimeFormat: "%H:%M:%S") == .twentyFourHour)      // C
        #expect(ClockStyle(posixTimeFormat: "%T") == .twentyFourHour)            // en_GB, de_DE
        #expect(ClockStyle(posixTimeFormat: "%r") == .twelveHour)                // en_US, en_CA
        #expect(ClockStyle(posixTimeFormat: "%I:%M:%S %p %Z") == .twelveHour)    // en_IN
        #expect(ClockStyle(posixTimeFormat: "%l.%M %P") == .twelveHour)
        #expect(ClockStyle(posixTimeFormat: "%H.%M.%S %%p") == .twentyFourHour, "%%p is a percent sign and a p")
        #expect(ClockStyle(posixTimeFormat: "") == .twentyFourHour)
        #expect(ClockStyle(posixTimeFormat: "%") == .twentyFourHour)
    }

    @Test("Twelve hours: midnight is 12 AM, noon 12 PM; 24 hours: two digits each")
    func text() throws {
        func t(_ h: Int, _ m: Int) throws -> ClockTime { try #require(ClockTime(hour: h, minute: m)) }
        #expect(ClockStyle.twelveHour.text(try t(0, 5)) == "12:05 AM")
        #expect(ClockStyle.twelveHour.text(try t(7, 58)) == "7:58 AM")
        #expect(ClockStyle.twelveHour.text(try t(11, 59)) == "11:59 AM")
        #expect(ClockStyle.twelveHour.text(try t(12, 0)) == "12:00 PM")
        #expect(ClockStyle.twelveHour.text(try t(13, 7)) == "1:07 PM")
        #expect(ClockStyle.twelveHour.text(try t(23, 59)) == "11:59 PM")
        #expect(ClockStyle.twentyFourHour.text(try t(7, 58)) == "07:58")
        #expect(ClockStyle.twentyFourHour.text(try t(0, 5)) == "00:05")
    }
}
