// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A file, glob or folder reference in a copy-files phase.
public enum CopyFileElement: Codable, Equatable, Sendable {
    case glob(pattern: Path, condition: PlatformCondition? = nil, codeSignOnCopy: Bool = false)
    case folderReference(path: Path, condition: PlatformCondition? = nil, codeSignOnCopy: Bool = false)
}

extension CopyFileElement: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self = .glob(pattern: .path(value))
    }
}

/// A copy-files build phase.
public struct CopyFilesAction: Codable, Equatable, Sendable {
    public var name: String
    public var destination: Destination
    /// A folder inside the destination.
    public var subpath: String?
    public var files: [CopyFileElement]

    /// Where the files are copied.
    public enum Destination: String, Codable, Equatable, Sendable {
        case absolutePath
        case productsDirectory
        case wrapper
        case executables
        case resources
        case javaResources
        case frameworks
        case sharedFrameworks
        case sharedSupport
        case plugins
        case other
    }

    init(name: String, destination: Destination, subpath: String? = nil, files: [CopyFileElement]) {
        self.name = name
        self.destination = destination
        self.subpath = subpath
        self.files = files
    }

    public static func productsDirectory(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .productsDirectory, subpath: subpath, files: files)
    }

    public static func wrapper(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .wrapper, subpath: subpath, files: files)
    }

    public static func executables(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .executables, subpath: subpath, files: files)
    }

    public static func resources(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .resources, subpath: subpath, files: files)
    }

    public static func javaResources(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .javaResources, subpath: subpath, files: files)
    }

    public static func frameworks(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .frameworks, subpath: subpath, files: files)
    }

    public static func sharedFrameworks(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .sharedFrameworks, subpath: subpath, files: files)
    }

    public static func sharedSupport(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .sharedSupport, subpath: subpath, files: files)
    }

    public static func plugins(name: String, subpath: String? = nil, files: [CopyFileElement]) -> CopyFilesAction {
        CopyFilesAction(name: name, destination: .plugins, subpath: subpath, files: files)
    }
}
