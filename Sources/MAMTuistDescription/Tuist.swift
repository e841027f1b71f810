// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// The older name of `Tuist`, the value of a `Tuist.swift` (formerly `Config.swift`) manifest.
public typealias Config = Tuist

/// Tuist's configuration for a repository.
public struct Tuist: Codable, Equatable, Sendable {
    /// Xcode compilation cache options.
    public struct Cache: Codable, Equatable, Sendable {
        /// Whether artifacts are uploaded to the remote cache (false: download only).
        public let push: Bool

        public static func options(push: Bool = true) -> Self {
            Cache(push: push)
        }
    }

    public let project: TuistProject
    /// The Tuist server project, such as `tuist-org/tuist`.
    public let fullHandle: String?
    public let inspectOptions: InspectOptions
    public let cache: Cache
    /// The Tuist server's URL.
    public let url: String

    @available(*, deprecated, message: "Use the new .init(project: .tuist(...)) that nests the property-related attributes into project.")
    public init(
        compatibleXcodeVersions: CompatibleXcodeVersions = .all,
        cloud: Cloud? = nil,
        fullHandle: String? = nil,
        url: String = "https://tuist.dev",
        swiftVersion: Version? = nil,
        plugins: [PluginLocation] = [],
        generationOptions: GenerationOptions = .options(),
        inspectOptions: InspectOptions = .options(),
        installOptions: InstallOptions = .options()
    ) {
        var generationOptions = generationOptions
        if let cloud { generationOptions.optionalAuthentication = cloud.options.contains(.optional) }
        self.init(
            fullHandle: cloud?.projectId ?? fullHandle,
            inspectOptions: inspectOptions,
            url: cloud?.url ?? url,
            project: .tuist(compatibleXcodeVersions: compatibleXcodeVersions, swiftVersion: swiftVersion, plugins: plugins,
                            generationOptions: generationOptions, installOptions: installOptions)
        )
    }

    public init(
        fullHandle: String? = nil,
        inspectOptions: InspectOptions = .options(),
        cache: Cache = .options(),
        url: String = "https://tuist.dev",
        project: TuistProject
    ) {
        self.project = project
        self.fullHandle = fullHandle
        self.inspectOptions = inspectOptions
        self.cache = cache
        self.url = url
    }
}

/// The project Tuist works with: one it generates, or an Xcode project it only reads.
public enum TuistProject: Codable, Equatable, Sendable {
    case tuist(
        compatibleXcodeVersions: CompatibleXcodeVersions = .all,
        swiftVersion: Version? = nil,
        plugins: [PluginLocation] = [],
        generationOptions: Tuist.GenerationOptions = .options(),
        inspectOptions: Tuist.InspectOptions = .options(),
        installOptions: Tuist.InstallOptions = .options(),
        cacheOptions: Tuist.CacheOptions = .options()
    )
    case xcode(TuistXcodeProjectOptions = TuistXcodeProjectOptions.options())
}

/// Options for an Xcode project Tuist does not generate (none yet).
public struct TuistXcodeProjectOptions: Codable, Equatable, Sendable, Hashable {
    public static func options() -> Self {
        TuistXcodeProjectOptions()
    }
}

/// The older Tuist Cloud settings.
public struct Cloud: Codable, Equatable, Sendable {
    public enum Option: String, Codable, Equatable, Sendable {
        @available(*, deprecated, message: "Analytics are sent to the cloud backend by default. Use `disableAnalytics` to disable this feature.")
        case analytics
        case disableAnalytics
        /// Commands go on when the server cannot be reached or the user is not signed in.
        case optional
    }

    public let url: String
    public let projectId: String
    public let options: [Option]

    public static func cloud(projectId: String, url: String, options: [Option] = []) -> Cloud {
        Cloud(url: url, projectId: projectId, options: options)
    }
}

/// The Xcode versions a project builds with.
public enum CompatibleXcodeVersions: ExpressibleByArrayLiteral, ExpressibleByStringInterpolation, Codable, Equatable, Sendable {
    case all
    case exact(Version)
    case upToNextMajor(Version)
    case upToNextMinor(Version)
    case list([CompatibleXcodeVersions])

    public init(arrayLiteral elements: [CompatibleXcodeVersions]) {
        self = .list(elements)
    }

    public init(arrayLiteral elements: CompatibleXcodeVersions...) {
        self = .list(elements)
    }

    public init(stringLiteral value: String) {
        self = .exact(Version(stringLiteral: value))
    }
}

/// Where a plugin is: a folder, or a git repository at a tag or commit.
public struct PluginLocation: Codable, Equatable, Sendable {
    public enum LocationType: Codable, Equatable, Sendable {
        case local(path: Path)
        case gitWithTag(url: String, tag: String, directory: String?, releaseUrl: String?)
        case gitWithSha(url: String, sha: String, directory: String?)
    }

    public var type: LocationType

    public static func local(path: Path) -> Self {
        PluginLocation(type: .local(path: path))
    }

    /// A repository at `tag`; `directory` when the plugin is not at its root, `releaseUrl` for its binary.
    public static func git(url: String, tag: String, directory: String? = nil, releaseUrl: String? = nil) -> Self {
        PluginLocation(type: .gitWithTag(url: url, tag: tag, directory: directory, releaseUrl: releaseUrl))
    }

    public static func git(url: String, sha: String, directory: String? = nil) -> Self {
        PluginLocation(type: .gitWithSha(url: url, sha: sha, directory: directory))
    }
}
