import Foundation

/// XcodeGen's target templates (ProjectSpec.md, "Target Template").
extension XcodeGenSpec {
    /// A target with its `templates:` (from `targetTemplates`) applied, in order, under what
    /// the target itself says: its keys win, except `settings` (merged) and `dependencies`
    /// (the templates' first). Templates of templates are followed, at most 8 deep.
    static func applying(_ templates: [String: Any], to target: [String: Any], named name: String = "", depth: Int = 0) -> [String: Any] {
        guard depth < 8, let names = target["templates"] as? [String], !names.isEmpty else { return target }
        // ProjectSpec.md, "Target Template": `${target_name}` in a template is the name of the
        // target that uses it, and each `templateAttributes` entry replaces `${its_name}`.
        var attributes = (target["templateAttributes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        if !name.isEmpty { attributes["target_name"] = name }
        if let platform = target["platform"] as? String { attributes["platform"] = attributes["platform"] ?? platform }
        var merged: [String: Any] = [:]
        for templateName in names {
            guard let template = templates[templateName] as? [String: Any] else { continue }
            let filled = replacing(attributes, in: applying(templates, to: template, named: name, depth: depth + 1)) as? [String: Any] ?? [:]
            merged = merging(filled, onto: merged)
        }
        var target = target
        target["templates"] = nil
        target["templateAttributes"] = nil
        return merging(target, onto: merged)
    }

    /// `value` with each `${name}` of `attributes` replaced, in keys and values alike.
    static func replacing(_ attributes: [String: String], in value: Any) -> Any {
        guard !attributes.isEmpty else { return value }
        switch value {
        case let s as String:
            guard s.contains("${") else { return s }
            // One pass, left to right: what an attribute holds is never read again (attributes
            // naming each other cannot grow a string past their own lengths).
            var out = "", rest = Substring(s)
            while let open = rest.range(of: "${") {
                out += rest[..<open.lowerBound]
                guard let close = rest[open.upperBound...].firstIndex(of: "}"), let v = attributes[String(rest[open.upperBound..<close])] else {
                    out += "${"
                    rest = rest[open.upperBound...]
                    continue
                }
                out += v
                rest = rest[rest.index(after: close)...]
            }
            return out + rest
        case let d as [String: Any]:
            var out: [String: Any] = [:]
            for (k, v) in d { out[replacing(attributes, in: k) as? String ?? k] = replacing(attributes, in: v) }
            return out
        case let a as [Any]:
            return a.map { replacing(attributes, in: $0) }
        default:
            return value
        }
    }
}
