extension ActivationPredicate {
    /// Evaluates the rule against a share, the way the share sheet does: the evaluated object has
    /// `extensionItems` (each with `attachments`, each with `registeredTypeIdentifiers`).
    ///
    /// Our additions, for hand-written rules: a bare `attachments` at the top level is every
    /// attachment of every extension item, and a bare `registeredTypeIdentifiers` every type of
    /// every attachment. A comparison that cannot be made (an unknown key, a collection compared
    /// without `ANY`) is false, and the reason says why.
    public func evaluate(_ share: ShareInput, types: UTIRegistry = .system) -> ActivationResult {
        let outcome = PredicateEvaluator(types: types).evaluate(self, in: .init(root: .root(share)))
        return outcome.value ? .activated(because: outcome.reason) : .notActivated(because: outcome.reason)
    }
}

private indirect enum Value {
    case root(ShareInput)
    case item(ExtensionItem)
    case attachment(Attachment)
    case string(String)
    case number(Int)
    case list([Value])
    case missing(String)

    var shortDescription: String {
        switch self {
        case .root: return "the share"
        case .item(let item): return "an extension item of \(item.attachments.count) attachment(s)"
        case .attachment(let a): return "attachment \(a)"
        case .string(let s): return "\"\(s)\""
        case .number(let n): return String(n)
        case .list(let values): return "a collection of \(values.count)"
        case .missing(let why): return why
        }
    }
}

private struct Environment {
    var root: Value
    var variables: [String: Value] = [:]
}

private struct Outcome {
    var value: Bool
    var reason: String
    /// Some part of the rule could not be evaluated on the share (a missing key, values of two
    /// types): said first, found by this flag, never by the reason's words, which quote what the
    /// sender shared.
    var unevaluable = false
}

private struct PredicateEvaluator {
    let types: UTIRegistry

    func evaluate(_ p: ActivationPredicate, in env: Environment) -> Outcome {
        switch p {
        case .constant(let value):
            return Outcome(value: value, reason: value ? "rule is TRUEPREDICATE (accepts everything)" : "rule is FALSEPREDICATE (accepts nothing)")
        case .not(let inner):
            let outcome = evaluate(inner, in: env)
            return Outcome(value: !outcome.value, reason: "rule excludes what it negates: " + outcome.reason, unevaluable: outcome.unevaluable)
        case .and(let parts):
            var reasons: [String] = []
            var unevaluable = false
            for part in parts {
                let outcome = evaluate(part, in: env)
                if !outcome.value { return outcome }
                reasons.append(outcome.reason)
                unevaluable = unevaluable || outcome.unevaluable
            }
            return Outcome(value: true, reason: reasons.joined(separator: "; "), unevaluable: unevaluable)
        case .or(let parts):
            var failures: [String] = []
            var unevaluable = false
            for part in parts {
                let outcome = evaluate(part, in: env)
                if outcome.value { return outcome }
                if !failures.contains(outcome.reason) { failures.append(outcome.reason) }
                unevaluable = unevaluable || outcome.unevaluable
            }
            return Outcome(value: false, reason: failures.count == 1 ? failures[0] : "no alternative holds: " + failures.joined(separator: "; or "),
                           unevaluable: unevaluable)
        case .comparison(let c):
            return compare(c, in: env)
        }
    }

    // MARK: Expressions

    private func value(of e: ActivationPredicate.Expression, in env: Environment) -> Value {
        switch e {
        case .evaluatedObject: return env.root
        case .variable(let name): return env.variables[name] ?? .missing("undefined variable $\(name)")
        case .string(let s): return .string(s)
        case .number(let n): return .number(n)
        case .subquery(let collection, let variable, let body):
            guard case .list(let elements) = value(of: collection, in: env) else {
                return .missing("SUBQUERY over \(collection), which is not a collection")
            }
            return .list(elements.filter { element in
                var inner = env
                inner.variables[variable] = element
                return evaluate(body, in: inner).value
            })
        case .key(let base, let key):
            return lookup(key, in: value(of: base, in: env), path: e)
        }
    }

