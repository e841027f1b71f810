// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A project: the value a `Project.swift` manifest defines. Creating one dumps it when the
/// manifest runs with `--tuist-dump`.
public struct Project: Codable, Equatable, Sendable {
    private enum PackageStorage: Codable, Equatable, Sendable {
        case legacy([Package])
        case dependencies([Package.Dependency])
    }

    public let name: String
    /// The organization Xcode puts in copyright notices.
    public let organizationName: String?
    /// The prefix of class files Xcode creates.
    public let classPrefix: String?
    public let options: Options
    private let packageStorage: PackageStorage
    public let targets: [Target]
    /// Schemes besides those Tuist generates for each target.
    public let schemes: [Scheme]
    public let settings: Settings?
    public let fileHeaderTemplate: FileHeaderTemplate?
    public let additionalFiles: [FileElement]
    public let resourceSynthesizers: [ResourceSynthesizer]

    /// The Swift packages Xcode integrates, as the older package values.
    public var packages: [Package] {
        switch packageStorage {
        case let .legacy(packages): packages
        case let .dependencies(dependencies): dependencies.map(\.package)
        }
    }

    /// A project whose packages are given as `Package.Dependency` (with traits).
    public init(
        name: String,
        organizationName: String? = nil,
        classPrefix: String? = nil,
        options: Options = .options(),
        packages: [Package.Dependency] = [],
        settings: Settings? = nil,
        targets: [Target] = [],
        schemes: [Scheme] = [],
        fileHeaderTemplate: FileHeaderTemplate? = nil,
        additionalFiles: [FileElement] = [],
        resourceSynthesizers: [ResourceSynthesizer] = .default
    ) {
        self.init(name: name, organizationName: organizationName, classPrefix: classPrefix, options: options,
                  packageStorage: packages.isEmpty ? .legacy([]) : .dependencies(packages), settings: settings, targets: targets,
                  schemes: schemes, fileHeaderTemplate: fileHeaderTemplate, additionalFiles: additionalFiles,
                  resourceSynthesizers: resourceSynthesizers)
    }

    /// A project whose packages are given as the older `Package` values.
    @available(*, deprecated, message: "Use Package.Dependency values in the packages parameter instead.")
    @_disfavoredOverload
    public init(
        name: String,
        organizationName: String? = nil,
        classPrefix: String? = nil,
        options: Options = .options(),
        packages: [Package],
        settings: Settings? = nil,
        targets: [Target] = [],
        schemes: [Scheme] = [],
        fileHeaderTemplate: FileHeaderTemplate? = nil,
        additionalFiles: [FileElement] = [],
        resourceSynthesizers: [ResourceSynthesizer] = .default
    ) {
        self.init(name: name, organizationName: organizationName, classPrefix: classPrefix, options: options,
                  packageStorage: .legacy(packages), settings: settings, targets: targets, schemes: schemes,
                  fileHeaderTemplate: fileHeaderTemplate, additionalFiles: additionalFiles, resourceSynthesizers: resourceSynthesizers)
    }

    private init(
        name: String,
        organizationName: String?,
        classPrefix: String?,
        options: Options,
        packageStorage: PackageStorage,
        settings: Settings?,
        targets: [Target],
        schemes: [Scheme],
        fileHeaderTemplate: FileHeaderTemplate?,
        additionalFiles: [FileElement],
        resourceSynthesizers: [ResourceSynthesizer]
    ) {
        self.name = name
        self.organizationName = organizationName
        self.classPrefix = classPrefix
        self.options = options
        self.packageStorage = packageStorage
        self.settings = settings
        self.targets = targets
        self.schemes = schemes
        self.fileHeaderTemplate = fileHeaderTemplate
        self.additionalFiles = additionalFiles
        self.resourceSynthesizers = resourceSynthesizers
        dumpIfNeeded(self)
    }

    /// Whether a target depends on a dependency of `Tuist/Package.swift`.
    public var containsExternalDependencies: Bool {
        targets.contains { target in
            target.dependencies.contains { dependency in
                if case .external = dependency { return true }
                return false
            }
        }
    }
}
