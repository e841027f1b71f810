// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A Core Data model and, optionally, its current version.
public struct CoreDataModel: Codable, Equatable, Sendable {
    public var path: Path
    /// With or without the extension; nil reads `.xccurrentversion`.
    public var currentVersion: String?

    public static func coreDataModel(_ path: Path, currentVersion: String? = nil) -> Self {
        self.init(path: path, currentVersion: currentVersion)
    }
}

/// Whether a target merges its dynamic dependencies into its binary (mergeable libraries).
public enum MergedBinaryType: Equatable, Codable, Sendable {
    case disabled
    /// Merges the direct dependencies built in the project.
    case automatic
    /// Merges the direct dependencies and these prebuilt ones.
    case manual(mergeableDependencies: Set<String>)
}

/// Tags and flags Tuist uses to select and treat targets.
public struct TargetMetadata: Codable, Equatable, Sendable {
    public var tags: Set<String>
    /// Whether `tuist inspect redundant-import` skips the target.
    public var ignoreRedundantDependencies: Bool

    @available(*, deprecated, renamed: "metadata(tags:)", message: "Use the static 'metadata' initializer instead")
    public init(tags: Set<String>) {
        self.init(tags: tags, isLocal: false, ignoreRedundantDependencies: false)
    }

    init(tags: Set<String>, isLocal _: Bool, ignoreRedundantDependencies: Bool) {
        self.tags = tags
        self.ignoreRedundantDependencies = ignoreRedundantDependencies
    }

    public static func metadata(tags: Set<String> = Set(), isLocal: Bool = true, ignoreRedundantDependencies: Bool = false) -> TargetMetadata {
        TargetMetadata(tags: tags, isLocal: isLocal, ignoreRedundantDependencies: ignoreRedundantDependencies)
    }

    /// No tags.
    public static var `default`: TargetMetadata {
        .metadata()
    }
}

/// A folder Xcode keeps in sync itself (a synchronized root group, Xcode 16).
public struct BuildableFolder: Sendable, Codable, Equatable, ExpressibleByStringLiteral {
    public var path: Path
    public var exceptions: BuildableFolderExceptions

    public static func folder(_ path: Path, exceptions: BuildableFolderExceptions = .exceptions([])) -> Self {
        Self(path: path, exceptions: exceptions)
    }

    init(path: Path, exceptions: BuildableFolderExceptions) {
        self.path = path
        self.exceptions = exceptions
    }

    public init(stringLiteral value: String) {
        self.init(path: Path(stringLiteral: value), exceptions: .exceptions([]))
    }
}

/// A buildable folder's exceptions.
public struct BuildableFolderExceptions: Sendable, Codable, Equatable, Hashable, ExpressibleByArrayLiteral {
    public var exceptions: [BuildableFolderException]

    public init(arrayLiteral elements: BuildableFolderException...) {
        exceptions = elements
    }

    private init(exceptions: [BuildableFolderException]) {
        self.exceptions = exceptions
    }

    public static func exceptions(_ exceptions: [BuildableFolderException]) -> Self {
        BuildableFolderExceptions(exceptions: exceptions)
    }
}

/// Files of a buildable folder left out, given flags, header visibility or platforms, or made
/// members of another target.
public struct BuildableFolderException: Sendable, Codable, Equatable, Hashable {
    public var excluded: [String]
    public var compilerFlags: [String: String]
    public var publicHeaders: [String]
    public var privateHeaders: [String]
    public var platformFilters: [String: Set<PlatformFilter>]
    /// Another target the `included` files belong to.
    public var target: String?
    public var included: [String]

    private init(excluded: [String] = [], compilerFlags: [String: String] = [:], publicHeaders: [String] = [],
                 privateHeaders: [String] = [], platformFilters: [String: Set<PlatformFilter>] = [:],
                 target: String? = nil, included: [String] = []) {
        self.excluded = excluded
        self.compilerFlags = compilerFlags
        self.publicHeaders = publicHeaders
        self.privateHeaders = privateHeaders
        self.platformFilters = platformFilters
        self.target = target
        self.included = included
    }

    public static func exception(
        excluded: [String] = [],
        compilerFlags: [String: String] = [:],
        publicHeaders: [String] = [],
        privateHeaders: [String] = [],
        platformFilters: [String: Set<PlatformFilter>] = [:]
    ) -> BuildableFolderException {
        BuildableFolderException(excluded: excluded, compilerFlags: compilerFlags, publicHeaders: publicHeaders,
                                 privateHeaders: privateHeaders, platformFilters: platformFilters)
    }

    /// Files of the folder that are also members of `target`.
    public static func exception(
        target: String,
        included: [String] = [],
        compilerFlags: [String: String] = [:],
        platformFilters: [String: Set<PlatformFilter>] = [:]
    ) -> BuildableFolderException {
        BuildableFolderException(compilerFlags: compilerFlags, platformFilters: platformFilters, target: target, included: included)
    }
}

/// How a binary is linked.
public enum BinaryLinking: String, Codable, Hashable, Sendable {
    case `static`, dynamic
}

/// The binary a foreign (non-Xcode) build produces.
public enum ForeignBuildOutput: Codable, Hashable, Sendable {
    public enum Linking: String, Codable, Hashable, Sendable {
        case `static`, dynamic
    }

    case xcframework(path: Path, linking: Linking)
    case framework(path: Path, linking: Linking)
    case library(path: Path, publicHeaders: Path, swiftModuleMap: Path?, linking: Linking)
}

/// What a foreign build's output depends on.
public enum Input: Codable, Hashable, Sendable {
    case file(Path)
    case folder(Path)
    case glob(Path)
    /// A command whose output is part of the cache key.
    case script(String)
}
