/// An app's or extension's bundle identifier, e.g. `com.microsoft.Office.Outlook`.
///
/// Bundle ids compare case-insensitively: Graph stores targeted apps lowercased while an app
/// keeps its own spelling, and both must name the same app (RULES.md §1).
public struct BundleID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The spelling the app declared; kept for display.
    public let rawValue: String
    /// The comparison key.
    public let folded: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
        self.folded = rawValue.lowercased()
    }

    public init(stringLiteral value: String) { self.init(value) }

    public static func == (a: BundleID, b: BundleID) -> Bool { a.folded == b.folded }
    public func hash(into hasher: inout Hasher) { hasher.combine(folded) }
    public static func < (a: BundleID, b: BundleID) -> Bool { a.folded < b.folded }
    public var description: String { rawValue }
}
