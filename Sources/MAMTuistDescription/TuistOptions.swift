// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

extension Tuist {
    /// How Tuist generates projects.
    public struct GenerationOptions: Codable, Equatable, Sendable {
        /// Which targets Tuist checks for a static product linked twice through the graph.
        public enum StaticSideEffectsWarningTargets: Codable, Equatable, Sendable {
            case all
            case none
            case excluding([String])
        }

        @available(*, deprecated, message: "Use `additionalPackageResolutionArguments` instead.")
        public var resolveDependenciesWithSystemScm: Bool
        public var disablePackageVersionLocking: Bool
        @available(*, deprecated, message: "Use `additionalPackageResolutionArguments` instead.")
        public var clonedSourcePackagesDirPath: Path?
        /// Arguments passed to `xcodebuild` when it resolves packages.
        public var additionalPackageResolutionArguments: [String]
        public var staticSideEffectsWarningTargets: StaticSideEffectsWarningTargets
        public let enforceExplicitDependencies: Bool
        public var defaultConfiguration: String?
        /// Whether commands go on when the user is not signed in to the Tuist server.
        public var optionalAuthentication: Bool
        public var buildInsightsDisabled: Bool
        public var testInsightsDisabled: Bool
        /// Whether manifests are built outside a sandbox.
        public var disableSandbox: Bool
        /// Whether a scheme running `tuist generate` is added.
        public var includeGenerateScheme: Bool
        /// Whether Xcode compilation caching settings are added.
        public var enableCaching: Bool

        public static func options(
            disablePackageVersionLocking: Bool = false,
            staticSideEffectsWarningTargets: StaticSideEffectsWarningTargets = .all,
            defaultConfiguration: String? = nil,
            optionalAuthentication: Bool = false,
            buildInsightsDisabled: Bool = false,
            testInsightsDisabled: Bool = false,
            disableSandbox: Bool = true,
            includeGenerateScheme: Bool = true,
            enableCaching: Bool = false,
            additionalPackageResolutionArguments: [String] = []
        ) -> Self {
            Self(resolveDependenciesWithSystemScm: false, disablePackageVersionLocking: disablePackageVersionLocking,
                 clonedSourcePackagesDirPath: nil, additionalPackageResolutionArguments: additionalPackageResolutionArguments,
                 staticSideEffectsWarningTargets: staticSideEffectsWarningTargets, enforceExplicitDependencies: false,
                 defaultConfiguration: defaultConfiguration, optionalAuthentication: optionalAuthentication,
                 buildInsightsDisabled: buildInsightsDisabled, testInsightsDisabled: testInsightsDisabled, disableSandbox: disableSandbox,
                 includeGenerateScheme: includeGenerateScheme, enableCaching: enableCaching)
        }

        @available(*, deprecated, message: "Use `options(disablePackageVersionLocking:staticSideEffectsWarningTargets:defaultConfiguration:optionalAuthentication:buildInsightsDisabled:testInsightsDisabled:disableSandbox:includeGenerateScheme:additionalPackageResolutionArguments)` instead.")
        public static func options(
            resolveDependenciesWithSystemScm: Bool = false,
            disablePackageVersionLocking: Bool = false,
            clonedSourcePackagesDirPath: Path? = nil,
            staticSideEffectsWarningTargets: StaticSideEffectsWarningTargets = .all,
            defaultConfiguration: String? = nil,
            optionalAuthentication: Bool = false,
            buildInsightsDisabled: Bool = false,
            testInsightsDisabled: Bool = false,
            disableSandbox: Bool = true,
            includeGenerateScheme: Bool = true,
            enableCaching: Bool = false
        ) -> Self {
            Self(resolveDependenciesWithSystemScm: resolveDependenciesWithSystemScm, disablePackageVersionLocking: disablePackageVersionLocking,
                 clonedSourcePackagesDirPath: clonedSourcePackagesDirPath, additionalPackageResolutionArguments: [],
                 staticSideEffectsWarningTargets: staticSideEffectsWarningTargets, enforceExplicitDependencies: false,
                 defaultConfiguration: defaultConfiguration, optionalAuthentication: optionalAuthentication,
                 buildInsightsDisabled: buildInsightsDisabled, testInsightsDisabled: testInsightsDisabled, disableSandbox: disableSandbox,
                 includeGenerateScheme: includeGenerateScheme, enableCaching: enableCaching)
        }

