package import Foundation
import MAMActivation

/// One bundle folder read from disk — a plugin, or the `container/` app beside it — with its
/// Info.plist and entitlements expanded against the folder's `.xcconfig` plus the caller's
/// settings. Shared by `Linter` and `PluginDefinition.load`: reading never stops at the first
/// problem; each one becomes a `LintFinding` in `problems` and what could be read is kept.
package struct BundleFolder {
    let url: URL
    /// Where the folder sits inside the linted one: `""` or `"container/"`.
    package let prefix: String
    package var settings: BuildSettings
    /// Everything found while reading, unresolved `$(VAR)`s included.
    package var problems: [LintFinding] = []
    /// The key paths of `problems` that are unresolved `$(VAR)`s (the loader tolerates some).
    private(set) var unresolvedKeyPaths: [String: Set<String>] = [:]
    /// The names of the `$(VAR)`s nothing defined, in either file.
    package private(set) var unresolvedSettingNames: Set<String> = []

    /// Raw text, for locating keys by line.
    private(set) var infoText: String?
    /// Where the keys of `infoText` and `entitlementsText` are (for findings' lines).
    private(set) var infoLines: KeyLineIndex?
    private(set) var entitlementsLines: KeyLineIndex?
    /// The Info.plist without its activation rule, build settings expanded. `nil` when absent or malformed.
    package private(set) var info: [String: Any]?
    package private(set) var manifest: ExtensionManifest?
    /// The Info.plist file read, if any (`nil` when Xcode generates it whole).
    package private(set) var infoFileURL: URL?
    package private(set) var entitlementsFile: String?
    private(set) var entitlementsText: String?
    package private(set) var entitlements: Entitlements?
    private(set) var executable: PluginDefinition.Executable = .builtInRuntime

    /// The Intune NuGet package a .NET project (Xamarin.iOS, .NET MAUI) of this bundle
    /// references (`Microsoft.Intune.MAM.Xamarin.iOS`, `Microsoft.Intune.Maui.Essentials.iOS`):
    /// the SDK is linked at build time, so nothing in the Info.plist needs to show it.
    package var intunePackage: String?

    /// How the Info.plist is named in findings (`container/Info.plist`, `Chatr/Info.plist`).
    package private(set) var infoFile: String
    /// Keys Xcode generates into the Info.plist (`GENERATE_INFOPLIST_FILE`); the file's win.
    private var generatedInfo: [String: Any] = [:]
    /// Files a project generator writes (XcodeProject.generatedFiles), read instead of the disk.
    private var generatedFiles: [String: Data] = [:]
    /// `INFOPLIST_PREPROCESS`: macros defined for the C preprocessor pass.
    private var preprocessorDefinitions: [String: String] = [:]

    package static let rulePath = ExtensionManifest.rulePath

    package init(url: URL, prefix: String, buildSettings: BuildSettings) {
        self.url = url
        self.prefix = prefix
        infoFile = prefix + "Info.plist"
        settings = buildSettings
        settings = readXCConfigs().overlaid(with: buildSettings)
        // A folder's own files only: one that is a link leading out of it (to another
        // repository's secrets, to /etc) is not read, nor quoted.
        let info = url.appendingPathComponent("Info.plist")
        if FileManager.default.fileExists(atPath: info.path), !ProjectRoot.contains(url, info) {
            problems.append(LintFinding(.error, rule: "file-unreadable", file: infoFile, keyPath: "",
                problem: "is a link to \(ProjectRoot.printable(info.resolvingSymlinksInPath().path, limit: 200)), outside the bundle's folder; it was not read",
                fix: "put the Info.plist itself in the folder"))
        } else {
            readInfoPlist(info)
        }
        let names = files(withExtension: "entitlements").filter { name in
            guard ProjectRoot.contains(url, url.appendingPathComponent(name)) else {
                problems.append(LintFinding(.error, rule: "file-unreadable", file: prefix + name, keyPath: "",
                    problem: "is a link to a file outside the bundle's folder; it was not read", fix: "put the entitlements file itself in the folder"))
                return false
            }
            return true
        }
        if let name = names.first {
            if names.count > 1 {
                problems.append(LintFinding(.warning, rule: "entitlements-multiple", file: prefix + name, keyPath: "",
                    problem: "is one of \(names.count) entitlements files (\(names.joined(separator: ", "))); only this one is read",
                    fix: "keep one .entitlements file per bundle"))
            }
            readEntitlements(url.appendingPathComponent(name), name: prefix + name)
        }
        resolveExecutable()
    }

    /// A bundle whose files were named by a project (`INFOPLIST_FILE`, `CODE_SIGN_ENTITLEMENTS`)
    /// or found by discovery, with the build settings already resolved.
    /// - Parameters:
    ///   - infoPlist: the Info.plist file, `nil` when Xcode generates it whole.
    ///   - infoName, entitlementsName: how the files are named in findings.
    ///   - generatedInfo: keys Xcode adds (`INFOPLIST_KEY_*`, `CFBundleIdentifier`…).
    package init(infoPlist: URL?, infoName: String, entitlements: URL?, entitlementsName: String?,
                 generatedInfo: [String: Any] = [:], preprocessorDefinitions: [String: String] = [:], buildSettings: BuildSettings,
                 generatedFiles: [String: Data] = [:]) {
        url = (infoPlist ?? entitlements)?.deletingLastPathComponent() ?? URL(fileURLWithPath: "/")
        prefix = ""
        infoFile = infoName
        settings = BuildSettings().overlaid(with: buildSettings)
        self.generatedInfo = generatedInfo
        self.preprocessorDefinitions = preprocessorDefinitions
        self.generatedFiles = generatedFiles
        readInfoPlist(infoPlist)
        if let entitlements {
            readEntitlements(entitlements, name: entitlementsName ?? entitlements.lastPathComponent)
        }
    }

    // MARK: Reading

    private func files(withExtension ext: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix("." + ext) && !$0.hasPrefix(".") }.sorted()
    }

    private mutating func readXCConfigs() -> BuildSettings {
        var values: [String: String] = [:]
        for name in files(withExtension: "xcconfig") {
            var read: [XCConfig.LoadProblem] = []
            // Nothing outside the plugin folder (its containing app's folder: the plugin's) is read.
            let root = prefix.isEmpty ? url : url.deletingLastPathComponent()
            values = XCConfig.load(url.appendingPathComponent(name), name: prefix + name, base: values, root: root, problems: &read)
            problems += read.map { $0.finding() }
        }
        return BuildSettings(values)
    }

    /// A preprocessed Info.plist (`INFOPLIST_PREPROCESS`, or directives written in it) as Xcode
    /// builds it, lines keeping their numbers, its problems reported; `nil` when it has no
    /// directive.
    private mutating func preprocessed(_ text: String, in folder: URL) -> String? {
        guard InfoPlistPreprocessor.hasDirectives(text) else { return nil }
        var preprocessor = InfoPlistPreprocessor(definitions: preprocessorDefinitions, folder: folder)
        let output = preprocessor.process(text)
        for problem in preprocessor.problems {
            problems.append(LintFinding(.warning, rule: "info-plist-preprocess", file: infoFile, line: problem.line, keyPath: "",
                                        problem: problem.problem, fix: problem.fix))
        }
        return output
    }

    /// The manifest of an Info.plist whose activation rule did not parse, read without it.
    private func manifestWithoutRule(_ plist: [String: Any]) -> ExtensionManifest? {
        var parsed = plist
        if var ext = parsed["NSExtension"] as? [String: Any], var attributes = ext["NSExtensionAttributes"] as? [String: Any] {
            attributes["NSExtensionActivationRule"] = "TRUEPREDICATE"
            ext["NSExtensionAttributes"] = attributes
            parsed["NSExtension"] = ext
        }
        var withoutRule = try? ExtensionManifest(infoPlist: parsed, source: infoFile, buildSettings: settings)
        withoutRule?.activationRule = nil
        return withoutRule
    }

    private mutating func readInfoPlist(_ fileURL: URL?) {
        infoFileURL = fileURL
        var parsed: [String: Any] = [:]
        if let fileURL {
            guard var data = try? contents(of: fileURL) else {
                problems.append(LintFinding(.error, rule: "info-plist-missing", file: infoFile, keyPath: "", problem: "is missing",
                    fix: "add the bundle's Info.plist (CFBundleIdentifier, NSExtension, IntuneMAMSettings)"))
                return
            }
            infoText = String(data: data, encoding: .utf8)
            if let text = infoText, let output = preprocessed(text, in: fileURL.deletingLastPathComponent()) {
                infoText = output
                data = Data(output.utf8)
            }
            infoLines = infoText.map(KeyLineIndex.init)
            do {
                parsed = try PropertyListIO.dictionary(from: data, source: infoFile)
            } catch {
                problems.append(Self.finding(error, text: infoText))
                return
            }
        }
        for (key, value) in generatedInfo where parsed[key] == nil { parsed[key] = value }
        do {
            manifest = try ExtensionManifest(infoPlist: parsed, source: infoFile, buildSettings: settings)
        } catch {
            // Keep checking the rest of the plist: report the rule and read the manifest without it.
            problems.append(finding(error))
            manifest = manifestWithoutRule(parsed)
        }
        if var ext = parsed["NSExtension"] as? [String: Any], var attributes = ext["NSExtensionAttributes"] as? [String: Any] {
            attributes.removeValue(forKey: "NSExtensionActivationRule")
            ext["NSExtensionAttributes"] = attributes
            parsed["NSExtension"] = ext
        }
        var ignored: [UnresolvedBuildSetting] = []
        info = settings.expand(plist: parsed, keyPath: "", unresolved: &ignored) as? [String: Any]
        guard let manifest else { return }
        for unresolved in manifest.unresolvedVariables {
            noteUnresolved(unresolved, file: infoFile, lines: infoLines)
        }
        for warning in manifest.warnings {
            problems.append(manifestWarning(warning))
        }
    }

    private func contents(of fileURL: URL) throws -> Data {
        if let generated = generatedFiles[fileURL.standardizedFileURL.path] { return generated }
        return try InputFile.contents(of: fileURL)
    }

    private mutating func readEntitlements(_ fileURL: URL, name file: String) {
        entitlementsFile = file
        guard let data = try? contents(of: fileURL) else {
            problems.append(LintFinding(.error, rule: "file-unreadable", file: file, keyPath: "", problem: "cannot be read (or is larger than \(InputFile.limit >> 20) MiB)",
                                        fix: "check the path (CODE_SIGN_ENTITLEMENTS) and its permissions"))
            return
        }
        entitlementsText = String(data: data, encoding: .utf8)
        entitlementsLines = entitlementsText.map(KeyLineIndex.init)
        do {
            let read = try Entitlements(data: data, source: file, buildSettings: settings)
            entitlements = read
            for unresolved in read.unresolvedVariables {
                noteUnresolved(unresolved, file: file, lines: entitlementsLines)
            }
        } catch {
            problems.append(Self.finding(error, text: entitlementsText))
        }
    }

    /// `MamsimExecutable` in the Info.plist or `executable` in `plugin.json` (a path inside the
    /// folder), else a file named `run`, else the built-in runtime.
    private mutating func resolveExecutable() {
        var declared: [(source: String, keyPath: String, path: String)] = []
        if let path = info?["MamsimExecutable"] as? String {
            declared.append((infoFile, "MamsimExecutable", path))
        }
        let jsonURL = url.appendingPathComponent("plugin.json")
        if let data = (try? InputFile.contents(of: jsonURL)) {
            let object = try? JSONSerialization.jsonObject(with: data)
            if let dict = object as? [String: Any] {
                if let path = dict["executable"] as? String {
                    declared.append((prefix + "plugin.json", "executable", path))
                } else if dict["executable"] != nil {
                    problems.append(LintFinding(.error, rule: "plugin-executable", file: prefix + "plugin.json", keyPath: "executable",
                        problem: "must be a string path", fix: "write \"executable\": \"bin/my-extension\""))
                }
            } else {
                problems.append(LintFinding(.error, rule: "plugin-executable", file: prefix + "plugin.json", keyPath: "",
                    problem: "is not a JSON object", fix: "write {\"executable\": \"run\"}"))
            }
        }
        if declared.count == 2, declared[0].path != declared[1].path {
            problems.append(LintFinding(.error, rule: "plugin-executable", file: declared[1].source, keyPath: declared[1].keyPath,
                problem: "names \(declared[1].path) but \(declared[0].source) \(declared[0].keyPath) names \(declared[0].path)",
                fix: "declare the executable in one place"))
            return
        }
        let chosen = declared.first ?? (FileManager.default.fileExists(atPath: url.appendingPathComponent("run").path)
            ? (prefix + "run", "", "run") : nil)
        guard let chosen else { return }
        let program = url.appendingPathComponent(chosen.path).standardizedFileURL
        let declaredBy = chosen.keyPath.isEmpty ? "found by name" : "named by \(chosen.source) \(chosen.keyPath)"
        guard program.path.hasPrefix(url.standardizedFileURL.path + "/") else {
            problems.append(LintFinding(.error, rule: "plugin-executable", file: chosen.source, keyPath: chosen.keyPath,
                problem: "\(chosen.path) is outside the plugin folder", fix: "put the executable inside the folder"))
            return
        }
        guard FileManager.default.fileExists(atPath: program.path) else {
            problems.append(LintFinding(.error, rule: "plugin-executable", file: chosen.source, keyPath: chosen.keyPath,
                problem: "names \(chosen.path), which does not exist", fix: "add it or correct the path"))
            return
        }
        guard FileManager.default.isExecutableFile(atPath: program.path) else {
            problems.append(LintFinding(.error, rule: "plugin-executable", file: prefix + chosen.path, keyPath: "",
                problem: "is the plugin's executable (\(declaredBy)) but is not executable", fix: "run chmod +x \((prefix + chosen.path).shellQuoted)"))
            return
        }
        executable = .program(program)
    }

    // MARK: Findings

    /// For `key[i]` whose value is a flat array of strings: where its i-th `<string>` starts.
    static func stringElement(of keyPath: String, after keyEnd: String.Index, in text: String) -> String.Index? {
        guard keyPath.hasSuffix("]"), let open = keyPath.lastIndex(of: "["),
              let index = Int(keyPath[keyPath.index(after: open)..<keyPath.index(before: keyPath.endIndex)]),
              let arrayOpen = text.range(of: "<array>", range: keyEnd..<text.endIndex),
              text[keyEnd..<arrayOpen.lowerBound].allSatisfy(\.isWhitespace),
              let arrayClose = text.range(of: "</array>", range: arrayOpen.upperBound..<text.endIndex) else { return nil }
        let body = text[arrayOpen.upperBound..<arrayClose.lowerBound]
        guard !body.contains("<dict>"), !body.contains("<array>") else { return nil }
        var from = body.startIndex
        var found: String.Index?
        for _ in 0...index {
            guard let next = body.range(of: "<string>", range: from..<body.endIndex) else { return nil }
            found = next.lowerBound
            from = next.upperBound
        }
        return found
    }

    /// `ExtensionPlistError` messages end in their advice after "; ". A parser that ran out of
    /// input (a truncated file) names no line: the last one is where it stopped.
    static func finding(_ error: ExtensionPlistError, text: String? = nil) -> LintFinding {
        var problem = error.message, fix = ""
        if let split = problem.range(of: "; ", options: .backwards) {
            fix = String(problem[split.upperBound...])
            problem = String(problem[..<split.lowerBound])
        }
        var line = error.line
        if line == nil, problem.contains("EOF"), let text {
            line = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        }
        return LintFinding(.error, rule: "plist-malformed", file: error.source, line: line, keyPath: error.keyPath, problem: problem, fix: fix)
    }

    func finding(_ error: ActivationRuleError) -> LintFinding {
        switch error {
        case .plist(let e):
            var f = Self.finding(e)
            f.line = f.line ?? line(of: e.keyPath)
            return f
        case .syntax(let e):
            return LintFinding(.error, rule: "activation-rule-syntax", file: infoFile, line: line(of: Self.rulePath), keyPath: Self.rulePath,
                problem: "cannot be parsed at line \(e.line), column \(e.column) of the rule: expected \(e.expected), found \(e.found)",
                fix: "fix the predicate string")
        }
    }

    func unresolvedFinding(_ u: UnresolvedBuildSetting, file: String, lines: KeyLineIndex?) -> LintFinding {
        let fix = u.problem == "is not set"
            ? "pass --set \(u.name)=VALUE or define it in an .xcconfig in \(prefix.isEmpty ? "the folder" : prefix)"
            : "correct the reference"
        return LintFinding(.error, rule: "build-setting-unresolved", file: file, line: lines?.line(ofKeyPath: u.keyPath), keyPath: u.keyPath,
                           problem: "build setting $(\(u.name)) \(u.problem)", fix: fix)
    }

    /// `ExtensionManifest` warnings are sentences `<source>: <key path>: <note>` or
    /// `<source>: <key path> is …`; the key path is split off so the line can be found.
    private func manifestWarning(_ warning: String) -> LintFinding {
        let text = warning.hasPrefix(infoFile + ": ") ? String(warning.dropFirst(infoFile.count + 2)) : warning
        var keyPath = "", problem = text
        if let space = text.firstIndex(of: " ") {
            let head = text[..<space]
            if head.hasSuffix(":") {
                keyPath = String(head.dropLast())
                problem = String(text[text.index(after: space)...])
            } else if head.hasPrefix("NS") {
                keyPath = String(head)
                problem = String(text[text.index(after: space)...])
            }
        }
        return LintFinding(.warning, rule: "info-plist-warning", file: infoFile, line: line(of: keyPath), keyPath: keyPath, problem: problem, fix: "")
    }

    /// Whether this problem is only an unresolved `$(VAR)`.
    func isUnresolvedVariable(_ finding: LintFinding) -> Bool {
        unresolvedKeyPaths[finding.file]?.contains(finding.keyPath) == true
    }

    private mutating func noteUnresolved(_ u: UnresolvedBuildSetting, file: String, lines: KeyLineIndex?) {
        problems.append(unresolvedFinding(u, file: file, lines: lines))
        unresolvedKeyPaths[file, default: []].insert(u.keyPath)
        unresolvedSettingNames.insert(u.name)
    }
}
