// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// Launch arguments and environment variables of a run, test or profile action.
public struct Arguments: Equatable, Codable, Sendable {
    public var environmentVariables: [String: EnvironmentVariable]
    public var launchArguments: [LaunchArgument]

    public static func arguments(
        environmentVariables: [String: EnvironmentVariable] = [:],
        launchArguments: [LaunchArgument] = []
    ) -> Self {
        Arguments(environmentVariables: environmentVariables, launchArguments: launchArguments)
    }
}

/// A launch argument, on or off.
public struct LaunchArgument: Equatable, Codable, Sendable {
    public var name: String
    public var isEnabled: Bool

    public static func launchArgument(name: String, isEnabled: Bool) -> Self {
        LaunchArgument(name: name, isEnabled: isEnabled)
    }
}

/// An environment variable's value, on or off; a string literal is on.
public struct EnvironmentVariable: Equatable, Codable, Hashable, ExpressibleByStringLiteral, Sendable {
    public var value: String
    public var isEnabled: Bool

    init(value: String, isEnabled: Bool) {
        self.value = value
        self.isEnabled = isEnabled
    }

    public static func environmentVariable(value: String, isEnabled: Bool) -> Self {
        EnvironmentVariable(value: value, isEnabled: isEnabled)
    }

    public init(stringLiteral value: String) {
        self.init(value: value, isEnabled: true)
    }
}

/// Sanitizers and checkers of a run or test action.
public struct SchemeDiagnosticsOptions: Equatable, Codable, Sendable {
    public var addressSanitizerEnabled: Bool
    public var detectStackUseAfterReturnEnabled: Bool
    public var threadSanitizerEnabled: Bool
    public var mainThreadCheckerEnabled: Bool
    /// The thread performance checker.
    public var performanceAntipatternCheckerEnabled: Bool

    public static func options(
        addressSanitizerEnabled: Bool = false,
        detectStackUseAfterReturnEnabled: Bool = false,
        threadSanitizerEnabled: Bool = false,
        mainThreadCheckerEnabled: Bool = true,
        performanceAntipatternCheckerEnabled: Bool = true
    ) -> SchemeDiagnosticsOptions {
        SchemeDiagnosticsOptions(addressSanitizerEnabled: addressSanitizerEnabled,
                                 detectStackUseAfterReturnEnabled: detectStackUseAfterReturnEnabled,
                                 threadSanitizerEnabled: threadSanitizerEnabled, mainThreadCheckerEnabled: mainThreadCheckerEnabled,
                                 performanceAntipatternCheckerEnabled: performanceAntipatternCheckerEnabled)
    }
}

/// The language a run or test action uses: a language code or one of Xcode's pseudo-languages.
public struct SchemeLanguage: Codable, Equatable, ExpressibleByStringLiteral, Sendable {
    public let identifier: String

    public init(identifier: String) {
        self.identifier = identifier
    }

    public init(stringLiteral: String) {
        identifier = stringLiteral
    }

    public static var doubleLengthPseudoLanguage: SchemeLanguage { SchemeLanguage(identifier: "IDELaunchSchemeLanguageDoubleLocalizedStrings") }
    public static var rightToLeftPseudoLanguage: SchemeLanguage { SchemeLanguage(identifier: "IDELaunchSchemeLanguageRightToLeftLayoutDirection") }
    public static var accentedPseudoLanguage: SchemeLanguage { SchemeLanguage(identifier: "IDELaunchSchemeLanguageAccentedLatin") }
    public static var boundedStringPseudoLanguage: SchemeLanguage { SchemeLanguage(identifier: "IDELaunchSchemeLanguageBoundedString") }
    public static var rightToLeftWithStringsPseudoLanguage: SchemeLanguage { SchemeLanguage(identifier: "IDELaunchSchemeLanguageRLO") }
}

/// Metal validation options of a run action.
public struct MetalOptions: Equatable, Codable, Sendable {
    public var apiValidation: Bool
    public var shaderValidation: Bool
    public var showGraphicsOverview: Bool
    public var logGraphicsOverview: Bool

    public static func options(
        apiValidation: Bool = true,
        shaderValidation: Bool = false,
        showGraphicsOverview: Bool = false,
        logGraphicsOverview: Bool = false
    ) -> MetalOptions {
        MetalOptions(apiValidation: apiValidation, shaderValidation: shaderValidation, showGraphicsOverview: showGraphicsOverview,
                     logGraphicsOverview: logGraphicsOverview)
    }
}

/// A simulated GPS location: one of Xcode's, or a GPX file.
public struct SimulatedLocation: Codable, Equatable, Sendable {
    public var identifier: String?
    public var gpxFile: Path?

    private init(identifier: String? = nil, gpxFile: Path? = nil) {
        self.identifier = identifier
        self.gpxFile = gpxFile
    }

    public static func custom(gpxFile: Path) -> SimulatedLocation { SimulatedLocation(gpxFile: gpxFile) }

    public static var london: SimulatedLocation { SimulatedLocation(identifier: "London, England") }
    public static var johannesburg: SimulatedLocation { SimulatedLocation(identifier: "Johannesburg, South Africa") }
    public static var moscow: SimulatedLocation { SimulatedLocation(identifier: "Moscow, Russia") }
    public static var mumbai: SimulatedLocation { SimulatedLocation(identifier: "Mumbai, India") }
    public static var tokyo: SimulatedLocation { SimulatedLocation(identifier: "Tokyo, Japan") }
    public static var sydney: SimulatedLocation { SimulatedLocation(identifier: "Sydney, Australia") }
    public static var hongKong: SimulatedLocation { SimulatedLocation(identifier: "Hong Kong, China") }
    public static var honolulu: SimulatedLocation { SimulatedLocation(identifier: "Honolulu, HI, USA") }
    public static var sanFrancisco: SimulatedLocation { SimulatedLocation(identifier: "San Francisco, CA, USA") }
    public static var mexicoCity: SimulatedLocation { SimulatedLocation(identifier: "Mexico City, Mexico") }
    public static var newYork: SimulatedLocation { SimulatedLocation(identifier: "New York, NY, USA") }
    public static var rioDeJaneiro: SimulatedLocation { SimulatedLocation(identifier: "Rio de Janeiro, Brazil") }
}

/// What UI tests capture (Xcode 15 and later).
public enum ScreenCaptureFormat: String, Codable, Sendable {
    case screenshots
    case screenRecording
}

/// Test options of the schemes Tuist generates.
public struct TestingOptions: OptionSet, Codable, Equatable, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Run tests on several destinations in parallel.
    public static let parallelizable = TestingOptions(rawValue: 1 << 0)
    public static let randomExecutionOrdering = TestingOptions(rawValue: 1 << 1)
    /// Parallelize Swift Testing tests only; wins over `parallelizable`.
    public static let swiftTestingOnlyParallelizable = TestingOptions(rawValue: 1 << 2)
}
