// QuestCore needs only Date, Calendar, TimeZone and UUID. FoundationEssentials has them
// without ICU; named time zones come from whoever builds the Calendar (the runtime links
// full Foundation), so the core stays small and does no I/O.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif

// pow/sqrt for the level curve and statistics.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Real power, for a configurable level exponent.
func power(_ base: Double, _ exponent: Double) -> Double { pow(base, exponent) }
