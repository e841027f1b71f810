/// The predicate-string form of `NSExtensionActivationRule`, parsed: the subset of NSPredicate
/// syntax that activation rules use (`SUBQUERY`, `@count`, `ANY`, `UTI-CONFORMS-TO`, `UTI-EQUALS`,
/// comparisons, `AND`/`OR`/`NOT`, `TRUEPREDICATE`/`FALSEPREDICATE`).
///
/// `And`/`Or` hold flat lists (`a || b || c` is one `.or` of three), which is how the
/// configurator finds the disjunction a type's Intune twin belongs in.
public indirect enum ActivationPredicate: Sendable, Hashable {
    case constant(Bool)
    case not(ActivationPredicate)
    case and([ActivationPredicate])
    case or([ActivationPredicate])
    case comparison(Comparison)

    /// `lhs op rhs`, optionally under an aggregate modifier (`ANY $a.registeredTypeIdentifiers …`).
    public struct Comparison: Sendable, Hashable {
        public var modifier: Modifier
        public var lhs: Expression
        public var op: Operator
        public var rhs: Expression

        public init(_ modifier: Modifier = .direct, _ lhs: Expression, _ op: Operator, _ rhs: Expression) {
            self.modifier = modifier
            self.lhs = lhs
            self.op = op
            self.rhs = rhs
        }
    }

    /// How a comparison whose left side is a collection is quantified (`SOME` reads as `ANY`).
    public enum Modifier: String, Sendable, Hashable {
        case direct = "", any = "ANY", all = "ALL", none = "NONE"
    }

    /// A comparison operator, by its canonical spelling (`=` reads as `==`, `=<` as `<=`, `=>` as `>=`, `<>` as `!=`).
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case conformsTo = "UTI-CONFORMS-TO"
        case utiEquals = "UTI-EQUALS"

        /// Words for reasons: `exactly`, `at most`, …
        var phrase: String {
            switch self {
            case .equal: return "exactly"
            case .notEqual: return "other than"
            case .less: return "fewer than"
            case .lessOrEqual: return "at most"
            case .greater: return "more than"
            case .greaterOrEqual: return "at least"
            case .conformsTo: return "conforming to"
            case .utiEquals: return "equal to"
            }
        }
    }

    /// Left or right side of a comparison.
    public indirect enum Expression: Sendable, Hashable {
        /// The object the predicate is evaluated against (`SELF`, or the implicit root of a bare key).
        case evaluatedObject
        /// `$name` (stored without the `$`).
        case variable(String)
        case string(String)
        case number(Int)
        case subquery(collection: Expression, variable: String, predicate: ActivationPredicate)
        /// `base.key`; `key` may be `@count`.
        case key(Expression, String)

        /// `extensionItems`, `$attachment.registeredTypeIdentifiers`, … built from dotted text.
        public static func path(_ text: String) -> Expression {
            var parts = text.split(separator: ".").map(String.init)
            var base: Expression = .evaluatedObject
            if let first = parts.first, first.hasPrefix("$") {
                base = .variable(String(first.dropFirst()))
                parts.removeFirst()
            }
            return parts.reduce(base) { .key($0, $1) }
        }
    }
}

extension ActivationPredicate {
    /// `a AND b`, flattening nested ANDs.
    public static func allOf(_ parts: [ActivationPredicate]) -> ActivationPredicate {
        let flat = parts.flatMap { part -> [ActivationPredicate] in
            if case .and(let inner) = part { return inner }
            return [part]
        }
        return flat.count == 1 ? flat[0] : .and(flat)
    }

    /// `a OR b`, flattening nested ORs.
    public static func anyOf(_ parts: [ActivationPredicate]) -> ActivationPredicate {
        let flat = parts.flatMap { part -> [ActivationPredicate] in
            if case .or(let inner) = part { return inner }
            return [part]
        }
        return flat.count == 1 ? flat[0] : .or(flat)
    }

    /// `ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "type"`.
    public static func attachmentConforms(to type: String, variable: String = "attachment") -> ActivationPredicate {
        .comparison(Comparison(.any, .key(.variable(variable), "registeredTypeIdentifiers"), .conformsTo, .string(type)))
    }

    /// Every type identifier named as the right side of `UTI-CONFORMS-TO` / `UTI-EQUALS`.
    public var mentionedTypes: [String] {
        var found: [String] = []
        func walk(_ p: ActivationPredicate) {
            switch p {
            case .constant: break
            case .not(let inner): walk(inner)
            case .and(let parts), .or(let parts): parts.forEach(walk)
            case .comparison(let c):
                if c.op == .conformsTo || c.op == .utiEquals, case .string(let t) = c.rhs, !found.contains(t) { found.append(t) }
                walkExpression(c.lhs)
                walkExpression(c.rhs)
            }
        }
        func walkExpression(_ e: Expression) {
            switch e {
            case .subquery(let collection, _, let predicate): walkExpression(collection); walk(predicate)
            case .key(let base, _): walkExpression(base)
            default: break
            }
        }
        walk(self)
        return found
    }
}
