package import Foundation
package import Yams

/// A YAML node with the key path that leads to it, so every message can say where it is.
package struct Located {
    package let node: Node
    package let path: String

    package init(node: Node, path: String) {
        self.node = node
        self.path = path
    }

    package var line: Int { node.mark?.line ?? 0 }
    package var column: Int { node.mark?.column ?? 0 }

    package func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    package func element(_ index: Int) -> String { "\(path)[\(index)]" }

    package var isNull: Bool {
        if case .scalar(let s) = node, s.style == .plain { return node.null != nil }
        return false
    }

    /// How the value reads in a message: `"maybe"`, `a list`, `a mapping`, `null`.
    package var shape: String {
        switch node {
        case .scalar(let s):
            if isNull { return "null" }
            return "\"\(s.string)\""
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .alias: return "an alias"
        }
    }
}

/// The keys of one mapping, each with its value and the location of the key itself.
package struct Fields {
    package let owner: Located
    package var values: [String: Located] = [:]
    package var keyNodes: [String: Located] = [:]
    /// Keys in document order.
    package var order: [String] = []

    package init(owner: Located) { self.owner = owner }

    package subscript(_ key: String) -> Located? { values[key] }
    package func has(_ key: String) -> Bool { values[key] != nil }
}

/// Reads values out of a composed YAML document, recording a problem for every value of the
/// wrong shape instead of stopping at the first, so one load reports them all.
package final class DocumentReader {
    package let file: URL
    package private(set) var errors: [ScenarioDiagnostic] = []
    package private(set) var warnings: [ScenarioDiagnostic] = []

    package init(file: URL) { self.file = file }

    package func error(_ at: Located, _ message: String) {
        error(line: at.line, column: at.column, path: at.path, message)
    }

    package func error(line: Int, column: Int, path: String, _ message: String) {
        errors.append(ScenarioDiagnostic(file: file, line: line, column: column, keyPath: path, message: message))
    }

    package func warn(_ at: Located, _ message: String) {
        warnings.append(ScenarioDiagnostic(file: file, line: at.line, column: at.column, keyPath: at.path, message: message))
    }

    // MARK: Shapes

    /// A mapping with string keys among `allowed`; unknown keys are errors with a suggestion,
    /// missing `required` keys are errors at the mapping. `nil` when it is not a mapping.
    package func fields(_ v: Located, allowed: [String], required: [String] = [], what: String,
                extraAllowed: (String) -> Bool = { _ in false }) -> Fields? {
        guard case .mapping(let mapping) = v.node else {
            error(v, "\(what) must be a mapping of keys (\(allowed.joined(separator: ", "))), but it is \(v.shape)")
            return nil
        }
        var out = Fields(owner: v)
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                error(Located(node: keyNode, path: v.path), "keys of \(what) must be plain words, but one is \(Located(node: keyNode, path: v.path).shape)")
                continue
            }
            let key = keyScalar.string
            let keyLoc = Located(node: keyNode, path: v.child(key))
            guard allowed.contains(key) || extraAllowed(key) else {
                let hint = Suggestion.closest(to: key, among: allowed).map { "did you mean \"\($0)\"?" }
                    ?? "expected one of: \(allowed.joined(separator: ", "))"
                error(keyLoc, "unknown key \"\(key)\" in \(what); \(hint)")
                continue
            }
            out.values[key] = Located(node: valueNode, path: v.child(key))
            out.keyNodes[key] = keyLoc
            out.order.append(key)
        }
        for key in required where out.values[key] == nil {
            error(v, "\(what) needs \"\(key)\"")
        }
        return out
    }

    /// The elements of a list, each with its indexed path; `nil` (and an error) otherwise.
    package func list(_ v: Located, what: String) -> [Located]? {
        guard case .sequence(let seq) = v.node else {
            error(v, "\(what) must be a list, but it is \(v.shape)")
            return nil
        }
        return seq.enumerated().map { Located(node: $1, path: v.element($0)) }
    }

    /// Any scalar but null, as written (`18.4`, `"1234"`, `alice@contoso.com`).
    package func string(_ v: Located, what: String) -> String? {
        guard case .scalar(let s) = v.node, !v.isNull else {
            error(v, "\(what) must be a string, but it is \(v.shape)")
            return nil
        }
        return s.string
    }

    /// A non-empty string.
    package func name(_ v: Located, what: String) -> String? {
        guard let s = string(v, what: what) else { return nil }
        guard !s.isEmpty else {
            error(v, "\(what) must not be empty")
            return nil
        }
        return s
    }

    package func bool(_ v: Located, what: String) -> Bool? {
        if case .scalar(let s) = v.node, s.style == .plain, let b = v.node.bool { return b }
        error(v, "\(what) must be true or false, but it is \(v.shape)")
        return nil
    }

    package func int(_ v: Located, what: String) -> Int? {
        if case .scalar(let s) = v.node, s.style == .plain, let n = v.node.int { return n }
        error(v, "\(what) must be a whole number, but it is \(v.shape)")
        return nil
    }

    package func strings(_ v: Located, what: String) -> [String]? {
        guard let items = list(v, what: what) else { return nil }
        var out: [String] = []
        var ok = true
        for item in items {
            if let s = string(item, what: "each entry of \(what)") { out.append(s) } else { ok = false }
        }
        return ok ? out : nil
    }
}