        @available(*, deprecated, message: "enforceExplicitDependencies is deprecated. Use 'tuist inspect dependencies --only implicit' instead.")
        public static func options(
            resolveDependenciesWithSystemScm: Bool = false,
            disablePackageVersionLocking: Bool = false,
            clonedSourcePackagesDirPath: Path? = nil,
            staticSideEffectsWarningTargets: StaticSideEffectsWarningTargets = .all,
            enforceExplicitDependencies: Bool,
            defaultConfiguration: String? = nil,
            optionalAuthentication: Bool = false
        ) -> Self {
            Self(resolveDependenciesWithSystemScm: resolveDependenciesWithSystemScm, disablePackageVersionLocking: disablePackageVersionLocking,
                 clonedSourcePackagesDirPath: clonedSourcePackagesDirPath, additionalPackageResolutionArguments: [],
                 staticSideEffectsWarningTargets: staticSideEffectsWarningTargets, enforceExplicitDependencies: enforceExplicitDependencies,
                 defaultConfiguration: defaultConfiguration, optionalAuthentication: optionalAuthentication, buildInsightsDisabled: false,
                 testInsightsDisabled: false, disableSandbox: true, includeGenerateScheme: false, enableCaching: false)
        }
    }

    /// Options of `tuist inspect`.
    public struct InspectOptions: Codable, Equatable, Sendable {
        public struct RedundantDependencies: Codable, Equatable, Sendable {
            /// Targets with one of these tags are not inspected.
            public let ignoreTagsMatching: Set<String>

            public static func redundantDependencies(ignoreTagsMatching: Set<String> = []) -> Self {
                Self(ignoreTagsMatching: ignoreTagsMatching)
            }
        }

        public var redundantDependencies: RedundantDependencies

        public static func options(redundantDependencies: RedundantDependencies = .redundantDependencies()) -> Self {
            Self(redundantDependencies: redundantDependencies)
        }
    }

    /// Options of `tuist install`.
    public struct InstallOptions: Codable, Equatable, Sendable {
        /// Arguments passed on to `swift package resolve`.
        public var passthroughSwiftPackageManagerArguments: [String]
        public var packageManifestEnvironment: ManifestEnvironment

        public static func options(
            passthroughSwiftPackageManagerArguments: [String] = [],
            packageManifestEnvironment: ManifestEnvironment = .automatic
        ) -> Self {
            Self(passthroughSwiftPackageManagerArguments: passthroughSwiftPackageManagerArguments,
                 packageManifestEnvironment: packageManifestEnvironment)
        }

        /// Which environment variables dependency manifests see (and their cache keys include).
        public struct ManifestEnvironment: Codable, Equatable, Sendable {
            /// Whether volatile variables of known CI providers are hidden.
            public let usesAutomaticProviderDefaults: Bool
            /// Names (or `PREFIX*`) kept visible.
            public let includedVariablePatterns: [String]
            /// Names (or `PREFIX*`) hidden as well.
            public let excludedVariablePatterns: [String]

            private init(usesAutomaticProviderDefaults: Bool, includedVariablePatterns: [String] = [], excludedVariablePatterns: [String] = []) {
                self.usesAutomaticProviderDefaults = usesAutomaticProviderDefaults
                self.includedVariablePatterns = includedVariablePatterns
                self.excludedVariablePatterns = excludedVariablePatterns
            }

            public static let automatic = Self(usesAutomaticProviderDefaults: true)
            /// The whole environment.
            public static let all = Self(usesAutomaticProviderDefaults: false)

            public static func automatic(including includedVariablePatterns: [String] = [], excluding excludedVariablePatterns: [String] = []) -> Self {
                Self(usesAutomaticProviderDefaults: true, includedVariablePatterns: includedVariablePatterns,
                     excludedVariablePatterns: excludedVariablePatterns)
            }
        }
    }
}
