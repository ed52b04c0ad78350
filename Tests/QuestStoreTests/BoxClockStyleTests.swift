import QuestCore
import QuestStore
import Testing

/// #48/#49: the box's one clock format for every program, read from its locale's variables.
@Suite("The box's clock style")
struct BoxClockStyleTests {
    @Test("#48: C, POSIX and no locale at all write 24-hour times; LC_ALL outranks LANG")
    func fromTheEnvironment() {
        #expect(ClockStyle.ofThisBox(environment: [:]) == .twentyFourHour)
        #expect(ClockStyle.ofThisBox(environment: ["LANG": "C.UTF-8"]) == .twentyFourHour)
        #expect(ClockStyle.ofThisBox(environment: ["LC_ALL": "POSIX", "LANG": "en_US.UTF-8"]) == .twentyFourHour)
        #expect(ClockStyle.ofThisBox(environment: ["LANG": "xx_NOWHERE.UTF-8"]) == .twentyFourHour, "a locale not installed: C's")
    }
}
