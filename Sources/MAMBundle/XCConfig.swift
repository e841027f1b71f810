public import Foundation
import MAMModel
import MAMActivation
/// Build settings read from an Xcode configuration file (`.xcconfig`), so a plugin folder can
/// carry the values its Info.plist and entitlements refer to (`PRODUCT_BUNDLE_IDENTIFIER`,
/// `DEVELOPMENT_TEAM`) the way an Xcode project does, and lint or load without `--set`.
///
/// Read as Xcode reads them: `NAME = value` lines, `//` comments, an optional `;` ending the
/// value, a value quoted whole taken without its quotes, later lines winning, `$(inherited)`
/// as the value before, and conditional settings (`NAME[sdk=iphoneos*][config=Release] = …`)
/// applied when their conditions hold for an iOS device build (`BuildConditions`).
/// `XCConfig(text:)` parses one file (an `#include` is kept in `includes`, not followed);
/// `XCConfig.load(_:)` follows `#include "path"` and `#include? "path"` as Xcode does.
public struct XCConfig: Sendable, Hashable {
    public var settings: [String: String] = [:]
    /// Lines that were not understood or not followed (`#include`).
    public var ignoredLines: [IgnoredLine] = []
    /// `#include` lines, in order: what `load` follows.
    public var includes: [Include] = []
    /// Settings and includes in file order, so an include's settings sit where it was written.
    var entries: [Entry] = []

    enum Entry: Sendable, Hashable {
        /// `conditions`: the bracketed part after the name (`[sdk=iphoneos*]`), empty for a plain setting.
        case setting(name: String, conditions: String, value: String)
        case include(Include)
    }

    public struct Include: Sendable, Hashable {
        public var line: Int
        public var path: String
        /// `#include?`: a missing file is not a problem.
        public var optional: Bool
    }

    public struct IgnoredLine: Sendable, Hashable {
        /// 1-based.
        public var line: Int
        public var text: String

        public init(line: Int, text: String) {
            self.line = line
            self.text = text
        }
    }

    public init(text: String) {
        for (index, rawLine) in TextLines.split(text).enumerated() {
            var line = Substring(rawLine)
            // Xcode cuts at `//` even inside a URL (people write `https:/$()/host`).
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty { continue }
            let searchFrom = Self.afterConditions(trimmed)
            if trimmed.hasPrefix("#include") {
                let optional = trimmed.hasPrefix("#include?")
                let rest = trimmed.dropFirst(optional ? 9 : 8).trimmingWhitespace
                if rest.count >= 2, rest.first == "\"", rest.last == "\"" {
                    let include = Include(line: index + 1, path: String(rest.dropFirst().dropLast()), optional: optional)
                    includes.append(include)
                    entries.append(.include(include))
                    continue
                }
            }
            guard !trimmed.hasPrefix("#"), let equals = trimmed[searchFrom...].firstIndex(of: "=") else {
                ignoredLines.append(IgnoredLine(line: index + 1, text: trimmed))
                continue
            }
            var name = trimmed[..<equals].trimmingWhitespace
            var conditions = ""
            if let bracket = name.firstIndex(of: "[") {
                conditions = String(name[bracket...]).filter { $0 != " " }
                name = String(name[..<bracket])
            }
            let value = Self.value(trimmed[trimmed.index(after: equals)...])
            guard !name.isEmpty, !name.contains(" "), BuildConditions.parse(conditions) != nil else {
                ignoredLines.append(IgnoredLine(line: index + 1, text: trimmed))
                continue
            }
            if BuildConditions.iOSDevice.hold(conditions) { settings[name] = Self.inheriting(value, from: settings[name], name: name) }
            entries.append(.setting(name: name, conditions: conditions, value: value))
        }
    }

    /// Where a line's `=` is looked for: after the conditions' last closing bracket
    /// (`NAME[sdk=iphoneos*][arch=arm64] = value`).
    static func afterConditions(_ trimmed: String) -> String.Index {
        var searchFrom = trimmed.startIndex
        if let open = trimmed.firstIndex(of: "["), let equals = trimmed.firstIndex(of: "="), open < equals {
            var i = open
            while i < trimmed.endIndex, trimmed[i] == "[", let close = trimmed[i...].firstIndex(of: "]") {
                i = trimmed.index(after: close)
                searchFrom = i
            }
        }
        return searchFrom
    }

