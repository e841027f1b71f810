// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A glob of files, with globs to leave out.
public struct FileListGlob: Codable, Equatable, Sendable, ExpressibleByStringInterpolation {
    public var glob: Path
    public var excluding: [Path]

    public static func glob(_ glob: Path, excluding: [Path] = []) -> FileListGlob {
        FileListGlob(glob: glob, excluding: excluding)
    }

    public static func glob(_ glob: Path, excluding: Path?) -> FileListGlob {
        FileListGlob(glob: glob, excluding: excluding.map { [$0] } ?? [])
    }
}

extension FileListGlob {
    public init(stringLiteral value: String) {
        self.init(glob: .path(value), excluding: [])
    }
}

/// Globs of files; a string or an array of strings.
public struct FileList: Codable, Equatable, Sendable, ExpressibleByStringInterpolation, ExpressibleByArrayLiteral {
    public let globs: [FileListGlob]

    public static func list(_ globs: [FileListGlob]) -> FileList {
        FileList(globs: globs)
    }
}

extension FileList {
    public init(stringLiteral value: String) {
        self.init(globs: [FileListGlob(stringLiteral: value)])
    }

    public init(arrayLiteral elements: String...) {
        self.init(globs: elements.map(FileListGlob.init(stringLiteral:)))
    }
}

/// A file (or glob) or a folder reference, added to a project, target or workspace.
public enum FileElement: Codable, Equatable, Sendable, ExpressibleByStringInterpolation {
    case glob(pattern: Path, excluding: [Path] = [])
    case folderReference(path: Path)

    public init(stringLiteral value: String) {
        self = .glob(pattern: .path(value))
    }
}

// A single string where a list of file elements is expected is one glob.
extension [FileElement]: @retroactive ExpressibleByUnicodeScalarLiteral {
    public typealias UnicodeScalarLiteralType = String
}

extension [FileElement]: @retroactive ExpressibleByExtendedGraphemeClusterLiteral {
    public typealias ExtendedGraphemeClusterLiteralType = String
}

extension [FileElement]: @retroactive ExpressibleByStringLiteral {
    public typealias StringLiteralType = String

    public init(stringLiteral value: String) {
        self = [.glob(pattern: .path(value))]
    }
}
