// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A Swift package Xcode integrates: remote, from a registry, or local.
public enum Package: Equatable, Codable, Sendable {
    case remote(url: String, requirement: Requirement)
    case registry(identifier: String, requirement: Requirement)
    case local(path: Path)
}

extension Package {
    /// Which versions of a package are accepted.
    public enum Requirement: Codable, Equatable, Sendable {
        case upToNextMajor(from: Version)
        case upToNextMinor(from: Version)
        case range(from: Version, to: Version)
        case exact(Version)
        case branch(String)
        case revision(String)
    }
}

extension Package {
    /// `version` up to the next major version.
    public static func package(url: String, from version: Version) -> Package {
        .package(url: url, .upToNextMajor(from: version))
    }

    public static func package(url: String, _ requirement: Package.Requirement) -> Package {
        .remote(url: url, requirement: requirement)
    }

    /// Versions in `range` (upper bound excluded).
    public static func package(url: String, _ range: Range<Version>) -> Package {
        .remote(url: url, requirement: .range(from: range.lowerBound, to: range.upperBound))
    }

    /// Versions in `range` (upper bound included).
    public static func package(url: String, _ range: ClosedRange<Version>) -> Package {
        .package(url: url, range.lowerBound ..< range.upperBound.nextPatch)
    }

    /// A package in a folder.
    public static func package(path: Path) -> Package {
        .local(path: path)
    }

    /// A registry package, `version` up to the next major version.
    public static func package(id: String, from version: Version) -> Package {
        .registry(identifier: id, requirement: .upToNextMajor(from: version))
    }

    public static func package(id: String, exact version: Version) -> Package {
        .registry(identifier: id, requirement: .exact(version))
    }

    public static func package(id: String, _ range: Range<Version>) -> Package {
        .registry(identifier: id, requirement: .range(from: range.lowerBound, to: range.upperBound))
    }

    public static func package(id: String, _ range: ClosedRange<Version>) -> Package {
        .registry(identifier: id, requirement: .range(from: range.lowerBound, to: range.upperBound.nextPatch))
    }
}

// Spellings from other tools, unavailable so the compiler names the right one.
extension Package {
    @available(*, unavailable, message: "use package(url:_:) with the .exact(Version) initializer instead")
    public static func package(url _: String, version _: Version) -> Package {
        fatalError()
    }

    @available(*, unavailable, message: "use package(url:_:) with the .branch(String) initializer instead")
    public static func package(url _: String, branch _: String) -> Package {
        fatalError()
    }

    @available(*, unavailable, message: "use package(url:_:) with the .revision(String) initializer instead")
    public static func package(url _: String, revision _: String) -> Package {
        fatalError()
    }

    @available(*, unavailable, message: "use package(url:_:) without the range label instead")
    public static func package(url _: String, range _: Range<Version>) -> Package {
        fatalError()
    }
}

extension Version {
    /// The version one patch above, keeping identifiers: the exclusive bound of a closed range.
    var nextPatch: Version {
        Version(major, minor, patch + 1, prereleaseIdentifiers: prereleaseIdentifiers,
                buildMetadataIdentifiers: buildMetadataIdentifiers)
    }
}
