import Foundation

/// A point on the simulated clock: seconds since 1970-01-01T00:00:00Z.
///
/// MAMPolicy never reads a clock; the host passes the simulated time in, so offline periods
/// can be tested without waiting (RULES.md §8).
public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let secondsSince1970: Double

    public init(secondsSince1970: Double) { self.secondsSince1970 = secondsSince1970 }

    /// Parses an ISO-8601 date-time such as `2026-01-01T09:00:00Z` (fractional seconds and
    /// offsets accepted); `nil` when malformed.
    public init?(iso8601 text: String) {
        let plain = ISO8601DateFormatter()
        if let d = plain.date(from: text) { self.secondsSince1970 = d.timeIntervalSince1970; return }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let d = fractional.date(from: text) else { return nil }
        self.secondsSince1970 = d.timeIntervalSince1970
    }

    public func advanced(by duration: ISODuration) -> Instant {
        Instant(secondsSince1970: secondsSince1970 + duration.seconds)
    }

    /// Seconds from `earlier` to `self`.
    public func seconds(since earlier: Instant) -> Double { secondsSince1970 - earlier.secondsSince1970 }

    public static func < (a: Instant, b: Instant) -> Bool { a.secondsSince1970 < b.secondsSince1970 }

    public var description: String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: secondsSince1970))
    }
}