    private func lookup(_ key: String, in base: Value, path: ActivationPredicate.Expression) -> Value {
        switch (base, key) {
        case (.list(let values), "@count"): return .number(values.count)
        case (.list(let values), _): return .list(values.map { lookup(key, in: $0, path: path) })
        case (.root(let share), "extensionItems"): return .list(share.extensionItems.map(Value.item))
        case (.root(let share), "attachments"): return .list(share.allAttachments.map(Value.attachment))
        case (.root(let share), "registeredTypeIdentifiers"):
            return .list(share.allAttachments.flatMap(\.registeredTypeIdentifiers).map(Value.string))
        case (.item(let item), "attachments"): return .list(item.attachments.map(Value.attachment))
        case (.attachment(let a), "registeredTypeIdentifiers"): return .list(a.registeredTypeIdentifiers.map(Value.string))
        case (.missing, _): return base
        default: return .missing("\(path) is not a key of \(base.shortDescription)")
        }
    }

    // MARK: Comparisons

    private func compare(_ c: ActivationPredicate.Comparison, in env: Environment) -> Outcome {
        let lhs = value(of: c.lhs, in: env)
        let rhs = value(of: c.rhs, in: env)
        if case .missing(let why) = lhs { return Outcome(value: false, reason: "rule cannot be evaluated: \(why)", unevaluable: true) }
        if case .missing(let why) = rhs { return Outcome(value: false, reason: "rule cannot be evaluated: \(why)", unevaluable: true) }

        let result: Bool
        switch c.modifier {
        case .direct:
            guard let r = compareValues(lhs, c.op, rhs) else {
                return Outcome(value: false, reason: "rule cannot compare \(lhs.shortDescription) \(c.op.rawValue) \(rhs.shortDescription) in \(ActivationPredicate.comparison(c))"
                    + (isList(lhs) ? " (a collection needs ANY, ALL or NONE)" : ""), unevaluable: true)
            }
            result = r
        case .any, .all, .none:
            guard case .list(let elements) = lhs else {
                return Outcome(value: false, reason: "rule applies \(c.modifier.rawValue) to \(lhs.shortDescription), which is not a collection")
            }
            let matches = elements.map { compareValues($0, c.op, rhs) ?? false }
            switch c.modifier {
            case .any: result = matches.contains(true)
            case .all: result = !matches.contains(false)
            default: result = !matches.contains(true)
            }
        }
        return explain(c, lhs: lhs, rhs: rhs, result: result, env: env)
    }

    private func isList(_ v: Value) -> Bool {
        if case .list = v { return true }
        return false
    }

    /// An ordering comparison of two values of one type; `nil` for the type operators.
    private static func ordered<T: Comparable>(_ x: T, _ op: ActivationPredicate.Operator, _ y: T) -> Bool? {
        switch op {
        case .equal: x == y
        case .notEqual: x != y
        case .less: x < y
        case .lessOrEqual: x <= y
        case .greater: x > y
        case .greaterOrEqual: x >= y
        case .conformsTo, .utiEquals: nil
        }
    }

