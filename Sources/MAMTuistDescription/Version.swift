// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A semantic version: `major.minor.patch`, pre-release and build-metadata identifiers.
public struct Version: Hashable, Codable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public var major: Int
    public var minor: Int
    public var patch: Int
    public var prereleaseIdentifiers: [String]
    public var buildMetadataIdentifiers: [String]

    public init(
        _ major: Int,
        _ minor: Int,
        _ patch: Int,
        prereleaseIdentifiers: [String] = [],
        buildMetadataIdentifiers: [String] = []
    ) {
        precondition(major >= 0 && minor >= 0 && patch >= 0, "Negative versioning is invalid.")
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prereleaseIdentifiers = prereleaseIdentifiers
        self.buildMetadataIdentifiers = buildMetadataIdentifiers
    }

    /// Reads `1`, `1.2`, `1.2.3`, with `-pre.release` and `+build.metadata`; nil when there is no number.
    public init?(string: String) {
        let (withoutBuild, build) = Version.split(string, at: "+")
        let (core, prerelease) = Version.split(withoutBuild, at: "-")
        let numbers = core.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false).compactMap { Int($0) }.filter { $0 >= 0 }
        guard let first = numbers.first else { return nil }
        major = first
        minor = numbers.count > 1 ? numbers[1] : 0
        patch = numbers.count > 2 ? numbers[2] : 0
        prereleaseIdentifiers = prerelease.map { $0.split(separator: ".").map(String.init) } ?? []
        buildMetadataIdentifiers = build.map { $0.split(separator: ".").map(String.init) } ?? []
    }

    /// `text` before and after the first `separator`, if there is one.
    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    private static func split(_ text: String, at separator: Character) -> (Substring, Substring?) {
        split(text[...], at: separator)
    }

    /// Stops the manifest when the text is not a version, as Tuist does.
    public init(stringLiteral value: String) {
        guard let version = Version(string: value) else { fatalError("\(value) is not a valid version") }
        self = version
    }

    public var description: String {
        var text = "\(major).\(minor).\(patch)"
        if !prereleaseIdentifiers.isEmpty { text += "-" + prereleaseIdentifiers.joined(separator: ".") }
        if !buildMetadataIdentifiers.isEmpty { text += "+" + buildMetadataIdentifiers.joined(separator: ".") }
        return text
    }

    /// Semantic-versioning precedence; build metadata does not count.
    public static func < (lhs: Version, rhs: Version) -> Bool {
        let left = [lhs.major, lhs.minor, lhs.patch], right = [rhs.major, rhs.minor, rhs.patch]
        if left != right { return left.lexicographicallyPrecedes(right) }
        if lhs.prereleaseIdentifiers.isEmpty { return false }
        if rhs.prereleaseIdentifiers.isEmpty { return true }
        for (a, b) in zip(lhs.prereleaseIdentifiers, rhs.prereleaseIdentifiers) where a != b {
            switch (Int(a), Int(b)) {
            case let (x?, y?): return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a < b
            }
        }
        return lhs.prereleaseIdentifiers.count < rhs.prereleaseIdentifiers.count
    }
}

extension Range where Bound == Version {
    /// Whether `version` is in the range; a pre-release is only when a bound is one too.
    public func contains(version: Version) -> Bool {
        if !version.prereleaseIdentifiers.isEmpty {
            if lowerBound.prereleaseIdentifiers.isEmpty, upperBound.prereleaseIdentifiers.isEmpty { return false }
            if upperBound.prereleaseIdentifiers.isEmpty,
               (upperBound.major, upperBound.minor, upperBound.patch) == (version.major, version.minor, version.patch) {
                return false
            }
        }
        return version >= lowerBound && version < upperBound
    }
}
