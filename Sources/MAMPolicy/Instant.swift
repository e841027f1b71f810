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
        if let seconds = Self.parseUTC(text) {
            secondsSince1970 = seconds
            return
        }
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
        Self.formatUTC(secondsSince1970) ?? ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: secondsSince1970))
    }

    // The audit log writes and reads one date per record: the common form,
    // `YYYY-MM-DDTHH:MM:SSZ`, is done here by arithmetic (a Foundation formatter builds ICU
    // calendars and locales each time: most of an export's and a report's time). Other forms
    // and years outside 1970–9999 go through ISO8601DateFormatter.

    /// Days since 1970-01-01 of a civil date (proleptic Gregorian).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func parseUTC(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return n
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              year >= 1970, (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let monthDays = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[month - 1] else { return nil }
        return Double(days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second)
    }

    static func formatUTC(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0, seconds < 253_402_300_800 else { return nil }  // 1970 ... 9999
        // As Foundation's formatter writes it: to the nearest millisecond, then the second.
        let total = Int(((seconds - 978_307_200) * 1000).rounded() / 1000 + 978_307_200)
        let z = total / 86_400 + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let rest = total % 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + two(month) + "-" + two(day) + "T"
            + two(rest / 3600) + ":" + two(rest / 60 % 60) + ":" + two(rest % 60) + "Z"
    }
}