    private func compareValues(_ a: Value, _ op: ActivationPredicate.Operator, _ b: Value) -> Bool? {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return Self.ordered(x, op, y)
        case (.string(let x), .string(let y)):
            switch op {
            case .conformsTo: return types.conforms(x, to: y)
            case .utiEquals: return x.lowercased() == y.lowercased()
            default: return Self.ordered(x, op, y)
            }
        default:
            return nil
        }
    }

    // MARK: Reasons

    /// A sentence for a comparison, in the share's terms where the shape is a familiar one
    /// (`SUBQUERY(…).@count op n`, `collection.@count op n`, `ANY types UTI-CONFORMS-TO t`);
    /// an element's own outcome where that says more.
    private func explain(_ c: ActivationPredicate.Comparison, lhs: Value, rhs: Value, result: Bool, env: Environment) -> Outcome {
        if case .key(let counted, "@count") = c.lhs, case .number(let got) = lhs {
            var collection = counted
            var body: ActivationPredicate?
            var variable = ""
            if case .subquery(let inner, let v, let b) = counted { collection = inner; body = b; variable = v }
            let noun = Self.noun(for: collection)
            let what = body.map { " " + Self.describe($0) } ?? ""
            var required: String
            if case .key(let rhsCollection, "@count") = c.rhs, rhsCollection == collection, case .number(let all) = rhs {
                required = c.op == .equal
                    ? "every \(noun.singular)\(what) (\(all))"
                    : "\(c.op.phrase) all \(all) \(all == 1 ? noun.singular : noun.plural)\(what)"
            } else if case .number(let n) = rhs {
                required = "\(c.op.phrase) \(n) \(n == 1 ? noun.singular : noun.plural)\(what)"
            } else {
                required = "\(c.op.phrase) \(rhs.shortDescription) \(noun.plural)\(what)"
            }
            // An element the SUBQUERY's test could not even be evaluated on: say so first.
            if !result, let body, case .list(let elements) = value(of: collection, in: env) {
                for element in elements.prefix(8) {
                    var inner = env
                    inner.variables[variable] = element
                    let nested = evaluate(body, in: inner)
                    if nested.unevaluable { return Outcome(value: result, reason: nested.reason, unevaluable: true) }
                }
            }
            // A SUBQUERY over one element (the usual single extension item) whose own test is
            // about counts: that element's reason is the useful one.
            if let body, Self.isCountComparison(body), case .list(let elements) = value(of: collection, in: env), elements.count == 1 {
                var inner = env
                inner.variables[variable] = elements[0]
                let nested = evaluate(body, in: inner)
                if nested.value == result || !nested.value { return Outcome(value: result, reason: nested.reason, unevaluable: nested.unevaluable) }
            }
            return Outcome(value: result, reason: "rule requires \(required); got \(got)")
        }
        if c.op == .conformsTo || c.op == .utiEquals, case .string(let type) = rhs {
            let phrase = c.op == .conformsTo ? "conforming to \(type)" : "equal to \(type)"
            switch (c.modifier, lhs) {
            case (.any, .list(let values)):
                let listed = values.map(\.shortDescription).joined(separator: ", ")
                return Outcome(value: result, reason: result ? "a type identifier is \(phrase) (among \(listed))" : "no type identifier \(phrase) (among \(listed))")
            default:
                return Outcome(value: result, reason: "\(lhs.shortDescription) is \(result ? "" : "not ")\(phrase)")
            }
        }
        return Outcome(value: result, reason: "\(ActivationPredicate.comparison(c)) is \(result) (\(lhs.shortDescription) vs \(rhs.shortDescription))")
    }

    private static func isCountComparison(_ p: ActivationPredicate) -> Bool {
        switch p {
        case .comparison(let c):
            if case .key(_, "@count") = c.lhs { return true }
            return false
        case .and(let parts), .or(let parts): return parts.contains(where: isCountComparison)
        default: return false
        }
    }

    private static func noun(for collection: ActivationPredicate.Expression) -> (singular: String, plural: String) {
        guard case .key(_, let key) = collection else { return ("element", "elements") }
        switch key {
        case "extensionItems": return ("extension item", "extension items")
        case "attachments": return ("attachment", "attachments")
        case "registeredTypeIdentifiers": return ("type identifier", "type identifiers")
        default: return ("\(key) element", "\(key) elements")
        }
    }

    /// A short phrase for a SUBQUERY's test: `conforming to public.url or public.plain-text`.
    static func describe(_ p: ActivationPredicate) -> String {
        func types(_ p: ActivationPredicate) -> [String]? {
            switch p {
            case .comparison(let c) where c.op == .conformsTo:
                if case .string(let t) = c.rhs { return [t] }
                return nil
            case .or(let parts):
                var all: [String] = []
                for part in parts {
                    guard let t = types(part) else { return nil }
                    all += t
                }
                return all
            default:
                return nil
            }
        }
        if let list = types(p) {
            let joined = list.count <= 1 ? list.joined() : list.dropLast().joined(separator: ", ") + " or " + list.last!
            return "conforming to " + joined
        }
        if case .comparison(let c) = p, c.op == .utiEquals, case .string(let t) = c.rhs { return "of type \(t)" }
        if isCountComparison(p) { return "meeting its inner condition" }
        return "matching (\(p))"
    }
}
