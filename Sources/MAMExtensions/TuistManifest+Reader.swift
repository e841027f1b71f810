import Foundation
import MAMActivation
import MAMBundle

/// The targets a Tuist manifest's tokens define, read as Tuist would run them as far as the
/// code is literals, constants and calls of the manifest's own functions (or those of
/// `Tuist/ProjectDescriptionHelpers`) with such arguments: a call is read as its body says,
/// each parameter filled with what the call passes (or its default). What is computed beyond
/// that is named in `unread`, never a dead end.
extension TuistManifest {
    /// A function the manifest or its helpers declare (`func makeTarget(name: String, suffix:
    /// String = "") -> Target { … }`, `static func app(…)` in an extension).
    struct Function {
        struct Parameter { var label: String?; var name: String; var defaultValue: [SwiftTokens.Token]? }
        var name: String
        var parameters: [Parameter]
        var body: ArraySlice<SwiftTokens.Token>
        /// Where it is declared, to skip when reading the manifest's own calls.
        var declaration: Range<Int>

        /// Every function of `tokens` with a body, by name: overloads in order (`Project.make`
        /// and `Target.make` of one helper module).
        static func all(in tokens: [SwiftTokens.Token]) -> [String: [Function]] {
            var out: [String: [Function]] = [:]
            var i = 0
            while i + 2 < tokens.count {
                guard tokens[i].text == "func", tokens[i + 1].isIdentifier, let f = parse(tokens, at: i) else { i += 1; continue }
                out[f.name, default: []].append(f)
                i = f.declaration.upperBound
            }
            return out
        }

        /// Whether a call passing `args` fits: each label it passes is a parameter's, and every
        /// parameter without a default is passed.
        func fits(_ args: Arguments) -> Bool {
            let labels = Set(parameters.compactMap(\.label))
            guard args.labeled.keys.allSatisfy(labels.contains) else { return false }
            let unlabeled = parameters.filter { $0.label == nil }
            guard args.positional.count <= unlabeled.count else { return false }
            return parameters.allSatisfy { p in p.defaultValue != nil || (p.label.map { args.labeled[$0] != nil } ?? true) }
        }

        static func parse(_ tokens: [SwiftTokens.Token], at start: Int) -> Function? {
            var i = start + 2
            // Generic parameters (`<T>`) are skipped.
            if i < tokens.count, tokens[i].text == "<" { while i < tokens.count, tokens[i].text != ">" { i += 1 }; i += 1 }
            guard i < tokens.count, tokens[i].text == "(" else { return nil }
            let list = TuistManifest.arguments(tokens, openAt: i)
            guard let open = tokens[list.end...].firstIndex(where: { $0.text == "{" }),
                  !tokens[list.end..<open].contains(where: { $0.text == "}" || $0.text == "func" }),
                  let close = matching(tokens, open) else { return nil }
            var parameters: [Parameter] = []
            for part in parameterParts(tokens, from: i, to: list.end - 1) {
                guard let colon = part.firstIndex(where: { $0.text == ":" }) else { continue }
                let names = part[..<colon].filter(\.isIdentifier).map(\.text)
                guard let name = names.last else { continue }
                let label = names.count >= 2 ? (names[0] == "_" ? nil : names[0]) : name
                let value = part.firstIndex { $0.text == "=" }.map { Array(part[($0 + 1)...]) }
                parameters.append(Parameter(label: label, name: name, defaultValue: value))
            }
            return Function(name: tokens[start + 1].text, parameters: parameters, body: tokens[(open + 1)..<close], declaration: start..<(close + 1))
        }

        /// A parameter list's parts between commas at its own level.
        static func parameterParts(_ tokens: [SwiftTokens.Token], from open: Int, to close: Int) -> [ArraySlice<SwiftTokens.Token>] {
            var parts: [ArraySlice<SwiftTokens.Token>] = []
            var depth = 0, start = open + 1
            for k in (open + 1)..<max(open + 1, close) {
                let t = tokens[k].text
                if "([{<".contains(t) { depth += 1 } else if ")]}>".contains(t) { depth -= 1 } else if t == ",", depth == 0 {
                    parts.append(tokens[start..<k]); start = k + 1
                }
            }
            if start < close { parts.append(tokens[start..<close]) }
            return parts
        }

        static func matching(_ tokens: [SwiftTokens.Token], _ open: Int) -> Int? {
            var depth = 0
            for k in open..<tokens.count {
                if tokens[k].text == "{" { depth += 1 } else if tokens[k].text == "}" { depth -= 1; if depth == 0 { return k } }
            }
            return nil
        }

