import MAMModel
import MAMPolicy

// The evaluation's JSON report is the results' own encoding (`schemas/whatif-report.schema.json`,
// version `WhatIfReport.schemaVersion`, each persona written between `jsonHead` and `jsonTail`):
// each type says once how it is written, and the table and the HTML read the same values. A
// text that may name the persona is filled with its account as it is encoded
// (`EncodableForPersona`), as a renderer fills it.

extension WhatIfPersonaResult: Encodable {
    enum CodingKeys: String, CodingKey { case name, user, groups, apps }

    /// The persona and its apps, every text filled with its account: an app's results alone
    /// are not `Encodable`, their holes have no account to be filled with.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(persona.name, forKey: .name)
        try c.encode(persona.user.upn, forKey: .user)
        try c.encode(persona.member.named, forKey: .groups)
        try c.encode(apps.map { Named(value: $0, by: self) }, forKey: .apps)
    }
}

/// A part of a persona's results whose texts have holes: written only for a persona.
protocol EncodableForPersona {
    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws
}

/// `value` encoded for `persona`, its holes filled.
struct Named<Value: EncodableForPersona>: Encodable {
    let value: Value
    let persona: WhatIfPersonaResult

    init(value: Value, by persona: WhatIfPersonaResult) {
        self.value = value
        self.persona = persona
    }

    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder, for: persona) }
}

extension PersonaText: EncodableForPersona {
    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws {
        var c = encoder.singleValueContainer()
        try c.encode(persona.text(self))
    }
}

extension Array: EncodableForPersona where Element: EncodableForPersona {
    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws {
        var c = encoder.unkeyedContainer()
        for element in self { try c.encode(Named(value: element, by: persona)) }
    }
}

extension WhatIfAppResult: EncodableForPersona {
    enum CodingKeys: String, CodingKey {
        case app, appProtection, conditionalAccess, appConfig, transfers, clipboard, pasteLimit, clipboardWithinLimit, save, open, features
    }
    enum ProtectionKeys: String, CodingKey { case result, policy, policies, rule, reason, value }
    enum AccessKeys: String, CodingKey { case resource, token, reason, cases, otherwise, value }

    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws {
        func named<T: EncodableForPersona>(_ value: T) -> Named<T> { Named(value: value, by: persona) }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(app, forKey: .app)
        var p = c.nestedContainer(keyedBy: ProtectionKeys.self, forKey: .appProtection)
        switch protection {
        case .policy(let name): try p.encode("applied", forKey: .result); try p.encode(name, forKey: .policy)
        case .none: try p.encode("none", forKey: .result)
        case .conflict(let names):
            try p.encode("conflict", forKey: .result); try p.encode(names, forKey: .policies); try p.encode(WhatIf.conflictRule, forKey: .rule)
        case .undetermined: try p.encode("undetermined", forKey: .result)
        case .notEvaluated(let why): try p.encode("notEvaluated", forKey: .result); try p.encode(why, forKey: .reason)
        }
        try p.encode(named(evaluations), forKey: .value)
        var a = c.nestedContainer(keyedBy: AccessKeys.self, forKey: .conditionalAccess)
        try a.encode(persona.persona.resource, forKey: .resource)
        try a.encode(token.word, forKey: .token)
        try a.encode(named(token.explanation), forKey: .reason)
        if token.depends {
            try a.encode(named(token.cases), forKey: .cases)
            try a.encode(named(token.decision), forKey: .otherwise)
        }
        try a.encode(named(conditionalAccess), forKey: .value)
        var config = c.nestedContainer(keyedBy: ReportJSONEncoder.AnyKey.self, forKey: .appConfig)
        for (k, v) in appConfig.sorted(by: { $0.key < $1.key }) { try config.encode(named(v), forKey: ReportJSONEncoder.AnyKey(k)) }
        try c.encode(Grid(cells: transfers, persona: persona), forKey: .transfers)
        try c.encode(Grid(cells: clipboard, persona: persona), forKey: .clipboard)
        if pasteLimit > 0 {
            try c.encode(pasteLimit, forKey: .pasteLimit)
            try c.encode(Grid(cells: clipboardWithinLimit, persona: persona), forKey: .clipboardWithinLimit)
        }
        try c.encode(Grid(cells: save, persona: persona), forKey: .save)
        try c.encode(Grid(cells: open, persona: persona), forKey: .open)
        try c.encode(Grid(cells: features, persona: persona), forKey: .features)
    }

    /// A grid as the report writes it: the allowed cells by name, the blocked ones each with
    /// its reason.
    struct Grid: Encodable {
        let cells: [Cell]
        let persona: WhatIfPersonaResult

        enum CodingKeys: String, CodingKey { case allowed, blocked }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(cells.filter(\.isAllowed).map { persona.text($0.to) }, forKey: .allowed)
            try c.encode(Named(value: cells.filter { !$0.isAllowed }, by: persona), forKey: .blocked)
        }
    }
}

extension WhatIfAppResult.PolicyEvaluation: EncodableForPersona {
    enum CodingKeys: String, CodingKey {
        case kind = "@odata.type", id, displayName, state, policyApplies, analysisReasons, dependsOn, reason
    }

    /// As Graph's `whatIfAnalysisResult`: a conditional access policy with its state and a
    /// Boolean `policyApplies`; an app protection policy's `policyApplies` null when undetermined.
    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind.rawValue, forKey: .kind)
        if !id.isEmpty { try c.encode(id, forKey: .id) }
        try c.encode(displayName, forKey: .displayName)
        if kind == .conditionalAccess {
            try c.encode(disabled ? "disabled" : reportOnly ? "enabledForReportingButNotEnforced" : "enabled", forKey: .state)
            try c.encode(applies ?? false, forKey: .policyApplies)
        } else if let applies {
            try c.encode(applies, forKey: .policyApplies)
        } else {
            try c.encodeNil(forKey: .policyApplies)
        }
        try c.encode(analysisReasons.joined(separator: ","), forKey: .analysisReasons)
        if !dependsOn.isEmpty { try c.encode(Named(value: dependsOn, by: persona), forKey: .dependsOn) }
        try c.encode(Named(value: reason, by: persona), forKey: .reason)
    }
}

extension WhatIfAppResult.Cell: EncodableForPersona {
    enum CodingKeys: String, CodingKey { case to, decision, reason }

    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(persona.text(to), forKey: .to)
        try c.encode(decision.word, forKey: .decision)
        try c.encode(persona.text(decision.explanation), forKey: .reason)
    }
}

extension WhatIfDecision: EncodableForPersona {
    enum CodingKeys: String, CodingKey { case token, reason }

    /// A decision as the token's JSON says it: the word (`allowed`, a reason code) and why.
    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(word, forKey: .token)
        try c.encode(persona.text(explanation), forKey: .reason)
    }
}

extension WhatIfToken.Case: EncodableForPersona {
    enum CodingKeys: String, CodingKey { case condition = "if", token, reason }

    func encode(to encoder: any Encoder, for persona: WhatIfPersonaResult) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(persona.text(condition), forKey: .condition)
        try c.encode(decision.word, forKey: .token)
        try c.encode(persona.text(decision.explanation), forKey: .reason)
    }
}