    /// A setting's value as Xcode reads it: a `;` after it dropped, as in a project file; a
    /// single quoted word is that word (`INFOPLIST_FILE = "My App/Info.plist"`).
    static func value(_ written: Substring) -> String {
        var value = written.trimmingWhitespace
        if value.hasSuffix(";") { value = String(value.dropLast()).trimmingWhitespace }
        if value.count >= 2, value.first == "\"", value.last == "\"", !value.dropFirst().dropLast().contains("\"") {
            value = String(value.dropFirst().dropLast())
        }
        return value
    }


    /// `value` with `$(inherited)` replaced by what the setting held before (nothing if unset).
    /// `value` with `$(inherited)` — and a reference to the setting itself, `NAME =
    /// $(NAME)`, which Xcode resolves the same way — replaced by what the layers below set.
    static func inheriting(_ value: String, from previous: String?, name: String? = nil) -> String {
        let selfReference = name.map { value.contains("$(\($0))") || value.contains("${\($0)}") } ?? false
        guard value.contains("inherited") || selfReference else { return value }
        let old = previous ?? ""
        var replaced = value.replacingOccurrences(of: "$(inherited)", with: old).replacingOccurrences(of: "${inherited}", with: old)
        if let name, selfReference {
            replaced = replaced.replacingOccurrences(of: "$(\(name))", with: old).replacingOccurrences(of: "${\(name)}", with: old)
        }
        return replaced.trimmingWhitespace
    }

    /// A problem met while following includes.
    public struct LoadProblem: Sendable, Hashable {
        /// `xcconfig-line` (a line not understood) or `xcconfig-include` (an include not followed).
        public var rule: String
        /// The file holding the line, as given (`Config/Base.xcconfig`).
        public var file: String
        public var line: Int?
        public var problem: String
        public var fix: String
    }

