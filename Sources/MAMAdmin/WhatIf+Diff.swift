public import MAMModel
public import MAMPolicy

/// What a policy change does to the same personas: every cell whose decision changes, with
/// the policy that decides it before and after and the settings that changed it.
public struct WhatIfChange: Sendable, Hashable, Codable {
    /// How a cell changed, as `--fail-on` names it.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// A data path, paste, save, open or feature that was blocked and is now allowed.
        case opened = "blocked->delivered"
        case closed = "delivered->blocked"
        /// An app that had a policy (or a conflict) and has none now.
        case unprotected = "protected->unprotected"
        case protected = "unprotected->protected"
        /// The policy that applies changed (another policy, a conflict, undetermined).
        case policy = "policy->policy"
        case tokenGranted = "token-blocked->granted"
        case tokenBlocked = "token-granted->blocked"
        /// A decided answer (a token, the policy that applies) now depends on what the persona
        /// does not say, or the reverse.
        case toUnknown = "known->unknown"
        case toKnown = "unknown->known"
        /// A blocked cell blocked for another reason, or an app configuration value changed.
        case other = "other"
    }

    public var kind: Kind
    public var persona: String
    public var app: BundleID
    /// `transfers → com.contoso.notes as personal`, `save → box`, `app protection`, `token`,
    /// `app config → key`.
    public var cell: String
    public var before: String
    public var after: String
    /// The settings whose change made it: the applying policy's changed properties, or its
    /// assignment.
    public var because: [String]

    public init(kind: Kind, persona: String, app: BundleID, cell: String, before: String, after: String, because: [String]) {
        self.kind = kind
        self.persona = persona
        self.app = app
        self.cell = cell
        self.before = before
        self.after = after
        self.because = because
    }

    /// A change's JSON keys, in the order every report and a sharded diff's part writes them
    /// (`schemas/whatif-report.schema.json`, its `changes`).
    enum CodingKeys: String, CodingKey { case after, app, because, before, cell, kind, persona }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(after, forKey: .after)
        try c.encode(app, forKey: .app)
        try c.encode(because, forKey: .because)
        try c.encode(before, forKey: .before)
        try c.encode(cell, forKey: .cell)
        try c.encode(kind, forKey: .kind)
        try c.encode(persona, forKey: .persona)
    }
}

extension WhatIf {
    /// The cells of `old` and `new` (the same personas evaluated under two policy sets) that
    /// differ. `oldPolicies`/`newPolicies` name the settings behind each change.
    public static func diff(_ old: [WhatIfPersonaResult], _ new: [WhatIfPersonaResult],
                            oldPolicies: WhatIfPolicies, newPolicies: WhatIfPolicies) -> [WhatIfChange] {
        var changes: [WhatIfChange] = []
        // The settings a policy's two versions differ in, by title: read once per diff, not per app.
        var settingsMemo: [String: [String]] = [:]
        for (o, n) in zip(old, new) {
            for (a, b) in zip(o.apps, n.apps) {
                // Why, found only for an app whose cells change: most apps of most personas have none.
                var found: [String]?
                func add(_ kind: WhatIfChange.Kind, _ cell: String, _ before: String, _ after: String, because said: [String]? = nil) {
                    if said == nil, found == nil { found = causes(a, b, (o, n), oldPolicies, newPolicies, memo: &settingsMemo) }
                    changes.append(WhatIfChange(kind: kind, persona: o.persona.name, app: a.app, cell: cell, before: before, after: after, because: said ?? found ?? []))
                }
                let (pa, pb) = (a.protection.description, b.protection.description)
                if pa != pb {
                    let had = a.protection.hasPolicy, has = b.protection.hasPolicy
                    let kind: WhatIfChange.Kind = ["undetermined", "not evaluated"].contains(pb) ? .toUnknown : ["undetermined", "not evaluated"].contains(pa) ? .toKnown
                        : had && !has ? .unprotected : !had && has ? .protected : .policy
                    add(kind, "app protection", pa, pb)
                }
                // Decisions, not their wording: an explanation that changes with the same
                // decision (another policy's name in it) is no change.
                let (ta, tb) = (a.token, b.token)
                if ta.word != tb.word {
                    let kind: WhatIfChange.Kind = tb.depends ? .toUnknown : ta.depends ? .toKnown
                        : !ta.decision.isAllowed && tb.decision.isAllowed ? .tokenGranted : ta.decision.isAllowed && !tb.decision.isAllowed ? .tokenBlocked : .other
                    add(kind, "token", ta.word, tb.word, because: conditionalAccessCauses(a, b, (o, n), oldPolicies, newPolicies))
                }
                for key in Set(a.appConfig.keys).union(b.appConfig.keys).sorted() {
                    let (x, y) = (a.appConfig[key].map(o.text) ?? "(none)", b.appConfig[key].map(n.text) ?? "(none)")
                    if x != y { add(.other, "app config → \(key)", x, y) }
                }
                cellChanges(a, b, named: o) { add($0, $1, $2, $3) }
            }
        }
        return changes
    }

