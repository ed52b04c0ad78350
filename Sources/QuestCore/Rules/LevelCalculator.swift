/// LVL-1.
public enum LevelCalculator: Sendable {
    /// Levels stop here so integer arithmetic cannot overflow on absurd XP.
    public static let maximumLevel = 100_000

    /// floor(base · L^exponent). For the default exponent 1.5 this is computed exactly as
    /// the integer square root of base²·L³, so thresholds never drift by floating point.
    public static func xpRequired(forLevel level: Int, rules: GameRules = .standard) -> Int {
        guard level > 0 else { return 0 }
        let l = min(level, maximumLevel)
        if rules.levelExponent == 1.5 {
            let (square, overflow1) = rules.levelBaseXP.multipliedReportingOverflow(by: rules.levelBaseXP)
            let (cube, overflow2) = (l * l).multipliedReportingOverflow(by: l)
            let (radicand, overflow3) = square.multipliedReportingOverflow(by: cube)
            if !overflow1 && !overflow2 && !overflow3 { return integerSquareRoot(radicand) }
        }
        let value = Double(rules.levelBaseXP) * power(Double(l), rules.levelExponent)
        return value >= Double(Int.max) ? Int.max : Int((value + 1e-9).rounded(.down))
    }

    /// 0 for xp ≤ 0; otherwise the largest L ≥ 1 whose threshold is reached (at least 1).
    public static func level(fromTotalXP xp: Int, rules: GameRules = .standard) -> Int {
        guard xp > 0 else { return 0 }
        // Thresholds grow monotonically: binary search for the last reached one.
        var low = 1, high = maximumLevel
        while low < high {
            let mid = (low + high + 1) / 2
            if xpRequired(forLevel: mid, rules: rules) <= xp { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Fraction 0…1 of the way from the current level's threshold to the next one's
    /// (level 1 starts at 0 XP, because any XP at all is level 1).
    public static func progressToNextLevel(totalXP: Int, rules: GameRules = .standard) -> Double {
        let current = level(fromTotalXP: totalXP, rules: rules)
        let floorXP = current <= 1 ? 0 : xpRequired(forLevel: current, rules: rules)
        let nextXP = xpRequired(forLevel: current + 1, rules: rules)
        guard nextXP > floorXP else { return 0 }
        return min(1, max(0, Double(totalXP - floorXP) / Double(nextXP - floorXP)))
    }

    /// XP still needed for the next level.
    public static func xpToNextLevel(totalXP: Int, rules: GameRules = .standard) -> Int {
        max(0, xpRequired(forLevel: level(fromTotalXP: totalXP, rules: rules) + 1, rules: rules) - max(0, totalXP))
    }

    static func integerSquareRoot(_ n: Int) -> Int {
        guard n > 1 else { return max(0, n) }
        var x = Int(Double(n).squareRoot())
        while x * x > n { x -= 1 }
        while (x + 1).multipliedReportingOverflow(by: x + 1).partialValue <= n
            && !(x + 1).multipliedReportingOverflow(by: x + 1).overflow
        {
            x += 1
        }
        return x
    }
}
