// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

extension Package {
    /// A Swift package dependency, as Swift Package Manager states one, with the traits it enables.
    public struct Dependency: Codable, Equatable, Sendable {
        /// Where the package comes from.
        public enum Kind: Codable, Equatable, Sendable {
            case fileSystem(path: Path)
            case sourceControl(location: String, requirement: SourceControlRequirement)
            case registry(id: String, requirement: RegistryRequirement)
        }

        public enum SourceControlRequirement: Codable, Equatable, Sendable {
            case exact(Version)
            case range(Range<Version>)
            case revision(String)
            case branch(String)
        }

        public enum RegistryRequirement: Codable, Equatable, Sendable {
            case exact(Version)
            case range(Range<Version>)
        }

        /// A trait the dependency enables; `.defaults` is the package's default traits.
        public struct Trait: Codable, Hashable, Sendable, ExpressibleByStringLiteral {
            public static let defaults = Self(name: "default")
            public let name: String

            public init(name: String) {
                self.name = name
            }

            public init(stringLiteral value: StringLiteralType) {
                self.init(name: value)
            }
        }

        public let kind: Kind
        /// The enabled traits; empty turns the default traits off.
        public let traits: Set<Trait>

        public init(kind: Kind, traits: Set<Trait> = [.defaults]) {
            self.kind = kind
            self.traits = traits
        }

        /// The same dependency as an older `Package` value.
        public var package: Package {
            switch kind {
            case let .fileSystem(path): .package(path: path)
            case let .sourceControl(location, requirement): .remote(url: location, requirement: requirement.packageRequirement)
            case let .registry(id, requirement): .registry(identifier: id, requirement: requirement.packageRequirement)
            }
        }
    }
}

extension Package.Dependency {
    public static func package(url: String, from version: Version, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        .package(url: url, .range(version ..< Version(version.major + 1, 0, 0)), traits: traits)
    }

    public static func package(url: String, _ requirement: SourceControlRequirement, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        Package.Dependency(kind: .sourceControl(location: url, requirement: requirement), traits: traits)
    }

    public static func package(url: String, exact version: Version, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        .package(url: url, .exact(version), traits: traits)
    }

    public static func package(url: String, branch: String, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        .package(url: url, .branch(branch), traits: traits)
    }

    public static func package(url: String, revision: String, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        .package(url: url, .revision(revision), traits: traits)
    }

    public static func package(url: String, _ range: Range<Version>, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        .package(url: url, .range(range), traits: traits)
    }

    public static func package(url: String, _ range: ClosedRange<Version>, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        .package(url: url, range.lowerBound ..< range.upperBound.nextPatch, traits: traits)
    }

    public static func package(path: Path, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        Package.Dependency(kind: .fileSystem(path: path), traits: traits)
    }

    public static func package(id: String, from version: Version, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        Package.Dependency(kind: .registry(id: id, requirement: .range(version ..< Version(version.major + 1, 0, 0))), traits: traits)
    }

    public static func package(id: String, exact version: Version, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        Package.Dependency(kind: .registry(id: id, requirement: .exact(version)), traits: traits)
    }

    public static func package(id: String, _ range: Range<Version>, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        Package.Dependency(kind: .registry(id: id, requirement: .range(range)), traits: traits)
    }

    public static func package(id: String, _ range: ClosedRange<Version>, traits: Set<Trait> = [.defaults]) -> Package.Dependency {
        Package.Dependency(kind: .registry(id: id, requirement: .range(range.lowerBound ..< range.upperBound.nextPatch)), traits: traits)
    }
}

extension Package.Dependency.SourceControlRequirement {
    var packageRequirement: Package.Requirement {
        switch self {
        case let .exact(version): .exact(version)
        case let .range(range): range.packageRequirement
        case let .revision(revision): .revision(revision)
        case let .branch(branch): .branch(branch)
        }
    }
}

extension Package.Dependency.RegistryRequirement {
    var packageRequirement: Package.Requirement {
        switch self {
        case let .exact(version): .exact(version)
        case let .range(range): range.packageRequirement
        }
    }
}

extension Range where Bound == Version {
    /// The range as the older requirement: up to the next major or minor version when it is one.
    var packageRequirement: Package.Requirement {
        if upperBound == Version(lowerBound.major + 1, 0, 0) { return .upToNextMajor(from: lowerBound) }
        if upperBound == Version(lowerBound.major, lowerBound.minor + 1, 0) { return .upToNextMinor(from: lowerBound) }
        return .range(from: lowerBound, to: upperBound)
    }
}
