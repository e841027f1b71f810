/// An ISO-8601 duration as Graph writes it (`PT12H`, `P90D`, `-PT17.1357909S`).
///
/// Kept as seconds, with the original text for messages. Years and months have no fixed
/// length; our reading is 365 and 30 days, which Graph policies never rely on (they use days).
public struct ISODuration: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let seconds: Double
    /// The text it was parsed from (or a canonical form when built from seconds).
    public let text: String

    public init(seconds: Double) {
        self.seconds = seconds
        self.text = "PT\(seconds)S"
    }

    /// Parses `[-]P[nY][nM][nW][nD][T[nH][nM][n[.f]S]]`; `nil` when malformed.
    public init?(_ text: String) {
        var chars = Substring(text.uppercased())
        var sign = 1.0
        if chars.first == "-" { sign = -1; chars = chars.dropFirst() } else if chars.first == "+" { chars = chars.dropFirst() }
        guard chars.first == "P" else { return nil }
        chars = chars.dropFirst()
        var inTime = false
        var total = 0.0
        var number = ""
        var sawComponent = false
        for c in chars {
            if c == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            if c.isNumber || c == "." || c == "," {
                number.append(c == "," ? "." : c)
                continue
            }
            guard let value = Double(number) else { return nil }
            number = ""
            sawComponent = true
            switch (inTime, c) {
            case (false, "Y"): total += value * 365 * 86_400
            case (false, "M"): total += value * 30 * 86_400
            case (false, "W"): total += value * 7 * 86_400
            case (false, "D"): total += value * 86_400
            case (true, "H"): total += value * 3_600
            case (true, "M"): total += value * 60
            case (true, "S"): total += value
            default: return nil
            }
        }
        guard number.isEmpty, sawComponent else { return nil }
        self.seconds = sign * total
        self.text = text
    }

    public static func < (a: ISODuration, b: ISODuration) -> Bool { a.seconds < b.seconds }
    public static func == (a: ISODuration, b: ISODuration) -> Bool { a.seconds == b.seconds }
    public func hash(into hasher: inout Hasher) { hasher.combine(seconds) }
    public var description: String { text }
}
