// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

extension Project {
    /// How Tuist generates the project.
    public struct Options: Codable, Equatable, Sendable {
        public var automaticSchemesOptions: AutomaticSchemesOptions
        public var defaultKnownRegions: [String]?
        public var developmentRegion: String?
        public var disableBundleAccessors: Bool
        /// Whether run-script phases stop logging their environment.
        public var disableShowEnvironmentVarsInScriptPhases: Bool
        public var disableSynthesizedResourceAccessors: Bool
        public var textSettings: TextSettings
        /// The name of the `.xcodeproj`, when not the project's name.
        public var xcodeProjectName: String?
        public var folderSortingStrategy: FolderSortingStrategy

        public static func options(
            automaticSchemesOptions: AutomaticSchemesOptions = .enabled(),
            defaultKnownRegions: [String]? = nil,
            developmentRegion: String? = nil,
            disableBundleAccessors: Bool = false,
            disableShowEnvironmentVarsInScriptPhases: Bool = false,
            disableSynthesizedResourceAccessors: Bool = false,
            textSettings: TextSettings = .textSettings(),
            xcodeProjectName: String? = nil,
            folderSortingStrategy: FolderSortingStrategy = .groupsBeforeFolderReferences
        ) -> Self {
            Options(automaticSchemesOptions: automaticSchemesOptions, defaultKnownRegions: defaultKnownRegions,
                    developmentRegion: developmentRegion, disableBundleAccessors: disableBundleAccessors,
                    disableShowEnvironmentVarsInScriptPhases: disableShowEnvironmentVarsInScriptPhases,
                    disableSynthesizedResourceAccessors: disableSynthesizedResourceAccessors, textSettings: textSettings,
                    xcodeProjectName: xcodeProjectName, folderSortingStrategy: folderSortingStrategy)
        }
    }
}

extension Project.Options {
    /// Whether and how Tuist generates a scheme for targets.
    public enum AutomaticSchemesOptions: Codable, Equatable, Sendable {
        /// How generated schemes group targets.
        public enum TargetSchemesGrouping: Codable, Equatable, Sendable {
            /// One scheme for the project.
            case singleScheme
            /// Targets grouped by the suffixes of their names.
            case byNameSuffix(build: Set<String>, test: Set<String>, run: Set<String>)
            /// One scheme per target.
            case notGrouped
        }

        case enabled(
            targetSchemesGrouping: TargetSchemesGrouping = .byNameSuffix(
                build: ["Implementation", "Interface", "Mocks", "Testing"],
                test: ["Tests", "IntegrationTests", "UITests", "SnapshotTests"],
                run: ["App", "Demo", "Example"]
            ),
            codeCoverageEnabled: Bool = false,
            testingOptions: TestingOptions = [],
            testLanguage: SchemeLanguage? = nil,
            testRegion: String? = nil,
            testScreenCaptureFormat: ScreenCaptureFormat? = nil,
            runLanguage: SchemeLanguage? = nil,
            runRegion: String? = nil
        )
        case disabled
    }

    /// Indentation and wrapping Xcode uses for the project.
    public struct TextSettings: Codable, Equatable, Sendable {
        public var usesTabs: Bool?
        public var indentWidth: UInt?
        public var tabWidth: UInt?
        public var wrapsLines: Bool?

        public static func textSettings(usesTabs: Bool? = nil, indentWidth: UInt? = nil, tabWidth: UInt? = nil, wrapsLines: Bool? = nil) -> Self {
            TextSettings(usesTabs: usesTabs, indentWidth: indentWidth, tabWidth: tabWidth, wrapsLines: wrapsLines)
        }
    }

    /// How groups and folder references are sorted.
    public enum FolderSortingStrategy: Codable, Equatable, Sendable {
        case groupsBeforeFolderReferences
        case alphabetical
    }
}
