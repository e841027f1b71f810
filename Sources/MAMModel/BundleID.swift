/// An app's or extension's bundle identifier, e.g. `com.microsoft.Office.Outlook`.
///
/// Bundle ids compare case-insensitively: Graph stores targeted apps lowercased while an app
/// keeps its own spelling, and both must name the same app (RULES.md §1).
public struct BundleID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The spelling the app declared; kept for display.
    public let rawValue: String
    /// The comparison key.
    public let folded: String
    /// `folded`'s hash, made once (0 for `""`, so that `none` makes none): a bundle id is a
    /// dictionary key in every decision (the fleet's apps), and hashing its bytes there each
    /// time was a tenth of a decision's instructions.
    private let foldedHash: Int

    public init(_ rawValue: String) {
        self.init(rawValue: rawValue, folded: rawValue.caseFolded)
    }

    public init(stringLiteral value: String) { self.init(value) }

    private init(rawValue: String, folded: String) {
        self.rawValue = rawValue
        self.folded = folded
        foldedHash = folded.isEmpty ? 0 : folded.hashValue
    }

    /// No bundle id (`""`), made without folding or hashing anything and holding no string to
    /// retain: an emptied record or message takes one on every move.
    public static var none: BundleID { BundleID(rawValue: "", folded: "") }

    public static func == (a: BundleID, b: BundleID) -> Bool { a.foldedHash == b.foldedHash && a.folded == b.folded }
    public func hash(into hasher: inout Hasher) { hasher.combine(foldedHash) }
    public static func < (a: BundleID, b: BundleID) -> Bool { a.folded < b.folded }
    public var description: String { rawValue }
}


extension BundleID: Codable {
    /// A bundle id in JSON is its spelling.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(rawValue)
    }
}

extension String {
    /// The string with case folded for comparison (`lowercased()`), made without a new string
    /// when it holds no uppercase: bundle ids and handles are folded on every share, and
    /// nearly all are lowercase ASCII already.
    public var caseFolded: String {
        // Over the bytes in place where the string has them (a byte loop: iterating the UTF-8
        // view costs a receiving app on every item), else through the view.
        let folded = utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 < 0x80 && $0 &- 0x41 > 25 } }
            ?? utf8.allSatisfy { $0 < 0x80 && $0 &- 0x41 > 25 }
        return folded ? self : lowercased()
    }
}
