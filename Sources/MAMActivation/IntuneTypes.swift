/// Whether a rule accepts managed data as Intune presents it: attachments whose types are all
/// `com.microsoft.intune.mam.`-prefixed. Intune hides from the share sheet every extension whose
/// rule does not, when the data being shared is managed (seed 000, "Update existing Share and
/// Action extensions").
///
/// The answer is found by trying managed shares rather than by reading the rule's text, so it
/// holds for both forms and for any rule shape: one to three attachments of each known type's
/// twin (each declared type, each type the rule names), alone or as a file URL.
public func acceptsIntuneTypes(_ rule: ActivationRule, types: UTIRegistry = .system) -> Bool {
    intuneWitness(for: rule, types: types) != nil
}

/// A managed share (only prefixed types) the rule activates on, or `nil` when there is none
/// among the probes `acceptsIntuneTypes` tries.
public func intuneWitness(for rule: ActivationRule, types: UTIRegistry = .system) -> ShareInput? {
    var candidates: [String] = []
    var seen: Set<String> = []
    for type in rule.asPredicate.mentionedTypes + types.identifiers.sorted() {
        let base = UTIRegistry.isIntuneType(type) ? String(type.dropFirst(UTIRegistry.intunePrefix.count)) : type
        if seen.insert(base.lowercased()).inserted { candidates.append(base) }
    }
    for base in candidates {
        let variants = [[base], [base, "public.file-url"]]
        for variant in variants {
            let attachment = Attachment(variant).intuneTwin
            for count in 1...3 {
                let share = ShareInput(attachments: Array(repeating: attachment, count: count))
                if rule.evaluate(share, types: types).isActivated { return share }
            }
        }
    }
    return nil
}

extension ActivationPredicate {
    /// The rule with every type T it names also accepted as `com.microsoft.intune.mam.T`, the
    /// way Microsoft's example does it: in a disjunction, the twins are appended to its end
    /// (`… "public.image" || … "com.microsoft.intune.mam.public.image"`); a comparison outside
    /// any disjunction becomes `(c || twin)`. Idempotent: a twin already present is not added again.
    public var addingIntuneTwins: ActivationPredicate {
        switch self {
        case .constant: return self
        case .not(let inner): return .not(inner.addingIntuneTwins)
        case .and(let parts): return .allOf(parts.map(\.addingIntuneTwins))
        case .or(let parts):
            // A comparison, or a subquery-free conjunction such as `url AND NOT file-url`, is
            // an alternative of its own: its twin is the same alternative over the prefixed
            // types, appended unless the disjunction already has it.
            var result = parts.map { part -> ActivationPredicate in
                if case .comparison(let c) = part { return .comparison(c.rewritingSubqueries) }
                if part.wholeTwin != nil { return part }
                return part.addingIntuneTwins
            }
            for part in result {
                if let twin = part.wholeTwin, !result.contains(twin) { result.append(twin) }
            }
            return .or(result)
        case .comparison(let c):
            let rewritten = c.rewritingSubqueries
            guard let twin = rewritten.intuneTwin else { return .comparison(rewritten) }
            return .or([.comparison(rewritten), .comparison(twin)])
        }
    }
}

extension ActivationPredicate {
    /// This alternative with every type prefixed, for a comparison or a conjunction/negation
    /// of comparisons without subqueries; `nil` for anything else or when no type changes.
    var wholeTwin: ActivationPredicate? {
        func twin(_ p: ActivationPredicate) -> ActivationPredicate? {
            switch p {
            case .constant: return p
            case .comparison(let c):
                if c.lhs.hasSubquery || c.rhs.hasSubquery { return nil }
                return .comparison(c.intuneTwin ?? c)
            case .not(let inner): return twin(inner).map { .not($0) }
            case .and(let parts):
                let twins = parts.compactMap(twin)
                return twins.count == parts.count ? .and(twins) : nil
            case .or: return nil
            }
        }
        guard let t = twin(self), t != self else { return nil }
        return t
    }
}

extension ActivationPredicate.Expression {
    var hasSubquery: Bool {
        switch self {
        case .subquery: return true
        case .key(let base, _): return base.hasSubquery
        default: return false
        }
    }
}

extension ActivationPredicate.Comparison {
    /// `… UTI-CONFORMS-TO "com.microsoft.intune.mam.T"` for `… UTI-CONFORMS-TO "T"` (also UTI-EQUALS);
    /// `nil` when the comparison names no type or already names a prefixed one.
    var intuneTwin: Self? {
        guard op == .conformsTo || op == .utiEquals, case .string(let type) = rhs, !UTIRegistry.isIntuneType(type) else { return nil }
        var twin = self
        twin.rhs = .string(UTIRegistry.intuneTwin(of: type))
        return twin
    }

    var rewritingSubqueries: Self {
        var copy = self
        copy.lhs = lhs.addingIntuneTwins
        copy.rhs = rhs.addingIntuneTwins
        return copy
    }
}

extension ActivationPredicate.Expression {
    var addingIntuneTwins: Self {
        switch self {
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection: collection.addingIntuneTwins, variable: variable, predicate: predicate.addingIntuneTwins)
        case .key(let base, let key):
            return .key(base.addingIntuneTwins, key)
        default:
            return self
        }
    }
}
