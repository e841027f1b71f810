// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// The header of files Xcode creates: a template file, or the text itself.
public enum FileHeaderTemplate: Codable, Equatable, Sendable, ExpressibleByStringInterpolation {
    case file(Path)
    case string(String)

    public init(stringLiteral value: String) {
        self = .string(value)
    }
}
