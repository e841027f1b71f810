/// The Intune targeted app configuration one account receives in one app
/// (`IntuneMAMAppConfig`, RULES.md §9): a list of dictionaries, one per configuration policy
/// that targets them, the tenant default marked `__IsDefault = true`.
///
/// Lookups follow the SDK's rules: targeted values beat the default, the default counts only
/// when it is the only value, a conflict is more than one targeted value that differ. The app
/// side (MAMKit) and the host both read a configuration through this type, so a scenario and
/// an app's own code get the same answers.
public struct AppConfig: Sendable, Hashable {
    /// The key the tenant default dictionary carries.
    public static let defaultMarker = "__IsDefault"

    /// One dictionary per configuration policy, in the order the policies were declared.
    public let fullData: [[String: String]]

    public init(fullData: [[String: String]]) {
        self.fullData = fullData
    }

    /// No configuration at all (an unmanaged account, an app no policy targets).
    public static let empty = AppConfig(fullData: [])

    private static func isDefault(_ dict: [String: String]) -> Bool {
        dict[defaultMarker]?.lowercased() == "true"
    }

    /// The values of `key` from targeted policies, in order.
    public func targetedValues(forKey key: String) -> [String] {
        fullData.filter { !Self.isDefault($0) }.compactMap { $0[key] }
    }

    /// The values that answer for `key`: the targeted ones, else the default's. `[]` when no
    /// dictionary has the key.
    public func values(forKey key: String) -> [String] {
        let targeted = targetedValues(forKey: key)
        if !targeted.isEmpty { return targeted }
        return fullData.filter(Self.isDefault).compactMap { $0[key] }
    }

    /// `hasConflict(key)`: more than one targeted value, and they differ.
    public func hasConflict(forKey key: String) -> Bool {
        let targeted = targetedValues(forKey: key)
        return targeted.count > 1 && Set(targeted).count > 1
    }

    /// How a lookup resolves several values (`IntuneMAMBoolQueryType`,
    /// `IntuneMAMNumberQueryType`, `IntuneMAMStringQueryType`).
    public enum Query: String, Sendable, Hashable, CaseIterable {
        /// The first value, in policy order.
        case any
        /// Booleans: true when any value is true.
        case or
        /// Booleans: true when every value is true.
        case and
        /// Numbers and strings: the smallest (strings in Unicode order).
        case min
        /// Numbers and strings: the largest.
        case max
    }

    /// A boolean setting: `true`/`false`, `yes`/`no`, `1`/`0` in any case; other text is not
    /// a boolean and is skipped. `nil` when no value is one.
    public func bool(forKey key: String, query: Query = .any) -> Bool? {
        let all = allBools(forKey: key)
        guard let first = all.first else { return nil }
        switch query {
        case .or: return all.contains(true)
        case .and: return all.allSatisfy { $0 }
        case .any, .min, .max: return first
        }
    }

    public func number(forKey key: String, query: Query = .any) -> Double? {
        let all = allNumbers(forKey: key)
        switch query {
        case .min: return all.min()
        case .max: return all.max()
        case .any, .or, .and: return all.first
        }
    }

    public func string(forKey key: String, query: Query = .any) -> String? {
        let all = allStrings(forKey: key)
        switch query {
        case .min: return all.min { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        case .max: return all.max { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        case .any, .or, .and: return all.first
        }
    }

    /// Every value of `key` that is a boolean (`[]` for a missing key).
    public func allBools(forKey key: String) -> [Bool] { values(forKey: key).compactMap(Self.parseBool) }

    /// Every value of `key` that is a number (`[]` for a missing key).
    public func allNumbers(forKey key: String) -> [Double] {
        values(forKey: key).compactMap { Double(Self.trimmed($0)) }.filter(\.isFinite)
    }

    /// Every value of `key` (`[]` for a missing key).
    public func allStrings(forKey key: String) -> [String] { values(forKey: key) }

    static func parseBool(_ text: String) -> Bool? {
        switch Self.trimmed(text).lowercased() {
        case "true", "yes", "1": true
        case "false", "no", "0": false
        default: nil
        }
    }

    static func trimmed(_ text: String) -> Substring {
        var s = Substring(text)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }

    /// A number as configuration text: whole numbers without a decimal point.
    public static func format(_ n: Double) -> String {
        if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }
}
