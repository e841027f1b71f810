package import Foundation
import MAMActivation
package import MAMBundle

/// A Tuist `Project.swift` read as the project it generates, without running it: mamsim never
/// runs a repository's Swift (it may be hostile), and a Linux team has no Tuist. The manifest's
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

    static func read(_ manifest: URL) throws(XcodeProjectError) -> XcodeProject {
        let data: Data
        do { data = try InputFile.contents(of: manifest, limit: manifestLimit) } catch {
            throw XcodeProjectError(file: manifest.path, problem: error is InputFile.TooLarge ? "is larger than \(manifestLimit >> 20) MiB, the most mamsim reads of a Tuist manifest" : "cannot be read",
                                    fix: "check that it is the project's Tuist manifest")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw XcodeProjectError(file: manifest.path, problem: "is not UTF-8 text", fix: "check that it is the project's Tuist manifest")
        }
        return try read(source: text, manifest: manifest)
    }

    /// The project `text`, the manifest at `manifest`, describes (reads no file).
    package static func read(source text: String, manifest: URL) throws(XcodeProjectError) -> XcodeProject {
        let folder = manifest.deletingLastPathComponent()
        let tokens = SwiftTokens(text).tokens
        if let line = nestedTooDeep(tokens) {
            throw XcodeProjectError(file: "\(manifest.path):\(line)", problem: "brackets nest deeper than \(maximumNesting) levels here, which no Tuist manifest does",
                                    fix: "check that it is the project's Tuist manifest, or run `tuist generate` and name the .xcodeproj it writes")
        }
        let constants = Constants(tokens)
        func literal(_ t: [SwiftTokens.Token]) -> String? { constants.string(t) }
        var unread: [String] = []
        var projectName = folder.lastPathComponent
        var targets: [XcodeProject.Target] = []
        var generated: [String: Data] = [:]
        var i = 0
        while i < tokens.count {
            // `Project(name: "X", …)`: the project's name.
            if tokens[i].text == "Project", i + 1 < tokens.count, tokens[i + 1].text == "(" {
                let args = arguments(tokens, openAt: i + 1)
                if let name = args.value("name").flatMap(literal) { projectName = name }
            }
            let isCall = (tokens[i].text == "Target" && i + 1 < tokens.count && tokens[i + 1].text == "(")
                || (["target", "init"].contains(tokens[i].text) && i > 0 && tokens[i - 1].text == "." && i + 1 < tokens.count && tokens[i + 1].text == "(")
            guard isCall else { i += 1; continue }
            let open = i + 1
            let args = arguments(tokens, openAt: open)
            // A dependency (`.target(name: "Widget")`) names a target; a definition has a product.
            guard let product = args.value("product") else { i += 1; continue }
            let line = tokens[i].line
            let productName = product.last?.text ?? ""
            guard let name = args.value("name").flatMap(literal) else {
                unread.append("line \(line): a target whose name is computed (\(args.value("name").map(SwiftTokens.text) ?? "no name")) by code mamsim does not run: left out; run `tuist generate` and name the .xcodeproj to read it")
                i = args.end
                continue
            }
            var settings: [String: String] = ["PRODUCT_NAME": name]
            if let destinations = args.value("destinations") ?? args.value("platform") {
                let words = Set(destinations.map(\.text))
                settings["SDKROOT"] = words.contains("iOS") || words.contains("iPhone") || words.contains("iPad") || words.contains("ios") ? "iphoneos"
                    : words.contains("macOS") || words.contains("mac") || words.contains("macWithiPadDesign") ? "macosx"
                    : words.contains("watchOS") || words.contains("appleWatch") ? "watchos"
                    : words.contains("tvOS") || words.contains("appleTv") ? "appletvos" : words.contains("visionOS") || words.contains("appleVision") ? "xros" : "iphoneos"
            } else {
                settings["SDKROOT"] = "iphoneos"
            }
            if let bundle = args.value("bundleId") {
                if let id = literal(bundle) { settings["PRODUCT_BUNDLE_IDENTIFIER"] = id } else {
                    unread.append("line \(line): target \(name)'s bundle id is computed (\(SwiftTokens.text(bundle))): the scenario gives it a stand-in; run `tuist generate` for the real one")
                }
            }
            for (key, setting) in [("infoPlist", "INFOPLIST_FILE"), ("entitlements", "CODE_SIGN_ENTITLEMENTS")] {
                guard let value = args.value(key) else { continue }
                if let path = literal(value) ?? fileArgument(value) {
                    settings[setting] = path
                } else if key == "infoPlist", value.contains(where: { $0.text == "extendingDefault" || $0.text == "default" }) {
                    // Tuist writes the default Info.plist (extended) under Derived/.
                    let path = "Derived/InfoPlists/\(name)-Info.plist"
                    settings[setting] = path
                    var info = XcodeGenSpec.infoDefaults(productName == "app" ? "application" : productName.contains("xtension") ? "app-extension" : "bundle")
                    if let with = value.firstIndex(where: { $0.text == "[" }) {
                        info.merge(dictionary(value, from: with).value as? [String: Any] ?? [:]) { $1 }
                    } else if let named = value.last(where: { $0.isIdentifier && constants.dictionaries[$0.text] != nil }), let table = constants.dictionaries[named.text] {
                        info.merge(table) { $1 }
                    }
                    generated[XcodeGenSpec.key(path, in: folder)] = XcodeGenSpec.plist(info)
                } else if key == "entitlements", let dict = value.firstIndex(where: { $0.text == "[" }) {
                    let path = "Derived/Entitlements/\(name).entitlements"
                    settings[setting] = path
                    generated[XcodeGenSpec.key(path, in: folder)] = XcodeGenSpec.plist(dictionary(value, from: dict).value as? [String: Any] ?? [:])
                } else {
                    unread.append("line \(line): target \(name)'s \(key) is computed (\(SwiftTokens.text(value))): left out")
                }
            }
            // `settings: .settings(base: ["KEY": "value"])`.
            if let value = args.value("settings"), let base = value.firstIndex(where: { $0.text == "base" }),
               let open = value[base...].firstIndex(where: { $0.text == "[" }),
               let table = dictionary(value, from: open).value as? [String: Any] {
                for (k, v) in table { if let s = v as? String { settings[k] = s } }
            }
            var dependencies: [String] = []
            if let value = args.value("dependencies") {
                for (k, t) in value.enumerated() where t.text == "target" && k + 1 < value.count && value[k + 1].text == "(" {
                    let call = arguments(value, openAt: k + 1)
                    if let n = call.value("name").flatMap(literal) ?? call.positional.first.flatMap(literal) {
                        dependencies.append(n)
                    }
                }
            }
            let configurations = ["Debug", "Release"].map { XcodeProject.Configuration(name: $0, settings: settings) }
            targets.append(XcodeProject.Target(name: name, productType: products[productName] ?? "com.apple.product-type.\(productName)",
                                               configurations: configurations, defaultConfiguration: "Release",
                                               embeddedTargets: dependencies, dependencies: dependencies))
            i = args.end
        }
        if targets.isEmpty {
            unread.append("no target is written in it with literals (its targets come from helpers, ProjectDescriptionHelpers or code mamsim does not run): run `tuist generate --no-open` in \(ProjectRoot.printable(folder.standardizedFileURL.path, limit: 300)) and name the .xcodeproj it writes")
        }
        targets = XcodeProject.embeddingExtensionsOnly(targets)
        var project = XcodeProject(url: folder.appendingPathComponent("\(projectName).xcodeproj"), manifest: manifest, sourceRoot: folder,
                                   name: projectName, configurations: ["Debug", "Release"].map { XcodeProject.Configuration(name: $0, settings: [:]) },
                                   defaultConfiguration: "Release", targets: targets)
        project.generatedFiles = generated
        project.unread = unread
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

        init(_ tokens: [SwiftTokens.Token]) {
            var i = 0
            while i + 3 < tokens.count {
                guard tokens[i].text == "let", tokens[i + 1].isIdentifier else { i += 1; continue }
                let name = tokens[i + 1].text
                var j = i + 2
                if tokens[j].text == ":" { while j < tokens.count, tokens[j].text != "=", tokens[j].text != "\n" { j += 1; if j - i > 20 { break } } }
                guard j + 1 < tokens.count, tokens[j].text == "=" else { i += 1; continue }
                if case .string(let s, interpolated: false) = tokens[j + 1].kind { strings[name] = s }
                if tokens[j + 1].text == "[", let table = TuistManifest.dictionary(tokens, from: j + 1).value as? [String: Any] { dictionaries[name] = table }
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

/// Swift source as tokens, enough to read literals and calls: identifiers, string literals
/// (an interpolation marks the string computed), numbers, punctuation; comments skipped.
struct SwiftTokens {
    enum Kind: Equatable { case identifier, string(String, interpolated: Bool), number(String), punctuation }
    struct Token {
        var kind: Kind
        var text: String
        var line: Int
        var isIdentifier: Bool { kind == .identifier }
    }

    var tokens: [Token] = []

    /// A string literal from its opening quote (`"…"` or `"""…"""`), escapes read and each
    /// interpolation kept as written (`\(name)`: a constant of the manifest may fill it);
    /// `i` and `line` end after it. An interpolated literal is a template: its own backslashes
    /// doubled (`\\`), so an escaped backslash before a parenthesis is never an interpolation.
    static func stringLiteral(_ c: [Unicode.Scalar], at i: inout Int, line: inout Int) -> (String, interpolated: Bool) {
        func peek(_ k: Int) -> Unicode.Scalar? { i + k < c.count ? c[i + k] : nil }
        let triple = peek(1) == "\"" && peek(2) == "\""
        i += triple ? 3 : 1
        var s = "", template = "", interpolated = false
        while i < c.count {
            if triple ? (c[i] == "\"" && peek(1) == "\"" && peek(2) == "\"") : c[i] == "\"" { i += triple ? 3 : 1; break }
            if c[i] == "\n" { line += 1; if !triple { break } }
            if c[i] == "\\", let next = peek(1) {
                if next == "(" {
                    // Kept as written (`\(name)`): a constant of the manifest may fill it.
                    interpolated = true
                    var depth = 0
                    s += "\\"
                    template += "\\"
                    i += 1
                    while i < c.count {
                        s.unicodeScalars.append(c[i])
                        template.unicodeScalars.append(c[i])
                        if c[i] == "(" { depth += 1 } else if c[i] == ")" { depth -= 1; if depth == 0 { break } }
                        i += 1
                    }
                    i += 1
                    continue
                }
                let escaped: Unicode.Scalar = next == "n" ? "\n" : next == "t" ? "\t" : next
                s.unicodeScalars.append(escaped)
                template += escaped == "\\" ? "\\\\" : String(escaped)
                i += 2
                continue
            }
            s.unicodeScalars.append(c[i])
            template += c[i] == "\\" ? "\\\\" : String(c[i])
            i += 1
        }
        return (interpolated ? template : s, interpolated)
    }

    init(_ source: String) {
        let c = Array(source.unicodeScalars)
        var i = 0, line = 1
        func peek(_ k: Int) -> Unicode.Scalar? { i + k < c.count ? c[i + k] : nil }
        while i < c.count {
            let ch = c[i]
            if ch == "\n" { line += 1; i += 1; continue }
            if ch == " " || ch == "\t" || ch == "\r" { i += 1; continue }
            if ch == "/", peek(1) == "/" { while i < c.count, c[i] != "\n" { i += 1 }; continue }
            if ch == "/", peek(1) == "*" {
                i += 2
                while i < c.count, !(c[i] == "*" && peek(1) == "/") { if c[i] == "\n" { line += 1 }; i += 1 }
                i += 2
                continue
            }
            if ch == "\"" {
                let start = line
                let (s, interpolated) = Self.stringLiteral(c, at: &i, line: &line)
                tokens.append(Token(kind: .string(s, interpolated: interpolated), text: "\"\(s)\"", line: start))
                continue
            }
            if ch.properties.isAlphabetic || ch == "_" {
                var s = ""
                while i < c.count, c[i].properties.isAlphabetic || c[i].properties.numericType != nil || c[i] == "_" { s.unicodeScalars.append(c[i]); i += 1 }
                tokens.append(Token(kind: .identifier, text: s, line: line))
                continue
            }
            if ch.properties.numericType != nil {
                var s = ""
                while i < c.count, c[i].properties.numericType != nil || c[i] == "." || c[i] == "_" { s.unicodeScalars.append(c[i]); i += 1 }
                tokens.append(Token(kind: .number(s), text: s, line: line))
                continue
            }
            tokens.append(Token(kind: .punctuation, text: String(ch), line: line))
            i += 1
        }
    }

    /// Tokens as a reader sees them, short, for messages.
    static func text(_ tokens: [Token]) -> String {
        ProjectRoot.printable(tokens.map(\.text).joined(separator: " "), limit: 80)
    }
}
