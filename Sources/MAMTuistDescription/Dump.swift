// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.
import Foundation

// mamsim's own dump, the one part that is not Tuist's: a manifest run with `--tuist-dump` prints
// `TUIST_MANIFEST_START`, one line of JSON in the `mamsim.tuist-dump/1` schema (what mamsim reads
// of a project: names, products by case name, destinations, Info.plist, entitlements, settings,
// dependencies), and `TUIST_MANIFEST_END`. Objects are written with sorted keys, so the same project always
// prints the same line.

/// Prints `project` in the dump schema when the manifest runs with `--tuist-dump`.
func dumpIfNeeded(_ project: Project) {
    guard CommandLine.arguments.contains("--tuist-dump") else { return }
    let line = DumpJSON.project(project).text()
    FileHandle.standardOutput.write(Data("TUIST_MANIFEST_START\n\(line)\nTUIST_MANIFEST_END\n".utf8))
}

/// A JSON value of the dump.
enum DumpJSON: Encodable {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case null
    case array([DumpJSON])
    case object([String: DumpJSON])

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .real(value):
            if value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        case let .boolean(value): try container.encode(value)
        case .null: try container.encodeNil()
        case let .array(values): try container.encode(values)
        case let .object(members): try container.encode(members)
        }
    }

    /// One line of JSON, keys sorted.
    func text() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension DumpJSON {
    static func project(_ project: Project) -> DumpJSON {
        .object([
            "format": .string("mamsim.tuist-dump/1"),
            "name": .string(project.name),
            "settings": settings(project.settings),
            "targets": .array(project.targets.map(target)),
        ])
    }

    static func target(_ target: Target) -> DumpJSON {
        .object([
            "name": .string(target.name),
            "product": .string(target.product.caseName),
            "productName": target.productName.map(DumpJSON.string) ?? .null,
            "bundleId": .string(target.bundleId),
            "destinations": .array(target.destinations.map(\.rawValue).sorted().map(DumpJSON.string)),
            "infoPlist": infoPlist(target.infoPlist),
            "entitlements": entitlements(target.entitlements),
            "settings": settings(target.settings),
            "dependencies": .array(target.dependencies.map(dependency)),
        ])
    }

    /// A path's kind, text and (for `.relativeToCurrentFile`) the file it was written in; a path
    /// whose text is absolute is `absolute` whatever it was declared relative to.
    static func path(_ path: Path) -> DumpJSON {
        let type = path.pathString.hasPrefix("/") ? "absolute" : path.type.rawValue
        return .object(["type": .string(type), "path": .string(path.pathString), "callerPath": path.callerPath.map(DumpJSON.string) ?? .null])
    }

    static func settings(_ settings: Settings?) -> DumpJSON {
        guard let settings else { return .null }
        let defaults: String = switch settings.defaultSettings {
        case .recommended: "recommended"
        case .essential: "essential"
        case .none: "none"
        }
        let configurations = settings.configurations.map { configuration in
            DumpJSON.object([
                "name": .string(configuration.name.rawValue),
                "variant": .string(configuration.variant.rawValue),
                "settings": dictionary(configuration.settings),
                "xcconfig": configuration.xcconfig.map(path) ?? .null,
            ])
        }
        return .object(["base": dictionary(settings.base), "configurations": .array(configurations), "defaultSettings": .string(defaults)])
    }

    static func dictionary(_ settings: SettingsDictionary) -> DumpJSON {
        .object(settings.mapValues { value in
            switch value {
            case let .string(text): .string(text)
            case let .array(list): .array(list.map(DumpJSON.string))
            }
        })
    }

    static func plist(_ value: Plist.Value) -> DumpJSON {
        switch value {
        case let .string(text): .string(text)
        case let .integer(number): .integer(number)
        case let .real(number): .real(number)
        case let .boolean(flag): .boolean(flag)
        case let .dictionary(members): .object(members.mapValues(plist))
        case let .array(values): .array(values.map(plist))
        }
    }

    static func infoPlist(_ infoPlist: InfoPlist?) -> DumpJSON {
        switch infoPlist {
        case nil: .null
        case let .file(file)?: .object(["file": path(file)])
        case let .extendingDefault(members)?: .object(["extendingDefault": .object(members.mapValues(plist))])
        case let .dictionary(members)?: .object(["dictionary": .object(members.mapValues(plist))])
        case let .variable(name)?: .object(["variable": .string(name)])
        }
    }

    static func entitlements(_ entitlements: Entitlements?) -> DumpJSON {
        switch entitlements {
        case nil: .null
        case let .file(file)?: .object(["file": path(file)])
        case let .dictionary(members)?: .object(["dictionary": .object(members.mapValues(plist))])
        case let .variable(name)?: .object(["variable": .string(name)])
        }
    }

    /// A target of this project or of another; anything else as a short description.
    static func dependency(_ dependency: TargetDependency) -> DumpJSON {
        let other: String
        switch dependency {
        case let .target(name, _, _): return .object(["target": .string(name)])
        case let .project(target, projectPath, _, _):
            return .object(["project": .object(["target": .string(target), "path": path(projectPath)])])
        case let .macro(name): other = "macro(\(name))"
        case let .framework(frameworkPath, _, _): other = "framework(\(frameworkPath.pathString))"
        case let .library(libraryPath, _, _, _): other = "library(\(libraryPath.pathString))"
        case let .package(product, _, _): other = "package(\(product))"
        case let .sdk(name, type, _, _): other = "sdk(\(name), \(type.rawValue))"
        case let .xcframework(frameworkPath, _, _, _): other = "xcframework(\(frameworkPath.pathString))"
        case .xctest: other = "xctest"
        case let .external(name, _): other = "external(\(name))"
        }
        return .object(["other": .string(other)])
    }
}

extension Product {
    /// The case's Swift name (`appExtension`), which the dump writes; the raw value is Tuist's
    /// wire spelling (`app_extension`).
    var caseName: String {
        switch self {
        case .app: "app"
        case .staticLibrary: "staticLibrary"
        case .dynamicLibrary: "dynamicLibrary"
        case .framework: "framework"
        case .staticFramework: "staticFramework"
        case .unitTests: "unitTests"
        case .uiTests: "uiTests"
        case .bundle: "bundle"
        case .commandLineTool: "commandLineTool"
        case .appClip: "appClip"
        case .appExtension: "appExtension"
        case .watch2App: "watch2App"
        case .watch2Extension: "watch2Extension"
        case .tvTopShelfExtension: "tvTopShelfExtension"
        case .messagesExtension: "messagesExtension"
        case .stickerPackExtension: "stickerPackExtension"
        case .xpc: "xpc"
        case .systemExtension: "systemExtension"
        case .extensionKitExtension: "extensionKitExtension"
        case .macro: "macro"
        case .plugin: "plugin"
        }
    }
}
