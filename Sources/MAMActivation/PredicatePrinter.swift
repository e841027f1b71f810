/// Turns a parsed rule back into NSPredicate text that `ActivationPredicate(parsing:)` reads back
/// to the same value.
///
/// OR prints as `||` and AND as `AND` (not `&&`), so the text needs no `&amp;` once inside an
/// Info.plist; `NOT` always parenthesizes its operand.
extension ActivationPredicate: CustomStringConvertible {
    /// One line.
    public var description: String { PredicatePrinter(multiline: false).predicate(self, indent: "") }

    /// The layout of Apple's and Microsoft's examples: one SUBQUERY argument and one alternative per line.
    public var formatted: String { PredicatePrinter(multiline: true).predicate(self, indent: "") }
}

extension ActivationPredicate.Expression: CustomStringConvertible {
    public var description: String { PredicatePrinter(multiline: false).expression(self, indent: "") }
}

private struct PredicatePrinter {
    let multiline: Bool
    let step = "    "

    func predicate(_ p: ActivationPredicate, indent: String) -> String {
        switch p {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let inner):
            return "NOT (" + predicate(inner, indent: indent) + ")"
        case .or(let parts):
            let separator = multiline ? " ||\n" + indent : " || "
            return parts.map { part in
                if case .or = part { return "(" + predicate(part, indent: indent) + ")" }
                return predicate(part, indent: indent)
            }.joined(separator: separator)
        case .and(let parts):
            return parts.map { part in
                switch part {
                case .or, .and: return grouped(part, indent: indent)
                default: return predicate(part, indent: indent)
                }
            }.joined(separator: " AND ")
        case .comparison(let c):
            let modifier = c.modifier == .direct ? "" : c.modifier.rawValue + " "
            return modifier + expression(c.lhs, indent: indent) + " " + c.op.rawValue + " " + expression(c.rhs, indent: indent)
        }
    }

    private func grouped(_ p: ActivationPredicate, indent: String) -> String {
        guard multiline else { return "(" + predicate(p, indent: indent) + ")" }
        let inner = indent + step
        return "(\n" + inner + predicate(p, indent: inner) + "\n" + indent + ")"
    }

    func expression(_ e: ActivationPredicate.Expression, indent: String) -> String {
        switch e {
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .number(let n): return String(n)
        case .string(let s):
            var escaped = ""
            for c in s {
                switch c {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\t": escaped += "\\t"
                default: escaped.append(c)
                }
            }
            return "\"" + escaped + "\""
        case .key(.evaluatedObject, let key):
            return key
        case .key(let base, let key):
            return expression(base, indent: indent) + "." + key
        case .subquery(let collection, let variable, let body):
            guard multiline else {
                return "SUBQUERY(" + expression(collection, indent: indent) + ", $" + variable + ", " + predicate(body, indent: indent) + ")"
            }
            let inner = indent + step
            return "SUBQUERY (\n"
                + inner + expression(collection, indent: inner) + ",\n"
                + inner + "$" + variable + ",\n"
                + inner + predicate(body, indent: inner) + "\n"
                + indent + ")"
        }
    }
}