    /// The grids' cells of one app whose decision changes: kind, cell, before, after.
    /// A cell's name is `named`'s (the old evaluation's persona: both name the same cells).
    static func cellChanges(_ a: WhatIfAppResult, _ b: WhatIfAppResult, named: WhatIfPersonaResult, _ add: (WhatIfChange.Kind, String, String, String) -> Void) {
        // An app the new policies block at launch (conditional launch: a minimum OS, a
        // jailbreak) moves no data: a path of it that the policy opens opens nothing.
        let launch = PersonaText(PolicyMatrix.Feature.launch.rawValue)
        let blockedAtLaunch = b.features.contains { !$0.isAllowed && $0.to == launch }
        // A short paste: within a policy's character limit, else judged by the level alone.
        func short(_ r: WhatIfAppResult) -> [WhatIfAppResult.Cell] { r.pasteLimit > 0 ? r.clipboardWithinLimit : r.clipboard }
        let limited = a.pasteLimit > 0 || b.pasteLimit > 0
        for (grid, x, y) in [("transfers", a.transfers, b.transfers), ("clipboard", a.clipboard, b.clipboard),
                             ("short paste", limited ? short(a) : [], limited ? short(b) : []), ("save", a.save, b.save),
                             ("open", a.open, b.open), ("features", a.features, b.features)] {
            for (c, d) in zip(x, y) where cell(c) != cell(d) {
                var kind: WhatIfChange.Kind = !c.isAllowed && d.isAllowed ? .opened : c.isAllowed && !d.isAllowed ? .closed : .other
                // A feature of an app blocked at launch opens nothing either; the launch cell itself is the change.
                if kind == .opened, blockedAtLaunch, c.to != launch { kind = .other }
                add(kind, "\(grid) → \(named.text(c.to))", cell(c), cell(d) + (kind == .other && blockedAtLaunch ? " (but the app is blocked at launch)" : ""))
            }
        }
    }

    static func cell(_ v: Verdict) -> String { WhatIfDecision(v).word }
    static func cell(_ c: WhatIfAppResult.Cell) -> String { c.decision.word }

