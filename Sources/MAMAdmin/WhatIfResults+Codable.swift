import MAMModel
import MAMPolicy

/// The evaluation's JSON report is the results' own encoding (`schemas/whatif-report.schema.json`,
/// version `WhatIfReportDocument.schemaVersion`): each type says once how it is written, and
/// the table and the HTML read the same values. Every text is named for the persona as it is
/// encoded, as it is when a renderer reads it.
public struct WhatIfReportDocument: Encodable {
    public static let schemaVersion = 1
    public var personas: [WhatIfPersonaResult]

    public init(personas: [WhatIfPersonaResult]) { self.personas = personas }

    enum CodingKeys: String, CodingKey { case schemaVersion, personas }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.schemaVersion, forKey: .schemaVersion)
        try c.encode(personas, forKey: .personas)
    }
}

extension WhatIfPersonaResult: Encodable {
    enum CodingKeys: String, CodingKey { case name, user, groups, apps }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(persona.name, forKey: .name)
        try c.encode(persona.user.upn, forKey: .user)
        try c.encode(persona.member.named, forKey: .groups)
        try c.encode(apps, forKey: .apps)
    }
}

extension WhatIfAppResult: Encodable {
    enum CodingKeys: String, CodingKey {
        case app, appProtection, conditionalAccess, appConfig, transfers, clipboard, pasteLimit, clipboardWithinLimit, save, open, features
    }
    enum ProtectionKeys: String, CodingKey { case result, policy, policies, rule, reason, value }
    enum AccessKeys: String, CodingKey { case resource, token, reason, cases, otherwise, value }

    public func encode(to encoder: any Encoder) throws {
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
        try p.encode(evaluations, forKey: .value)
        var a = c.nestedContainer(keyedBy: AccessKeys.self, forKey: .conditionalAccess)
        try a.encode(resource, forKey: .resource)
        let token = self.token
        try a.encode(token.word, forKey: .token)
        try a.encode(token.explanation, forKey: .reason)
        if token.depends {
            try a.encode(token.cases, forKey: .cases)
            try a.encode(WhatIfToken.Said(token.decision), forKey: .otherwise)
        }
        try a.encode(conditionalAccess, forKey: .value)
        var config = c.nestedContainer(keyedBy: ReportJSONEncoder.AnyKey.self, forKey: .appConfig)
        for (k, v) in appConfig.sorted(by: { $0.key < $1.key }) { try config.encode(v, forKey: ReportJSONEncoder.AnyKey(k)) }
        try c.encode(transfers, forKey: .transfers)
        try c.encode(clipboard, forKey: .clipboard)
        if pasteLimit > 0 {
            try c.encode(pasteLimit, forKey: .pasteLimit)
            try c.encode(clipboardWithinLimit, forKey: .clipboardWithinLimit)
        }
        try c.encode(save, forKey: .save)
        try c.encode(open, forKey: .open)
        try c.encode(features, forKey: .features)
    }
}

extension WhatIfAppResult.PolicyEvaluation: Encodable {
    enum CodingKeys: String, CodingKey {
        case kind = "@odata.type", id, displayName, state, policyApplies, analysisReasons, dependsOn, reason
    }

    /// As Graph's `whatIfAnalysisResult`: a conditional access policy with its state and a
    /// Boolean `policyApplies`; an app protection policy's `policyApplies` null when undetermined.
    public func encode(to encoder: any Encoder) throws {
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
        if !dependsOn.isEmpty { try c.encode(dependsOn, forKey: .dependsOn) }
        try c.encode(reason, forKey: .reason)
    }
}

extension WhatIfAppResult.Cells: Encodable {
    enum CodingKeys: String, CodingKey { case allowed, blocked }

    /// The allowed cells by name, the blocked ones each with its reason.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(filter(\.isAllowed).map(\.to), forKey: .allowed)
        try c.encode(filter { !$0.isAllowed }, forKey: .blocked)
    }
}

extension WhatIfAppResult.Cell: Encodable {
    enum CodingKeys: String, CodingKey { case to, decision, reason }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let verdict = self.verdict
        try c.encode(to, forKey: .to)
        try c.encode(WhatIfReport.verdict(verdict), forKey: .decision)
        try c.encode(verdict.explanation, forKey: .reason)
    }
}

extension WhatIfToken {
    /// A decision as the token's JSON says it: the word (`allowed`, a reason code) and why.
    struct Said: Encodable {
        let decision: Verdict
        init(_ decision: Verdict) { self.decision = decision }

        enum CodingKeys: String, CodingKey { case token, reason }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(WhatIfReport.verdict(decision), forKey: .token)
            try c.encode(decision.explanation, forKey: .reason)
        }
    }
}

extension WhatIfToken.Case: Encodable {
    enum CodingKeys: String, CodingKey { case condition = "if", token, reason }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(condition, forKey: .condition)
        try c.encode(WhatIfReport.verdict(decision), forKey: .token)
        try c.encode(decision.explanation, forKey: .reason)
    }
}
