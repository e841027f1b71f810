public import Foundation
import MAMActivation

/// An Xcode project read from its `project.pbxproj`: the targets, their build configurations,
/// and each configuration's build settings resolved the way Xcode layers them (project
/// `.xcconfig`, project settings, target `.xcconfig`, target settings, each `$(inherited)`
/// reaching the layer below), so lint sees the values a build would use without `--set`.
public struct XcodeProject: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var name: String
        /// The `baseConfigurationReference` xcconfig, as a path under the source root.
        public var baseConfiguration: String?
        /// Settings written in the project file; list values joined with spaces.
        public var settings: [String: String]

        public init(name: String, baseConfiguration: String? = nil, settings: [String: String]) {
            self.name = name
            self.baseConfiguration = baseConfiguration
            self.settings = settings
        }
    }

    public struct Target: Sendable, Hashable {
        public var name: String
        /// `com.apple.product-type.application`, `com.apple.product-type.app-extension`…
        public var productType: String
        public var configurations: [Configuration]
        public var defaultConfiguration: String?
        /// Targets whose products this one embeds as app extensions (its "Embed Foundation
        /// Extensions" phase), by name.
        public var embeddedTargets: [String]
        /// Targets it depends on, by name.
        public var dependencies: [String]
        /// Settings the generator computes with code mamsim does not run (a Tuist manifest's
        /// `bundleId:` built by a helper): set in the project it generates, their values unknown
        /// here, never "unset".
        public var computed: Set<String> = []

        public var isApplication: Bool { productType == "com.apple.product-type.application" }
        public var isAppExtension: Bool {
            productType == "com.apple.product-type.app-extension" || productType == "com.apple.product-type.extensionkit-extension"
        }

        public func configuration(named name: String) -> Configuration? { configurations.first { $0.name == name } }

        public init(name: String, productType: String, configurations: [Configuration], defaultConfiguration: String?,
                    embeddedTargets: [String], dependencies: [String]) {
            self.name = name
            self.productType = productType
            self.configurations = configurations
            self.defaultConfiguration = defaultConfiguration
            self.embeddedTargets = embeddedTargets
            self.dependencies = dependencies
        }
    }

    /// The `.xcodeproj` folder.
    public var url: URL
    /// `$(SRCROOT)`: the folder holding the `.xcodeproj`, moved by `projectDirPath`.
    public var sourceRoot: URL
    public var name: String
    public var developmentRegion: String?
    public var configurations: [Configuration]
    public var defaultConfiguration: String?
    public var targets: [Target]
    /// The file the project was read from: its `project.pbxproj`, or the XcodeGen spec
    /// (`project.yml`) of a project not generated yet. Findings about the project name it.
    public var manifest: URL
    /// Files the project generator writes when it generates the project (XcodeGen's
    /// `info.properties`, `entitlements.properties`), by standardized path: read in place of
    /// what is on disk at that path, which the generator would overwrite.
    public var generatedFiles: [String: Data] = [:]
    /// What could not be read and was left out (an XcodeGen `include:` missing from a checkout),
    /// one sentence each: said by lint as a warning and by init as a comment.
    public var unread: [String] = []
    /// How the project was read where that matters to its reader (a Tuist manifest read as
    /// source because it did not compile against Tuist 4's names), one sentence each: said by
    /// lint and init as a note.
    public var notes: [String] = []

    /// `targets` with only the extensions among what each embeds: a generated project's
    /// dependencies name frameworks too, which are linked, not embedded.
    public static func embeddingExtensionsOnly(_ targets: [Target]) -> [Target] {
        let extensions = Set(targets.filter(\.isAppExtension).map(\.name))
        return targets.map { t in
            var t = t
            t.embeddedTargets = t.embeddedTargets.filter(extensions.contains)
            return t
        }
    }

    /// How messages name the project: `App.xcodeproj`, `project.yml (XcodeGen)`, `Project.swift (Tuist)`.
    public var displayName: String {
        manifest.lastPathComponent == "project.pbxproj" ? "\(name).xcodeproj"
            : manifest.lastPathComponent == "Project.swift" ? "Project.swift (Tuist)" : "\(manifest.lastPathComponent) (XcodeGen)"
    }

    /// A project read from elsewhere than a `project.pbxproj` (an XcodeGen spec).
    public init(url: URL, manifest: URL, sourceRoot: URL, name: String, configurations: [Configuration], defaultConfiguration: String?, targets: [Target]) {
        self.url = url
        self.manifest = manifest
        self.sourceRoot = sourceRoot
        self.name = name
        self.developmentRegion = nil
        self.configurations = configurations
        self.defaultConfiguration = defaultConfiguration
        self.targets = targets
    }

    /// Reads `url` (an `.xcodeproj` folder).
    public init(url: URL) throws(XcodeProjectError) {
        let file = url.appendingPathComponent("project.pbxproj")
        let data: Data
        do {
            data = try InputFile.contents(of: file)
        } catch let large as InputFile.TooLarge {
            throw XcodeProjectError(file: file.path, problem: "is larger than \(large.limit >> 20) MiB, the most mamsim reads", fix: "check that it is the project's own project.pbxproj")
        } catch {
            throw XcodeProjectError(file: file.path, problem: "cannot be read", fix: "check that the .xcodeproj holds a project.pbxproj")
        }
        try self.init(projectFile: data, url: url)
    }

    /// Reads the bytes of `url`'s `project.pbxproj`.
    /// A project file's top-level dictionary, refused with what to do when it is too deep to
    /// parse safely, empty, or not a property list.
    static func root(of data: Data, file: URL) throws(XcodeProjectError) -> [String: Any] {
        // Foundation's parser recurses once per level: a project nested thousands deep would
        // overflow the stack. Real projects nest a handful of levels.
        if let line = Self.nestingBeyond(64, in: data) {
            throw XcodeProjectError(file: file.path, problem: "nests { } and ( ) more than 64 deep (line \(line)); it is not an Xcode project file", fix: "open and save the project in Xcode")
        }
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw XcodeProjectError(file: file.path, problem: "is empty", fix: "restore it from version control, or generate the project again")
        }
        do {
            guard let parsed = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
                throw XcodeProjectError(file: file.path, problem: "is not a property list dictionary", fix: "open and save the project in Xcode")
            }
            return parsed
        } catch let error as XcodeProjectError {
            throw error
        } catch {
            throw XcodeProjectError(file: file.path, problem: "cannot be parsed (\(error.localizedDescription))",
                                    fix: "resolve merge conflicts or open and save the project in Xcode")
        }
    }

    public init(projectFile data: Data, url: URL) throws(XcodeProjectError) {
        self.url = url
        manifest = url.appendingPathComponent("project.pbxproj")
        name = url.deletingPathExtension().lastPathComponent
        let file = url.appendingPathComponent("project.pbxproj")
        let root = try Self.root(of: data, file: file)
        let objects = Objects(root["objects"] as? [String: Any] ?? [:])
        guard let rootId = root["rootObject"] as? String, let project = objects[rootId], project["isa"] as? String == "PBXProject" else {
            throw XcodeProjectError(file: file.path, problem: "has no PBXProject root object", fix: "open and save the project in Xcode")
        }
        let folder = url.deletingLastPathComponent()
        let projectDir = project["projectDirPath"] as? String ?? ""
        sourceRoot = projectDir.isEmpty ? folder : (projectDir.hasPrefix("/") ? URL(fileURLWithPath: projectDir) : folder.appendingPathComponent(projectDir))
        developmentRegion = project["developmentRegion"] as? String
        let paths = FilePaths(objects: objects, mainGroup: project["mainGroup"] as? String, sourceRoot: sourceRoot)
        (configurations, defaultConfiguration) = Self.configurations(objects, list: project["buildConfigurationList"] as? String, paths: paths)

        var productOwner: [String: String] = [:]  // product file reference → target name
        let targetIds = project["targets"] as? [String] ?? []
        for id in targetIds {
            if let target = objects[id], let product = target["productReference"] as? String, let name = target["name"] as? String {
                productOwner[product] = name
            }
        }
        targets = targetIds.compactMap { id -> Target? in
            guard let object = objects[id], let name = object["name"] as? String else { return nil }
            let (configs, defaultName) = Self.configurations(objects, list: object["buildConfigurationList"] as? String, paths: paths)
            var embedded: [String] = []
            for phase in (object["buildPhases"] as? [String] ?? []).compactMap({ objects[$0] })
            where phase["isa"] as? String == "PBXCopyFilesBuildPhase" {
                for buildFile in (phase["files"] as? [String] ?? []).compactMap({ objects[$0] }) {
                    if let ref = buildFile["fileRef"] as? String, let owner = productOwner[ref] { embedded.append(owner) }
                }
            }
            let dependencies = (object["dependencies"] as? [String] ?? []).compactMap { objects[$0]?["target"] as? String }
                .compactMap { objects[$0]?["name"] as? String }
            return Target(name: name, productType: object["productType"] as? String ?? "", configurations: configs,
                          defaultConfiguration: defaultName, embeddedTargets: embedded, dependencies: dependencies)
        }
    }

    /// The line where `{`/`(` nesting first exceeds `limit`, outside quoted strings and
    /// comments; `nil` when it never does.
    public static func nestingBeyond(_ limit: Int, in data: Data) -> Int? {
        var depth = 0, line = 1
        var inString = false, escaped = false
        var previous: UInt8 = 0
        var inLineComment = false, inBlockComment = false
        for byte in data {
            if byte == UInt8(ascii: "\n") { line += 1; inLineComment = false }
            defer { previous = byte }
            if inLineComment { continue }
            if inBlockComment {
                if previous == UInt8(ascii: "*"), byte == UInt8(ascii: "/") { inBlockComment = false }
                continue
            }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "/") where previous == UInt8(ascii: "/"): inLineComment = true
            case UInt8(ascii: "*") where previous == UInt8(ascii: "/"): inBlockComment = true
            case UInt8(ascii: "{"), UInt8(ascii: "("):
                depth += 1
                if depth > limit { return line }
            case UInt8(ascii: "}"), UInt8(ascii: ")"): depth -= 1
            default: break
            }
        }
        return nil
    }

    private static func configurations(_ objects: Objects, list: String?, paths: FilePaths) -> ([Configuration], String?) {
        guard let list = list.flatMap({ objects[$0] }) else { return ([], nil) }
        let configs = (list["buildConfigurations"] as? [String] ?? []).compactMap { id -> Configuration? in
            guard let object = objects[id], let name = object["name"] as? String else { return nil }
            var settings: [String: String] = [:]
            for (key, value) in object["buildSettings"] as? [String: Any] ?? [:] {
                if let string = value as? String {
                    settings[key] = string
                } else if let array = value as? [Any] {
                    settings[key] = array.compactMap { $0 as? String }.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
                }
            }
            var base = (object["baseConfigurationReference"] as? String).flatMap { paths.path(of: $0) }
            // Xcode 16 folders: the xcconfig sits in a synchronized group, named relative to it.
            if base == nil, let anchor = object["baseConfigurationReferenceAnchor"] as? String,
               let relative = object["baseConfigurationReferenceRelativePath"] as? String, let folder = paths.path(of: anchor) {
                base = folder.isEmpty ? relative : folder + "/" + relative
            }
            return Configuration(name: name, baseConfiguration: base, settings: settings)
        }
        return (configs, list["defaultConfigurationName"] as? String)
    }

    /// Build settings Xcode defines for every target, before the project's own.
    public func standardSettings(for target: Target, configuration: String) -> [String: String] {
        let root = sourceRoot.path
        var settings = [
            "SRCROOT": root, "PROJECT_DIR": root, "SOURCE_ROOT": root, "PROJECT_FILE_PATH": url.path,
            "PROJECT_NAME": name, "TARGET_NAME": target.name, "CONFIGURATION": configuration,
            "PRODUCT_NAME": "$(TARGET_NAME)", "EXECUTABLE_NAME": "$(EXECUTABLE_PREFIX)$(PRODUCT_NAME)$(EXECUTABLE_SUFFIX)",
            "EXECUTABLE_PREFIX": "", "EXECUTABLE_SUFFIX": "",
            "PRODUCT_MODULE_NAME": "$(PRODUCT_NAME:c99extidentifier)", "DEVELOPMENT_LANGUAGE": developmentRegion ?? "en",
            // Entitlements written `$(AppIdentifierPrefix)$(CFBundleIdentifier)` get the bundle id.
            "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)",
            "PLATFORM_NAME": "iphoneos", "SDKROOT": "iphoneos", "EFFECTIVE_PLATFORM_NAME": "-iphoneos",
            "BUILT_PRODUCTS_DIR": root + "/build/\(configuration)-iphoneos",
        ]
        if target.isApplication {
            settings["PRODUCT_BUNDLE_PACKAGE_TYPE"] = "APPL"
            settings["WRAPPER_EXTENSION"] = "app"
        } else if target.isAppExtension {
            settings["PRODUCT_BUNDLE_PACKAGE_TYPE"] = "XPC!"
            settings["WRAPPER_EXTENSION"] = "appex"
        }
        return settings
    }

    /// The build settings of `target` in `configuration`: standard ones, then the project's
    /// xcconfig and settings, then the target's, `$(inherited)` reaching the layer below.
    /// Problems reading the xcconfigs are added to `problems`.
    public func settings(for target: Target, configuration: String, root: URL? = nil, problems: inout [XCConfig.LoadProblem]) -> [String: String] {
        var settings = standardSettings(for: target, configuration: configuration)
        let layers = [self.configurations.first { $0.name == configuration }, target.configuration(named: configuration)]
        let conditions = BuildConditions(configuration: configuration)
        for layer in layers {
            guard let layer else { continue }
            if let base = layer.baseConfiguration {
                settings = XCConfig.load(sourceRoot.appendingPathComponent(base), name: relativeName(base), base: settings, root: root,
                                         conditions: conditions, projectFolder: sourceRoot, problems: &problems)
            }
            conditions.apply(layer.settings, to: &settings)
        }
        return settings
    }

    /// A path under the source root as the user reads it: relative to where the project's
    /// folder is (`Chatr/Info.plist`).
    public func relativeName(_ path: String) -> String {
        let folder = url.deletingLastPathComponent().standardizedFileURL.path
        let full = sourceRoot.appendingPathComponent(path).standardizedFileURL.path
        return full.hasPrefix(folder + "/") ? String(full.dropFirst(folder.count + 1)) : full
    }
}

