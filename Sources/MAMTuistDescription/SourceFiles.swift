// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// The file attribute of a header or source in a build phase.
public enum FileCodeGen: String, Codable, Equatable, Sendable {
    case `public`
    case `private`
    case project
    case disabled
}

/// A glob of source files with what applies to them.
public struct SourceFileGlob: Codable, Equatable, Sendable, ExpressibleByStringInterpolation {
    /// Whether the files exist when the project is generated.
    public enum FileType: String, Codable, Sendable {
        case alwaysPresent
        /// Written later, by a build phase for instance.
        case generated
    }

    public var glob: Path
    public var excluding: [Path]
    public var compilerFlags: String?
    public var codeGen: FileCodeGen?
    public var compilationCondition: PlatformCondition?
    public var type: FileType

    public static func glob(
        _ glob: Path,
        excluding: [Path] = [],
        compilerFlags: String? = nil,
        codeGen: FileCodeGen? = nil,
        compilationCondition: PlatformCondition? = nil
    ) -> Self {
        .init(glob: glob, excluding: excluding, compilerFlags: compilerFlags, codeGen: codeGen,
              compilationCondition: compilationCondition, type: .alwaysPresent)
    }

    public static func glob(
        _ glob: Path,
        excluding: Path?,
        compilerFlags: String? = nil,
        codeGen: FileCodeGen? = nil,
        compilationCondition: PlatformCondition? = nil
    ) -> Self {
        .init(glob: glob, excluding: excluding.map { [$0] } ?? [], compilerFlags: compilerFlags, codeGen: codeGen,
              compilationCondition: compilationCondition, type: .alwaysPresent)
    }

    /// One file that a build step writes (so it is not there when generating).
    public static func generated(
        _ path: Path,
        compilerFlags: String? = nil,
        codeGen: FileCodeGen? = nil,
        compilationCondition: PlatformCondition? = nil
    ) -> Self {
        .init(glob: path, excluding: [], compilerFlags: compilerFlags, codeGen: codeGen,
              compilationCondition: compilationCondition, type: .generated)
    }
}

extension SourceFileGlob {
    public init(stringLiteral value: String) {
        self.init(glob: .path(value), excluding: [], compilerFlags: nil, codeGen: nil, compilationCondition: nil, type: .alwaysPresent)
    }
}

/// A target's source globs.
public struct SourceFilesList: Codable, Equatable, Sendable, ExpressibleByStringInterpolation, ExpressibleByArrayLiteral {
    public var globs: [SourceFileGlob]

    public static func sourceFilesList(globs: [SourceFileGlob]) -> Self {
        self.init(globs: globs)
    }

    public static func sourceFilesList(globs: [String]) -> Self {
        sourceFilesList(globs: globs.map(SourceFileGlob.init(stringLiteral:)))
    }

    /// One glob for each path.
    public static func paths(_ paths: [Path]) -> SourceFilesList {
        SourceFilesList(globs: paths.map { .glob($0) })
    }
}

extension SourceFilesList {
    public init(stringLiteral value: String) {
        self = .sourceFilesList(globs: [value])
    }

    public init(arrayLiteral elements: SourceFileGlob...) {
        self.init(globs: elements)
    }
}
