// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// Namespace of property-list values.
public enum Plist {
    /// A value in an Info.plist, entitlements or privacy manifest Tuist writes.
    public indirect enum Value: Codable, Equatable, Sendable, ExpressibleByStringInterpolation,
        ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
        ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
    {
        case string(String)
        case integer(Int)
        case real(Double)
        case boolean(Bool)
        case dictionary([String: Value])
        case array([Value])

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int) { self = .integer(value) }
        public init(floatLiteral value: Double) { self = .real(value) }
        public init(booleanLiteral value: Bool) { self = .boolean(value) }

        public init(dictionaryLiteral elements: (String, Plist.Value)...) {
            self = .dictionary(Dictionary(uniqueKeysWithValues: elements))
        }

        public init(arrayLiteral elements: Plist.Value...) {
            self = .array(elements)
        }
    }
}

/// A target's Info.plist: a file, a dictionary, Tuist's default extended, or a build-setting variable.
public enum InfoPlist: Codable, Equatable, Sendable, ExpressibleByStringInterpolation {
    /// An Info.plist file that exists.
    case file(path: Path)
    /// The whole content; Tuist writes the file when it generates.
    case dictionary([String: Plist.Value])
    /// Tuist's default content for the product, with these keys added or replaced.
    case extendingDefault(with: [String: Plist.Value])
    /// A build-setting reference such as `$(INFO_PLIST_FILE)`, for a file per configuration.
    case variable(String)

    /// Tuist's default content for the product.
    public static var `default`: InfoPlist {
        .extendingDefault(with: [:])
    }

    public enum CodingError: Error {
        case invalidType(String)
    }

    /// The file's path, for `.file`.
    public var path: Path? {
        if case let .file(path) = self { return path }
        return nil
    }

    /// A string is the path of a file.
    public init(stringLiteral value: String) {
        self = .file(path: .path(value))
    }
}

/// A target's entitlements: a file, a dictionary, or a build-setting variable.
public enum Entitlements: Codable, Equatable, Sendable {
    /// An entitlements file that exists.
    case file(path: Path)
    /// The whole content; Tuist writes the file when it generates.
    case dictionary([String: Plist.Value])
    /// A build-setting reference such as `$(ENTITLEMENTS_FILE)`, for a file per configuration.
    case variable(String)

    public enum CodingError: Error {
        case invalidType(String)
    }

    /// The file's path, for `.file`.
    public var path: Path? {
        if case let .file(path) = self { return path }
        return nil
    }
}

extension Entitlements: ExpressibleByStringInterpolation {
    /// A string starting `$(` is a variable; any other string is the path of a file.
    public init(stringLiteral value: String) {
        self = value.hasPrefix("$(") ? .variable(value) : .file(path: .path(value))
    }
}