    /// The settings of `url` with its includes followed (paths relative to the including file),
    /// on top of `base`. `name` is how the file is named in problems; an include cycle, a missing
    /// file or more than 32 levels is a problem, never a hang. With a `root` (the project being
    /// linted), a file outside it — `#include "/etc/shadow"`, `../` out of the project, a
    /// symbolic link leading out — is a problem and is never read. A line not understood is
    /// quoted only in the file the project names itself, never in an included one.
    /// `projectFolder`: the folder of the project that names the file (its `SRCROOT`): an
    /// `#include` not found beside the including file is looked for from there, as Xcode does.
    public static func load(_ url: URL, name: String, base: [String: String] = [:], root: URL? = nil,
                            conditions: BuildConditions = .iOSDevice, projectFolder: URL? = nil,
                            problems: inout [LoadProblem], depth: Int = 0, visiting: Set<String> = []) -> [String: String] {
        var settings = base
        let key = url.standardizedFileURL.path
        if let root, !ProjectRoot.contains(root, url) {
            problems.append(LoadProblem(rule: "xcconfig-include", file: name, line: nil,
                                        problem: "is outside the project (\(root.standardizedFileURL.path)) and was not read",
                                        fix: "keep the project's configuration files inside its folder, or lint the folder that holds them"))
            return settings
        }
        guard depth < 32, !visiting.contains(key) else {
            problems.append(LoadProblem(rule: "xcconfig-include", file: name, line: nil, problem: "is included in a cycle (or more than 32 levels deep)", fix: "remove the #include that leads back to it"))
            return settings
        }
        guard let data = (try? InputFile.contents(of: url)) else {
            let fix = name.contains("Pods-") ? "run pod install first (CocoaPods writes it)" : "check the path (baseConfigurationReference)"
            problems.append(LoadProblem(rule: "xcconfig-include", file: name, line: nil, problem: "cannot be read", fix: fix))
            return settings
        }
        guard let text = String(data: data, encoding: .utf8) else {
            problems.append(LoadProblem(rule: "xcconfig-include", file: name, line: nil, problem: "cannot be read as UTF-8 text", fix: "save it as UTF-8"))
            return settings
        }
        let config = XCConfig(text: text)
        for ignored in config.ignoredLines {
            let quoted = depth == 0 ? " (\(ProjectRoot.printable(ignored.text, limit: 80)))" : ""
            problems.append(LoadProblem(rule: "xcconfig-line", file: name, line: ignored.line, problem: "line is not a NAME = VALUE setting and is ignored\(quoted)",
                                        fix: "write NAME = VALUE, or #include \"other.xcconfig\""))
        }
        let folder = url.deletingLastPathComponent()
        let nameFolder = (name as NSString).deletingLastPathComponent
        for entry in config.entries {
            switch entry {
            case .setting(let setting, let condition, let value):
                guard conditions.hold(condition) else { continue }
                settings[setting] = inheriting(value, from: settings[setting], name: setting)
            case .include(let include):
                var target = include.path.hasPrefix("/") ? URL(fileURLWithPath: include.path) : folder.appendingPathComponent(include.path)
                // Beside the including file first, then from the project's folder.
                if !include.path.hasPrefix("/"), !FileManager.default.fileExists(atPath: target.path), let projectFolder,
                   FileManager.default.fileExists(atPath: projectFolder.appendingPathComponent(include.path).path) {
                    target = projectFolder.appendingPathComponent(include.path)
                }
                let targetName = include.path.hasPrefix("/") || nameFolder.isEmpty ? include.path : nameFolder + "/" + include.path
                // An optional include that is not there is skipped by Xcode, wherever it points
                // (a developer's own settings outside the repository, e.g. a team id).
                if include.optional, !FileManager.default.fileExists(atPath: target.path) { continue }
                if let root, !ProjectRoot.contains(root, target) {
                    problems.append(LoadProblem(rule: "xcconfig-include", file: name, line: include.line,
                                                problem: "includes \(ProjectRoot.printable(include.path, limit: 200)), which is outside the project (\(root.standardizedFileURL.path)); it was not read",
                                                fix: "keep the project's configuration files inside its folder, or lint the folder that holds them"))
                    continue
                }
                var found = target
                if !FileManager.default.fileExists(atPath: target.path) {
                    // A name that differs only in case: macOS's default volumes (where Xcode
                    // builds) find the file, so it is read as there; the note is for the
                    // volumes that would not (CI on Linux, case-sensitive APFS).
                    let siblings = (try? FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)) ?? []
                    if let twin = siblings.first(where: { $0.lowercased() == target.lastPathComponent.lowercased() }) {
                        found = target.deletingLastPathComponent().appendingPathComponent(twin)
                        problems.append(LoadProblem(rule: "xcconfig-include-case", file: name, line: include.line,
                                                    problem: "includes \(include.path), whose name differs in case from the file \(twin): read as macOS reads it, but a case-sensitive volume would not find it",
                                                    fix: "write the name with the same case (\(twin))"))
                    } else {
                        if !include.optional {
                            let fix = include.path.contains("Pods-") ? "run pod install first (CocoaPods writes it), or write #include?" : "correct the path, or write #include? for an optional file"
                            problems.append(LoadProblem(rule: "xcconfig-include", file: name, line: include.line, problem: "includes \(include.path), which does not exist", fix: fix))
                        }
                        continue
                    }
                }
                settings = load(found, name: targetName, base: settings, root: root, conditions: conditions, projectFolder: projectFolder,
                                problems: &problems, depth: depth + 1, visiting: visiting.union([key]))
            }
        }
        return settings
    }
}

/// The build a conditional setting (`NAME[sdk=iphoneos*][arch=arm64][config=Release]`) is
/// judged for: lint reads a project as an iOS device build (`iphoneos`, arm64) of one
/// configuration. A condition names `sdk`, `arch`, `config` or `variant`, its value a pattern
/// where `*` matches any run of characters.
public struct BuildConditions: Sendable, Hashable {
    public var sdk = "iphoneos18.0"
    public var arch = "arm64"
    public var variant = "normal"
    /// `nil`: a `config=` condition never holds (the configuration is not known).
    public var configuration: String?

    public static let iOSDevice = BuildConditions()

    public init(configuration: String? = nil) { self.configuration = configuration }