    /// Why an app's cells changed: another policy applies (or none), or the same policy's
    /// settings changed — named by their Graph property.
    static func causes(_ a: WhatIfAppResult, _ b: WhatIfAppResult, _ named: (WhatIfPersonaResult, WhatIfPersonaResult),
                       _ oldPolicies: WhatIfPolicies, _ newPolicies: WhatIfPolicies, memo: inout [String: [String]]) -> [String] {
        func changed(_ title: String) -> [String] {
            if let known = memo[title] { return known }
            guard let p = oldPolicies.protections.first(where: { $0.title == title }), let q = newPolicies.protections.first(where: { $0.title == title }) else { return [] }
            let found = settingsChanged(p, q)
            memo[title] = found
            return found
        }
        guard a.protection == b.protection else {
            let before = a.evaluations.filter { $0.applies == true }.map(\.displayName)
            let after = b.evaluations.filter { $0.applies == true }.map(\.displayName)
            let changed = b.evaluations.filter { e in a.evaluations.first { $0.displayName == e.displayName }.map { named.0.text($0.reason) } != named.1.text(e.reason) }
            return ["assignment: \(before.isEmpty ? "no policy" : before.joined(separator: " + ")) → \(after.isEmpty ? "no policy" : after.joined(separator: " + "))"]
                + changed.prefix(3).map { "\"\($0.displayName)\": \(named.1.text($0.reason))" }
        }
        switch a.protection {
        case .policy(let name): return changed(name)
        case .conflict(let names): return names.flatMap { n in changed(n).map { "\"\(n)\".\($0)" } }
        default: return []
        }
    }

    /// Why an app's token changed for this persona: each conditional access policy whose
    /// evaluation for it changed, with the properties that changed (or added, removed).
    static func conditionalAccessCauses(_ a: WhatIfAppResult, _ b: WhatIfAppResult, _ named: (WhatIfPersonaResult, WhatIfPersonaResult),
                                        _ oldPolicies: WhatIfPolicies, _ newPolicies: WhatIfPolicies) -> [String] {
        var out: [String] = []
        let names = Set(a.conditionalAccess.map(\.displayName)).union(b.conditionalAccess.map(\.displayName))
        for n in names.sorted() {
            let x = a.conditionalAccess.first { $0.displayName == n }, y = b.conditionalAccess.first { $0.displayName == n }
            let (xr, yr) = (x.map { named.0.text($0.reason) }, y.map { named.1.text($0.reason) })
            guard x?.applies != y?.applies || xr != yr else { continue }
            switch (oldPolicies.conditionalAccess.first { $0.name == n }, newPolicies.conditionalAccess.first { $0.name == n }) {
            case (nil, _?): out.append("\"\(n)\": added (\(yr ?? ""))")
            case (_?, nil): out.append("\"\(n)\": removed")
            case (let p?, let q?):
                let changed = propertiesChanged(p, q, skip: ["id", "tenant", "tenantDomains"])
                out.append("\"\(n)\"" + (changed.isEmpty ? ": \(yr ?? "")" : "." + changed.joined(separator: ", .")))
            default: continue
            }
        }
        return out
    }

    /// The Graph properties whose values differ between two versions of a policy.
    public static func settingsChanged(_ p: IosManagedAppProtection, _ q: IosManagedAppProtection) -> [String] {
        // Bookkeeping, and what is derived from another property (named by that one).
        propertiesChanged(p, q, skip: ["id", "version", "createdDateTime", "lastModifiedDateTime", "appSet", "appsListed", "isAssigned", "deployedAppCount",
                                       "exemptSchemeKeys"])
    }

    /// The stored properties whose values differ between `p` and `q`, but `skip`.
    static func propertiesChanged<T>(_ p: T, _ q: T, skip: Set<String>) -> [String] {
        let a = Mirror(reflecting: p).children, b = Mirror(reflecting: q).children
        var out: [String] = []
        for (x, y) in zip(a, b) {
            guard let label = x.label?.trimmingPrefix("_"), !skip.contains(String(label)) else { continue }
            // By value: a set's description depends on its storage, not its members.
            let same = (x.value as? AnyHashable).flatMap { u in (y.value as? AnyHashable).map { u == $0 } } ?? (String(describing: x.value) == String(describing: y.value))
            if !same { out.append(String(label)) }
        }
        return out
    }
}

extension WhatIfAppResult.Protection {
    var hasPolicy: Bool {
        switch self {
        case .policy, .conflict: true
        case .none, .undetermined, .notEvaluated: false
        }
    }
}
