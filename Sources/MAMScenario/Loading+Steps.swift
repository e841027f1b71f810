import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMDocument
import MAMModel
import MAMPolicy
import Yams

/// `steps:` — one verb per step with its arguments, and the optional `expect`.
extension Loading {
    func readSteps(_ v: Located) -> [Step] {
        guard let items = reader.list(v, what: "steps") else { return [] }
        var steps: [Step] = []
        for (index, item) in items.enumerated() {
            if let step = readStep(index: index, item) { steps.append(step) }
        }
        return steps
    }

    private func readStep(index: Int, _ v: Located) -> Step? {
        guard case .mapping(let mapping) = v.node else {
            reader.error(v, "a step must be a mapping such as `share: {from: mail, to: notes, item: ...}`, but it is \(v.shape)")
            return nil
        }
        let verbNames = Verb.allCases.map(\.rawValue)
        var verbs: [(Verb, Located)] = []
        var name: String?
        var expectLoc: Located?
        var written: String?
        for (keyNode, valueNode) in mapping {
            var key = keyNode.scalar?.string ?? ""
            var value = Located(node: valueNode, path: v.child(key))
            if key != "name", key != "expect", let (ours, args) = ContractAliases.step(key, valueNode) {
                // The contract's name for what this project calls otherwise (docs/SCENARIOS.md).
                written = key
                (key, value) = (ours, Located(node: args, path: v.child(key)))
            }
            switch key {
            case "name": name = reader.string(value, what: "name")
            case "expect": expectLoc = value
            default:
                if let verb = Verb(rawValue: key) {
                    verbs.append((verb, value))
                } else {
                    let keyLoc = Located(node: keyNode, path: v.child(key))
                    let hint = Suggestion.closest(to: key, among: verbNames + ["expect", "name"]).map { "did you mean \"\($0)\"?" }
                        ?? "the verbs are: \(verbNames.joined(separator: ", "))"
                    reader.error(keyLoc, "unknown verb \"\(key)\"; \(hint)")
                    return nil
                }
            }
        }
        guard verbs.count == 1, let (verb, argsLoc) = verbs.first else {
            if verbs.isEmpty {
                reader.error(v, "a step needs a verb (\(verbNames.joined(separator: ", ")))")
            } else {
                reader.error(v, "a step has one verb, but this one has \(verbs.map { "\"\($0.0)\"" }.joined(separator: " and ")); split it into steps")
            }
            return nil
        }
        let arguments = readArguments(verb, argsLoc)
        if let e = expectLoc { expectLoc = Located(node: ContractAliases.expectation(written ?? verb.rawValue, e.node), path: e.path) }
        let expect = expectLoc.flatMap { readExpectation($0, verb: verb) }
        guard let arguments else { return nil }
        if expectLoc != nil, expect == nil { return nil }
        return Step(index: index, line: v.line, name: name, arguments: arguments, expect: expect)
    }

    // MARK: Arguments

    private func readArguments(_ verb: Verb, _ v: Located) -> StepArguments? {
        let required = verb.type.arguments.filter(\.required).map(\.key)
        let optional = verb.type.arguments.filter { !$0.required }.map(\.key)
        guard let f = reader.fields(v, allowed: required + optional, required: required,
                                    what: "\(verb)'s arguments") else { return nil }
        guard required.allSatisfy({ f.has($0) }) else { return nil }
        let before = reader.errors.count
        let result = verb.type.load(VerbArgumentReader(loading: self, fields: f, node: v))
        return reader.errors.count == before ? result : nil
    }

    func enumValue<E: RawRepresentable & CaseIterable>(_ v: Located, _: E.Type, what: String) -> E? where E.RawValue == String {
        guard let s = reader.string(v, what: what) else { return nil }
        if let e = E(rawValue: s) { return e }
        let names = E.allCases.map(\.rawValue)
        if let e = E.allCases.first(where: { $0.rawValue.lowercased() == s.lowercased() }) { return e }
        if let aliased = E.self as? any GraphAliased.Type, let (e, note) = aliased.alias(s), let value = e as? E {
            reader.warn(v, "\(what) \"\(s)\" is \(note); read as \(value.rawValue)")
            return value
        }
        let hint = Suggestion.closest(to: s, among: names).map { "did you mean \"\($0)\"?" } ?? "expected one of: \(names.joined(separator: ", "))"
        reader.error(v, "unknown \(what) \"\(s)\"; \(hint)")
        return nil
    }

    // MARK: Items

    func readItem(_ v: Located) -> ScenarioItem? {
        guard let f = reader.fields(v, allowed: ["type", "text", "data", "file"], what: "an item") else { return nil }
        let contents = ["text", "data", "file"].filter { f.has($0) }
        guard contents.count == 1 else {
            reader.error(v, contents.isEmpty
                ? "an item needs one of text:, data: (base64) or file:"
                : "an item has one of text:, data: or file:, but this one has \(contents.joined(separator: " and "))")
            return nil
        }
        var type: String?
        if let x = f["type"] {
            type = reader.name(x, what: "type")
            if let type { checkTypeIdentifier(type, at: x) }
        }
        switch contents[0] {
        case "text":
            guard let s = reader.string(f["text"]!, what: "text") else { return nil }
            guard let type else { reader.error(v, "an item with text: needs type: (e.g. public.plain-text)"); return nil }
            return ScenarioItem(type: type, content: .text(s))
        case "data":
            let x = f["data"]!
            guard let s = reader.string(x, what: "data") else { return nil }
            guard let bytes = Data(base64Encoded: s.filter { !$0.isWhitespace }) else {
                reader.error(x, "data must be base64, but \(x.shape) is not")
                return nil
            }
            guard let type else { reader.error(v, "an item with data: needs type: (e.g. public.jpeg)"); return nil }
            return ScenarioItem(type: type, content: .data(Array(bytes)))
        default:
            let x = f["file"]!
            guard let url = existingPath(x, what: "file") else { return nil }
            inputs.append(url)
            if let type { return ScenarioItem(type: type, content: .file(url)) }
            let ext = url.pathExtension
            guard let inferred = UTIRegistry.system.preferredType(forFilenameExtension: ext) else {
                reader.error(x, "cannot tell the type of \(x.shape) from its extension \"\(ext)\"; add type: (a UTI such as com.adobe.pdf)")
                return nil
            }
            return ScenarioItem(type: inferred, content: .file(url))
        }
    }

    /// Warns about an item type that looks mistyped: within two edits of a type iOS declares,
    /// or in Apple's namespaces (`public.`, `com.apple.`) without being declared there. A
    /// custom type of the app's own (`com.contoso.report`) is not questioned.
    func checkTypeIdentifier(_ type: String, at x: Located) {
        let base = UTIRegistry.isIntuneType(type) ? String(type.dropFirst(UTIRegistry.intunePrefix.count)) : type
        let system = UTIRegistry.system
        guard system.declaration(for: base) == nil else { return }
        let folded = Array(base.lowercased())
        let near = system.identifiers.map { ($0, Suggestion.distance(folded, Array($0.lowercased()))) }.min { $0.1 < $1.1 }
        if let (candidate, d) = near, d <= 2 {
            reader.warn(x, "type \"\(base)\" is not a type iOS declares; did you mean \"\(candidate)\"?")
        } else if base.hasPrefix("public.") || base.hasPrefix("com.apple.") {
            reader.warn(x, "type \"\(base)\" is not a type iOS declares in its \(base.hasPrefix("public.") ? "public." : "com.apple.") namespace (public.plain-text, public.jpeg, com.adobe.pdf… are)")
        }
    }

}