    /// `[a=b][c=d]` as pairs; `nil` when it is not that shape.
    static func parse(_ text: String) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
            let inner = rest[rest.index(after: rest.startIndex)..<close]
            guard let eq = inner.firstIndex(of: "="), eq != inner.startIndex else { return nil }
            pairs.append((String(inner[..<eq]).lowercased(), String(inner[inner.index(after: eq)...])))
            rest = rest[rest.index(after: close)...]
        }
        return pairs
    }

    /// Whether every condition of `text` holds for this build (no condition: it holds).
    public func hold(_ text: String) -> Bool {
        guard !text.isEmpty else { return true }
        guard let pairs = Self.parse(text) else { return false }
        return pairs.allSatisfy { key, pattern in
            switch key {
            case "sdk": Self.glob(pattern, sdk)
            case "arch": Self.glob(pattern, arch)
            case "variant": Self.glob(pattern, variant)
            case "config": configuration.map { Self.glob(pattern, $0) } ?? false
            default: false
            }
        }
    }

    /// `*` matches any run of characters; the rest compares as written.
    static func glob(_ pattern: String, _ value: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == value }
        var rest = Substring(value)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let r = rest.range(of: part) else { return false }
            rest = rest[r.upperBound...]
        }
        return rest.hasSuffix(parts.last!)
    }

    /// A project layer's settings (an unordered mapping): plain ones first, then those whose
    /// conditions hold, so a matching conditional value wins as in Xcode.
    public func apply(_ layer: [String: String], to settings: inout [String: String]) {
        for (key, value) in layer where !key.contains("[") {
            settings[key] = XCConfig.inheriting(value, from: settings[key], name: key)
        }
        for (key, value) in layer.sorted(by: { $0.key < $1.key }) where key.contains("[") {
            let bracket = key.firstIndex(of: "[")!
            let name = String(key[..<bracket]).trimmingWhitespace
            guard hold(String(key[bracket...]).filter { $0 != " " }) else { continue }
            settings[name] = XCConfig.inheriting(value, from: settings[name], name: name)
        }
    }
}

extension BuildSettings {
    /// These settings with `overrides` on top (command-line `--set` values win over a folder's
    /// `.xcconfig`, as with `xcodebuild NAME=VALUE`). When neither sets `AppIdentifierPrefix` /
    /// `TeamIdentifierPrefix` but `DEVELOPMENT_TEAM` is known, they are derived from it (`TEAM.`),
    /// as Xcode does when it signs.
    public func overlaid(with overrides: BuildSettings) -> BuildSettings {
        var merged = variables.merging(overrides.variables) { _, new in new }
        if let team = merged["DEVELOPMENT_TEAM"], !team.isEmpty, !team.contains("$") {
            if merged["AppIdentifierPrefix"] == nil { merged["AppIdentifierPrefix"] = team + "." }
            if merged["TeamIdentifierPrefix"] == nil { merged["TeamIdentifierPrefix"] = team + "." }
        }
        return BuildSettings(merged)
    }
}

extension XCConfig.LoadProblem {
    /// The problem as a lint warning, its file named `file` when the caller names files
    /// otherwise than the loader did.
    package func finding(file: String? = nil) -> LintFinding {
        LintFinding(.warning, rule: rule, file: file ?? self.file, line: line, keyPath: "", problem: problem, fix: fix)
    }
}

/// What lint may read: files inside the folder it was given, as the kernel resolves them.
public enum ProjectRoot {
    /// Whether `url` (symbolic links resolved) lies inside `root`.
    public static func contains(_ root: URL, _ url: URL) -> Bool {
        let base = root.resolvingSymlinksInPath().standardizedFileURL.path
        let full = url.resolvingSymlinksInPath().standardizedFileURL.path
        return full == base || full.hasPrefix(base == "/" ? "/" : base + "/")
    }

    /// `text` with control characters (terminal escapes, line breaks, C1 codes), line
    /// separators, bidirectional controls and byte-order marks shown as `?` (UntrustedText), cut
    /// at `limit`: what a file or a child wrote can neither drive the user's terminal, reorder
    /// what they read, nor forge a line of a line-oriented report.
    public static func printable(_ text: String, limit: Int = .max) -> String {
        guard text.unicodeScalars.contains(where: UntrustedText.isUnsafe) || text.count > limit else { return text }
        let clean = String(text.unicodeScalars.map { UntrustedText.isUnsafe($0) ? "?" : Character($0) })
        return clean.count > limit ? String(clean.prefix(limit)) + "…" : clean
    }
}