        /// The body with each parameter filled as the call `args` passes it: a name by the
        /// argument's tokens, and in an interpolated literal by the argument's text when that is
        /// a literal or a constant. `nil` when an argument without default is missing.
        func filled(with args: Arguments, constants: Constants) -> [SwiftTokens.Token]? {
            var values: [String: [SwiftTokens.Token]] = [:]
            var positional = args.positional.makeIterator()
            for p in parameters {
                guard let value = (p.label.map { args.value($0) } ?? positional.next()) ?? p.defaultValue else { return nil }
                values[p.name] = value
            }
            var out: [SwiftTokens.Token] = []
            let body = Array(body)
            for (k, t) in body.enumerated() {
                let member = k > 0 && body[k - 1].text == "."
                let label = k + 1 < body.count && body[k + 1].text == ":" && k > 0 && (body[k - 1].text == "(" || body[k - 1].text == ",")
                // The argument takes the parameter's line: a `let` of the body is read by its line.
                if t.isIdentifier, !member, !label, let value = values[t.text] {
                    out += value.map { var v = $0; v.line = t.line; return v }
                    continue
                }
                if case .string(let template, interpolated: true) = t.kind {
                    var text = template
                    for (name, value) in values {
                        guard text.contains("\\(\(name))"), let literal = constants.string(value) else { continue }
                        text = text.replacingOccurrences(of: "\\(\(name))", with: literal.replacingOccurrences(of: "\\", with: "\\\\"))
                    }
                    out.append(SwiftTokens.Token(kind: .string(text, interpolated: true), text: "\"\(text)\"", line: t.line))
                    continue
                }
                out.append(t)
            }
            return out
        }
    }

    /// The tokens of the helpers a manifest may import: `Tuist/ProjectDescriptionHelpers/*.swift`
    /// and each local plugin's `Plugins/*/ProjectDescriptionHelpers/*.swift`, in the nearest
    /// folder up from `folder` (at most four up, never past a repository's root) that has them.
    static func helperTokens(near folder: URL) -> [SwiftTokens.Token] {
        let fm = FileManager.default
        var candidate = folder.standardizedFileURL
        for _ in 0..<5 {
            var folders = [candidate.appendingPathComponent("Tuist/ProjectDescriptionHelpers")]
            let plugins = candidate.appendingPathComponent("Plugins")
            for plugin in ((try? fm.contentsOfDirectory(atPath: plugins.path)) ?? []).sorted().prefix(16) {
                folders.append(plugins.appendingPathComponent(plugin).appendingPathComponent("ProjectDescriptionHelpers"))
            }
            let files = folders.flatMap { dir in ((try? fm.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".swift") }.sorted().map(dir.appendingPathComponent) }
            if !files.isEmpty {
                let tokens = files.prefix(128)
                    .compactMap { InputFile.text(of: $0, limit: manifestLimit) }
                    .map { SwiftTokens($0).tokens }
                    .filter { nestedTooDeep($0) == nil }
                return Array(tokens.joined())
            }
            if fm.fileExists(atPath: candidate.appendingPathComponent(".git").path) { break }
            candidate = candidate.deletingLastPathComponent()
        }
        return []
    }

    struct TargetReader {
        var constants: Constants
        let functions: [String: [Function]]
        let folder: URL
        var projectName: String
        var targets: [XcodeProject.Target] = []
        var unread: [String] = []
        var generated: [String: Data] = [:]
        /// Calls read through a function's body, all told: bounds a manifest whose functions
        /// call each other.
        var expansions = 0
        /// The functions being read through, innermost last (for where a line is).
        var calling: [String] = []
        static let maximumExpansions = 512, maximumExpansionDepth = 6

        /// Reads the targets of `tokens`; the manifest's own function bodies (`skippingBodies`)
        /// are read only where they are called.
        mutating func scan(_ tokens: [SwiftTokens.Token], skippingBodies: Bool = false, depth: Int = 0) {
            let bodies = skippingBodies ? Function.all(in: tokens).values.flatMap { $0.map(\.declaration) } : []
            // A body's own constants, over the manifest's, for that body alone.
            let outer = constants
            if depth > 0 { constants = Constants(tokens, base: outer) }
            defer { constants = outer }
            var i = 0
            while i < tokens.count {
                if let body = bodies.first(where: { $0.contains(i) }) { i = body.upperBound; continue }
                let t = tokens[i]
                let opens = i + 1 < tokens.count && tokens[i + 1].text == "("
                if t.text == "Project", opens, let name = TuistManifest.arguments(tokens, openAt: i + 1).value("name").flatMap(constants.string) {
                    projectName = name
                }
                if opens, t.isIdentifier, let overloads = functions[t.text], i == 0 || tokens[i - 1].text != "func" {
                    let args = TuistManifest.arguments(tokens, openAt: i + 1)
                    if let f = overloads.first(where: { $0.fits(args) }), depth < Self.maximumExpansionDepth, expansions < Self.maximumExpansions, let body = f.filled(with: args, constants: constants) {
                        expansions += 1
                        calling.append("\(f.name)(…)")
                        scan(body, depth: depth + 1)
                        calling.removeLast()
                        i = args.end
                        continue
                    }
                }
                let isCall = opens && (t.text == "Target" || (["target", "init"].contains(t.text) && i > 0 && tokens[i - 1].text == "."))
                guard isCall else { i += 1; continue }
                let args = TuistManifest.arguments(tokens, openAt: i + 1)
                // A dependency (`.target(name: "Widget")`) names a target; a definition has a product.
                guard args.value("product") != nil else { i += 1; continue }
                readTarget(args, line: t.line)
                i = args.end
            }
        }
    }
}
