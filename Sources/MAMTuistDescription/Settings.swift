// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// Build settings by name.
public typealias SettingsDictionary = [String: SettingValue]

/// A build setting's value: one string, or a list.
public enum SettingValue: ExpressibleByStringInterpolation, ExpressibleByArrayLiteral, ExpressibleByBooleanLiteral, Equatable,
    Codable, Sendable
{
    case string(String)
    case array([String])

    public init(stringLiteral value: String) {
        self = .string(value)
    }

    public init(arrayLiteral elements: String...) {
        self = .array(elements)
    }

    public typealias BooleanLiteralType = Bool

    /// `true` is `"YES"`, `false` is `"NO"`.
    public init(booleanLiteral value: Bool) {
        self = .string(value ? "YES" : "NO")
    }

    /// The raw value of a string-backed enumeration.
    public init<T>(_ stringRawRepresentable: T) where T: RawRepresentable, T.RawValue == String {
        self = .string(stringRawRepresentable.rawValue)
    }
}

/// The name of a build configuration; `.debug` and `.release` are built in.
public struct ConfigurationName: ExpressibleByStringLiteral, Codable, Equatable, Sendable {
    public var rawValue: String

    init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: StringLiteralType) {
        self.init(value)
    }

    public static func configuration(_ name: String) -> ConfigurationName {
        ConfigurationName(name)
    }

    /// "Debug".
    public static var debug: ConfigurationName { ConfigurationName("Debug") }
    /// "Release".
    public static var release: ConfigurationName { ConfigurationName("Release") }
}

/// One build configuration: its name, whether it is a debug or release kind, its settings and xcconfig.
public struct Configuration: Equatable, Codable, Sendable {
    public enum Variant: String, Codable, Sendable {
        case debug
        case release
    }

    public var name: ConfigurationName
    public var variant: Variant
    public var settings: SettingsDictionary
    public var xcconfig: Path?

    /// A debug-kind configuration.
    public static func debug(name: ConfigurationName, settings: SettingsDictionary = [:], xcconfig: Path? = nil) -> Configuration {
        Configuration(name: name, variant: .debug, settings: settings, xcconfig: xcconfig)
    }

    /// A release-kind configuration.
    public static func release(name: ConfigurationName, settings: SettingsDictionary = [:], xcconfig: Path? = nil) -> Configuration {
        Configuration(name: name, variant: .release, settings: settings, xcconfig: xcconfig)
    }
}

/// Which settings Tuist sets before a project's or target's own.
public enum DefaultSettings: Codable, Equatable, Sendable {
    /// Tuist's recommended settings (warnings included), but for the keys in `excluding`.
    case recommended(excluding: Set<String> = [])
    /// Only what is needed to build, but for the keys in `excluding`.
    case essential(excluding: Set<String> = [])
    /// No settings from Tuist.
    case none

    public static var recommended: DefaultSettings { .recommended(excluding: []) }
    public static var essential: DefaultSettings { .essential(excluding: []) }
}

/// The settings of a project or target: base settings, configurations, defaults.
public struct Settings: Equatable, Codable, Sendable {
    /// Settings every configuration inherits.
    public var base: SettingsDictionary
    public var configurations: [Configuration]
    public var defaultSettings: DefaultSettings
    /// The configuration built from the command line when none is named.
    public var defaultConfiguration: String?

    /// Settings with the two standard configurations, Debug and Release.
    public static func settings(
        base: SettingsDictionary = [:],
        debug: SettingsDictionary = [:],
        release: SettingsDictionary = [:],
        defaultSettings: DefaultSettings = .recommended,
        defaultConfiguration: String? = nil
    ) -> Settings {
        Settings(
            base: base,
            configurations: [.debug(name: .debug, settings: debug), .release(name: .release, settings: release)],
            defaultSettings: defaultSettings,
            defaultConfiguration: defaultConfiguration
        )
    }

    /// Settings with the configurations given, in that order.
    public static func settings(
        base: SettingsDictionary = [:],
        configurations: [Configuration],
        defaultSettings: DefaultSettings = .recommended,
        defaultConfiguration: String? = nil
    ) -> Settings {
        Settings(base: base, configurations: configurations, defaultSettings: defaultSettings, defaultConfiguration: defaultConfiguration)
    }
}
