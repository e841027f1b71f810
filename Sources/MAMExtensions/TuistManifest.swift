package import Foundation
import MAMActivation
package import MAMBundle

/// A Tuist `Project.swift` read as the project it generates: run confined as Tuist runs it
/// (`TuistManifestRunner`) where this machine can, else read as Swift source. The manifest's
/// common shapes are read as Swift source — `Project(name:, targets: [...])` with each
/// `.target(name:, destinations:, product:, bundleId:, infoPlist:, entitlements:, settings:,
/// dependencies:)` (or `Target(...)`, `Target.target(...)`) written with literals — and what the
/// manifest computes beyond that (a name or bundle id built in a helper, a target list a helper
/// returns) is named in `unread`, never a dead end.
package enum TuistManifest {
    /// Tuist's products, as Xcode's product types.
    static let products: [String: String] = [
        "app": "com.apple.product-type.application", "appExtension": "com.apple.product-type.app-extension",
        "framework": "com.apple.product-type.framework", "staticFramework": "com.apple.product-type.framework.static",
        "staticLibrary": "com.apple.product-type.library.static", "dynamicLibrary": "com.apple.product-type.library.dynamic",
        "bundle": "com.apple.product-type.bundle", "unitTests": "com.apple.product-type.bundle.unit-test",
        "uiTests": "com.apple.product-type.bundle.ui-testing", "appClip": "com.apple.product-type.application.on-demand-install-capable",
        "watch2App": "com.apple.product-type.application.watchapp2", "watch2Extension": "com.apple.product-type.watchkit2-extension",
        "messagesExtension": "com.apple.product-type.app-extension.messages",
        "stickerPackExtension": "com.apple.product-type.app-extension.messages-sticker-pack",
        "extensionKitExtension": "com.apple.product-type.extensionkit-extension", "commandLineTool": "com.apple.product-type.tool",
        "xpc": "com.apple.product-type.xpc-service", "macro": "com.apple.product-type.tool",
    ]

    /// Brackets nest far less deep in any real manifest. Each call is read by a scan of its
    /// arguments, so nesting bounds the reading's time: a manifest of twenty thousand nested
    /// `.target(` calls would otherwise be read in time quadratic in its length.
    package static let maximumNesting = 128

    /// The project `manifest` makes: run as Tuist runs it where this machine can (`running`),
    /// else read as source.
    static func read(_ manifest: URL, running: Bool = true) throws(XcodeProjectError) -> XcodeProject {
        let data: Data
        do { data = try InputFile.contents(of: manifest, limit: manifestLimit) } catch {
            throw XcodeProjectError(file: manifest.path, problem: error is InputFile.TooLarge ? "is larger than \(manifestLimit >> 20) MiB, the most mamsim reads of a Tuist manifest" : "cannot be read",
                                    fix: "check that it is the project's Tuist manifest")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw XcodeProjectError(file: manifest.path, problem: "is not UTF-8 text", fix: "check that it is the project's Tuist manifest")
        }
        // As Tuist reads it where this machine can: compiled and run, confined. Otherwise its
        // source is read, and why it was not run is said wherever the source leaves a gap.
        guard running else { return try read(source: text, manifest: manifest) }
        let root = root(near: manifest.deletingLastPathComponent())
        let ran = TuistManifestRunner.shared.flatMap { $0.dump(manifest: manifest, root: root) }
        let failure: TuistManifestRunner.Failure
        switch ran {
        case .success(let json):
            do { return try TuistDump.project(json, manifest: manifest, root: root) } catch {
                failure = TuistManifestRunner.Failure(error.problem, ranOrCompiled: true)
            }
        case .failure(let why): failure = why
        }
        var project = try read(source: text, manifest: manifest)
        // Where the source leaves a gap the reason it was not run belongs with it; otherwise it
        // is how the project was read, a note.
        if !project.unread.isEmpty {
            project.unread.insert(notRun(failure, root: root), at: 0)
        } else if failure.ranOrCompiled {
            project.notes.append(notRun(failure, root: root))
        }
        return project
    }

    /// Why the manifest was read as source, with the compiler's first errors (`file:line:column`,
    /// the path from the workspace's folder) where it did not compile.
    static func notRun(_ failure: TuistManifestRunner.Failure, root: URL) -> String {
        let folder = root.standardizedFileURL.path + "/"
        let errors = failure.diagnostics.prefix(2).map { " — " + ($0.hasPrefix(folder) ? String($0.dropFirst(folder.count)) : $0) }.joined()
        let missingName = failure.diagnostics.contains { $0.contains("cannot find") || $0.contains("has no member") || $0.contains("extra argument") }
        let older = missingName ? " (a name it uses is declared nowhere mamsim can see: in a file the checkout lacks, or a Tuist name mamsim's ProjectDescription does not declare)" : ""
        return "not run as Tuist runs it: \(failure)\(errors)\(older); its Swift is read as source instead"
    }

    /// The workspace a manifest is in, as Tuist finds it: the nearest folder up (within five)
    /// holding `Tuist/`, `Tuist.swift`, `Plugins/` or `.git`; else the manifest's own.
    static func root(near folder: URL) -> URL {
        var candidate = folder.standardizedFileURL
        for _ in 0..<5 {
            if ["Tuist", "Tuist.swift", "Plugins", ".git"].contains(where: { FileManager.default.fileExists(atPath: candidate.appendingPathComponent($0).path) }) {
                return candidate
            }
            candidate = candidate.deletingLastPathComponent()
        }
        return folder.standardizedFileURL
    }

    /// The project `text`, the manifest at `manifest`, describes (reads no file).
    package static func read(source text: String, manifest: URL) throws(XcodeProjectError) -> XcodeProject {
        let folder = manifest.deletingLastPathComponent()
        let tokens = SwiftTokens(text).tokens
        if let line = nestedTooDeep(tokens) {
            throw XcodeProjectError(file: "\(manifest.path):\(line)", problem: "brackets nest deeper than \(maximumNesting) levels here, which no Tuist manifest does",
                                    fix: "check that it is the project's Tuist manifest, or run `tuist generate` and name the .xcodeproj it writes")
        }
        // Functions of the manifest and of `Tuist/ProjectDescriptionHelpers` are templates:
        // a call with what the code can read (literals, constants) is read as its body says.
        let helpers = helperTokens(near: folder)
        var reader = TargetReader(constants: Constants(helpers + tokens), functions: Function.all(in: helpers + tokens), folder: folder,
                                  projectName: folder.lastPathComponent)
        reader.scan(tokens, skippingBodies: true)
        if reader.targets.isEmpty {
            reader.unread.append("no target is written in it with literals (its targets come from helpers, ProjectDescriptionHelpers or code mamsim does not run): run `tuist generate --no-open` in \(ProjectRoot.printable(folder.standardizedFileURL.path, limit: 300)) and name the .xcodeproj it writes")
        }
        let targets = XcodeProject.embeddingExtensionsOnly(reader.targets)
        var project = XcodeProject(url: folder.appendingPathComponent("\(reader.projectName).xcodeproj"), manifest: manifest, sourceRoot: folder,
                                   name: reader.projectName, configurations: ["Debug", "Release"].map { XcodeProject.Configuration(name: $0, settings: [:]) },
                                   defaultConfiguration: "Release", targets: targets)
        project.generatedFiles = reader.generated
        project.unread = reader.unread
        return project
    }

    /// A manifest is a few kilobytes; a large one with its helpers inlined, some hundreds.
    static let manifestLimit = 4 << 20

    /// The line where brackets first nest past `maximumNesting`, if they do.
    static func nestedTooDeep(_ tokens: [SwiftTokens.Token]) -> Int? {
        var depth = 0
        for t in tokens where t.kind == .punctuation {
            if t.text == "(" || t.text == "[" || t.text == "{" {
                depth += 1
                if depth > maximumNesting { return t.line }
            } else if t.text == ")" || t.text == "]" || t.text == "}" {
                depth = max(0, depth - 1)
            }
        }
        return nil
    }

    /// The manifest's `let NAME = "text"` and `let NAME: [String: …] = [...]` constants, which
    /// its targets name (`name: name`, `"com.contoso.\(name)"`, `.extendingDefault(with: info)`).
    struct Constants {
        var strings: [String: String] = [:]
        var dictionaries: [String: [String: Any]] = [:]
        /// Array literals by name, as their tokens (`let appDependencies: [TargetDependency] = [...]`).
        var lists: [String: [SwiftTokens.Token]] = [:]

        /// `let NAME = value` of `tokens`, in order, each value read with the constants before
        /// it (and `base`'s): a literal, a constant, literals joined with `+`, an interpolation
        /// of constants — each at most `maximumLength` long.
        init(_ tokens: [SwiftTokens.Token], base: Self? = nil) {
            if let base { self = base }
            var i = 0
            while i + 3 < tokens.count {
                guard tokens[i].text == "let" || tokens[i].text == "var", tokens[i + 1].isIdentifier else { i += 1; continue }
                let name = tokens[i + 1].text
                var j = i + 2
                if tokens[j].text == ":" { while j < tokens.count, tokens[j].text != "=" { j += 1; if j - i > 20 { break } } }
                guard j + 1 < tokens.count, tokens[j].text == "=" else { i += 1; continue }
                // The value: its line's tokens.
                var end = j + 1
                while end < tokens.count, tokens[end].line == tokens[j + 1].line { end += 1 }
                if let value = string(Array(tokens[(j + 1)..<end])) { strings[name] = value }
                if tokens[j + 1].text == "[", let table = TuistManifest.dictionary(tokens, from: j + 1).value as? [String: Any] { dictionaries[name] = table }
                if tokens[j + 1].text == "[" { lists[name] = Array(tokens[(j + 1)..<TuistManifest.arguments(tokens, openAt: j + 1).end]) }
                i = j + 1
            }
        }

        /// Longer than any name, bundle id or path a target is given.
        static let maximumLength = 4096

        /// A string literal, a constant's name, or a literal whose interpolations are constants.
        /// An interpolated literal is filled in one pass, left to right: what a constant holds
        /// is never read again for interpolations (a constant's text may spell `\(other)`), so
        /// constants that name each other cannot grow a string past its own length and theirs.
        func string(_ tokens: [SwiftTokens.Token]) -> String? {
            // `"WhisperBoard" + suffix`: each part read, joined.
            if tokens.count > 1 {
                guard tokens.count % 2 == 1, stride(from: 1, to: tokens.count, by: 2).allSatisfy({ tokens[$0].text == "+" }) else { return nil }
                var joined = ""
                for k in stride(from: 0, to: tokens.count, by: 2) {
                    guard let part = string([tokens[k]]) else { return nil }
                    joined += part
                    guard joined.unicodeScalars.count <= Self.maximumLength else { return nil }
                }
                return joined
            }
            guard tokens.count == 1 else { return nil }
            if tokens[0].isIdentifier { return strings[tokens[0].text] }
            guard case .string(let template, let interpolated) = tokens[0].kind else { return nil }
            guard interpolated else { return template }
            var out = String.UnicodeScalarView()
            let c = Array(template.unicodeScalars)
            var i = 0
            while i < c.count {
                guard c[i] == "\\", i + 1 < c.count else { out.append(c[i]); i += 1; continue }
                if c[i + 1] == "\\" { out.append("\\"); i += 2; continue }
                // `\(name)`: a constant, or the literal is computed.
                guard c[i + 1] == "(", let close = c[(i + 2)...].firstIndex(of: ")"),
                      let value = strings[String(String.UnicodeScalarView(c[(i + 2)..<close]))] else { return nil }
                out.append(contentsOf: value.unicodeScalars)
                guard out.count <= Self.maximumLength else { return nil }
                i = close + 1
            }
            return String(out)
        }
    }

    /// A call's arguments: labeled ones by label, positional ones in order, each its tokens.
    struct Arguments {
        var labeled: [String: [SwiftTokens.Token]] = [:]
        var positional: [[SwiftTokens.Token]] = []
        /// The index after the closing parenthesis.
        var end: Int
        func value(_ label: String) -> [SwiftTokens.Token]? { labeled[label] }
    }

    static func arguments(_ tokens: [SwiftTokens.Token], openAt open: Int) -> Arguments {
        var out = Arguments(end: tokens.count)
        var depth = 0, start = open + 1, i = open
        func close(_ end: Int) {
            let part = Array(tokens[start..<end])
            guard !part.isEmpty else { return }
            if part.count >= 2, part[1].text == ":", part[0].isIdentifier { out.labeled[part[0].text] = Array(part.dropFirst(2)) } else { out.positional.append(part) }
        }
        while i < tokens.count {
            let t = tokens[i].text
            if t == "(" || t == "[" || t == "{" { depth += 1 } else if t == ")" || t == "]" || t == "}" {
                depth -= 1
                if depth == 0 { close(i); out.end = i + 1; return out }
            } else if t == ",", depth == 1 { close(i); start = i + 1 }
            i += 1
        }
        return out
    }

    /// `.file(path: "x")`, `.relativeToManifest("x")`, `.path("x")`: the path.
    static func fileArgument(_ tokens: [SwiftTokens.Token]) -> String? {
        let strings = tokens.compactMap { t -> String? in if case .string(let s, interpolated: false) = t.kind { return s } else { return nil } }
        guard strings.count == 1, tokens.contains(where: { ["file", "relativeToManifest", "path", "relativeToRoot"].contains($0.text) }),
              !tokens.contains(where: { $0.text == "[" }) else { return nil }
        return strings[0]
    }

    /// A Swift dictionary or array literal of literals (`["K": "v", "B": true, "L": ["x"]]`,
    /// Tuist's `.string("v")`/`.boolean(true)`/`.array`/`.dictionary` too) as property-list values.
    static func dictionary(_ tokens: [SwiftTokens.Token], from open: Int) -> (value: Any?, end: Int) {
        var i = open
        var depth = 0
        func value() -> Any? {
            // Deeper than any Info.plist: a hostile manifest ends here, not the stack.
            guard i < tokens.count, depth < 64 else { return nil }
            depth += 1
            defer { depth -= 1 }
            let t = tokens[i]
            switch t.kind {
            case .string(let s, _): i += 1; return s
            case .number(let n): i += 1; return Int(n) ?? Double(n) ?? n
            default: break
            }
            if t.text == "true" || t.text == "false" { i += 1; return t.text == "true" }
            if t.text == "." , i + 2 < tokens.count, tokens[i + 2].text == "(" {
                // `.string("v")`, `.boolean(true)`, `.array([...])`, `.dictionary([...])`, `.integer(1)`
                i += 3
                let inner = value()
                while i < tokens.count, tokens[i].text != ")" { i += 1 }
                i += 1
                return inner
            }
            if t.text == "[" {
                i += 1
                var array: [Any] = [], dict: [String: Any] = [:], isDict = false
                if i < tokens.count, tokens[i].text == ":" { i += 2; return [String: Any]() }
                while i < tokens.count, tokens[i].text != "]" {
                    let first = value()
                    if i < tokens.count, tokens[i].text == ":" {
                        isDict = true
                        i += 1
                        if let k = first as? String, let v = value() { dict[k] = v }
                    } else if let first { array.append(first) }
                    if i < tokens.count, tokens[i].text == "," { i += 1 } else if i < tokens.count, tokens[i].text != "]" { i += 1 }
                }
                i += 1
                return isDict ? dict : array
            }
            i += 1
            return nil
        }
        let v = value()
        return (v, i)
    }
}