/// The project file could not be read: which file, what, what to do.
public struct XcodeProjectError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var problem: String
    public var fix: String
    public var description: String { "\(file): \(problem); \(fix)" }

    public init(file: String, problem: String, fix: String) {
        self.file = file
        self.problem = problem
        self.fix = fix
    }
}

/// The `objects` table of a pbxproj.
private struct Objects {
    let table: [String: Any]
    init(_ table: [String: Any]) { self.table = table }
    subscript(id: String) -> [String: Any]? { table[id] as? [String: Any] }
}

/// Where a file reference or group points, relative to the source root: each `<group>` path
/// is relative to its parent group, `SOURCE_ROOT` to the root.
private struct FilePaths {
    let objects: Objects
    let sourceRoot: URL
    var parent: [String: String] = [:]

    init(objects: Objects, mainGroup: String?, sourceRoot: URL) {
        self.objects = objects
        self.sourceRoot = sourceRoot
        for (id, value) in objects.table {
            guard let object = value as? [String: Any] else { continue }
            for child in object["children"] as? [String] ?? [] { parent[child] = id }
        }
    }

    /// `nil` for references outside the source tree (SDK, built products).
    func path(of id: String, depth: Int = 0) -> String? {
        guard depth < 64, let object = objects[id] else { return nil }
        let own = object["path"] as? String ?? ""
        switch object["sourceTree"] as? String ?? "<group>" {
        case "SOURCE_ROOT": return own
        case "<absolute>": return own
        case "<group>":
            guard let parentId = parent[id] else { return own }
            guard let base = path(of: parentId, depth: depth + 1) else { return nil }
            if own.isEmpty { return base }
            return base.isEmpty ? own : base + "/" + own
        default: return nil
        }
    }
}
