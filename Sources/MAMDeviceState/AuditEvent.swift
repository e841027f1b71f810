import Foundation
public import MAMModel
public import MAMPolicy

/// What an audit line records. The raw value is the line's `verb` in the store and in
/// exports, unchanged from the logs written before it was typed, so older exports read the same.
public enum AuditVerb: String, Sendable, Hashable, CaseIterable, Codable {
    // Data that leaves or enters an app (RULES.md §2–§4); the report's grids read these.
    case share, copy, paste, save, open, print, notify, screenCapture, openURL
    case keychainSet, keychainGet, managedSecret, signWithIdentity
    // A feature switch an app read (isContactSyncAllowed…): the destination names the setting.
    case policyQuery = "policy_query"
    // Accounts and identities (§5, §6).
    case signIn, signOut, wipe, switchIdentity, allowedAccountsChanged
    // Conditional launch at a launch or a resume, and going to the background (§8).
    case launch, resume, pause
    // Tokens and compliance (§10).
    case acquireToken, remediate, diagnostic
    // The enrollment lifecycle: an app's enrollment, check-ins and unenrollment (SCENARIOS v1.3).
    case enroll, unenroll, checkIn
    // What the administrator changed on the device; the source is `device`.
    case setAppConfig, applyDeclarations, removeDeclaration, setConditionalAccess, setNetwork, updateOS, setDevice, manageApp
    case setLicense, serviceFault
    // Service calls that decide nothing when they succeed, recorded when refused.
    case managedConfig, managedConfigCall = "managed_config"
    case writeFile = "write_file", readFile = "read_file", fileOwner = "file_owner", protect, unprotect
    case protectionInfo = "protection_info", shareTargets = "share_targets", appConfig = "app_config"
    case managedSecretIds = "managed_secret_ids", acquireTokenCall = "acquire_token", remediateCompliance = "remediate_compliance"
    case remediationInProgress = "remediation_in_progress"
    // The host about a child: a protocol violation, and refusals past its audit budget.
    case hostile, auditCoalesced = "audit-coalesced"

    /// Whether the line's source is an app of the fleet (not the device acting for the
    /// administrator).
    public var sourceIsApp: Bool {
        switch self {
        case .setAppConfig, .applyDeclarations, .removeDeclaration, .setConditionalAccess, .setNetwork, .updateOS, .setDevice, .manageApp,
             .setLicense, .serviceFault: false
        default: true
        }
    }

    /// Whether the line's destination is an app of the fleet (a share's receiver); elsewhere
    /// it is a location, a keychain group, a URL or nothing.
    public var destinationIsApp: Bool { self == .share }
}

/// What the device decided or saw, as an audit line says it. The raw value is the line's
/// `decision` in the store and in exports.
public enum AuditDecision: String, Sendable, Hashable, CaseIterable, Codable {
    /// Done as asked: allowed, delivered (a share the receiver took), ok (an administrator's
    /// change, a pause), success (an identity switch).
    case allowed, delivered, ok, success
    /// Refused by a rule, or by the user or the app (an identity switch).
    case blocked, canceled, notAllowed
    /// Could not be done.
    case failed
    /// A child broke the protocol: cut off, or its frame refused; `hostile`: refusals coalesced.
    case disconnected, refused, hostile
    /// A remediation that would not end (a diagnostic).
    case remediationLoop = "remediation-loop"
    /// What a remediation came to, as the compliance delegate is told (`ComplianceStatus`).
    case compliant, notCompliant, networkFailure, serviceFailure, userCancelled, interactionRequired

    /// The one way a verdict is audited: allowed (or `allowedAs`, e.g. `delivered` for a share
    /// the receiver took), blocked by a rule, or failed — a device that could not do it (its
    /// store, its storage) is never written down as a rule's refusal.
    public init(_ v: Verdict, allowedAs: AuditDecision = .allowed) {
        self = switch v {
        case .allowed: allowedAs
        case .blocked: .blocked
        case .failed: .failed
        }
    }

    public init(_ r: IdentitySwitchResult) {
        self = switch r {
        case .success: .success
        case .canceled: .canceled
        case .notAllowed: .notAllowed
        case .failed: .failed
        }
    }

    public init(_ s: ComplianceStatus) {
        self = switch s {
        case .compliant: .compliant
        case .notCompliant: .notCompliant
        case .networkFailure: .networkFailure
        case .serviceFailure: .serviceFailure
        case .userCancelled: .userCancelled
        case .interactionRequired: .interactionRequired
        }
    }

    /// Done as asked.
    public var isDone: Bool { self == .allowed || self == .delivered || self == .ok || self == .success || self == .compliant }
    /// Refused by a rule (the others that are not done failed).
    public var isBlocked: Bool { self == .blocked }
}

/// One line of the device's audit log: who did what to whose data, and what the device
/// decided, with the reason code and the sentence (RULES.md §5 "every mismatch is logged",
/// §11). Stored in SQLite and exported as JSON Lines.
public struct AuditEvent: Sendable, Hashable, Codable {
    /// Simulated time of the event.
    public var time: Instant
    public var scenario: String
    /// The scenario step (its index or name); `""` outside a scenario.
    public var step: String
    public var verb: AuditVerb
    public var sourceApp: String
    public var sourceIdentity: String
    public var destinationApp: String
    public var destinationIdentity: String
    /// The data's owner; `""` = unowned.
    public var owner: String
    public var decision: AuditDecision
    /// The reason code; `nil` when done as asked.
    public var reason: Reason?
    public var explanation: String

    public init(time: Instant, scenario: String = "", step: String = "", verb: AuditVerb,
                sourceApp: String = "", sourceIdentity: String = "", destinationApp: String = "",
                destinationIdentity: String = "", owner: String = "", decision: AuditDecision, reason: Reason? = nil,
                explanation: String) {
        self.time = time
        self.scenario = scenario
        self.step = step
        self.verb = verb
        self.sourceApp = sourceApp
        self.sourceIdentity = sourceIdentity
        self.destinationApp = destinationApp
        self.destinationIdentity = destinationIdentity
        self.owner = owner
        self.decision = decision
        self.reason = reason
        self.explanation = explanation
    }

    /// An event for an enforcer `Verdict`: `allowed`/`blocked`, its reason and sentence.
    public init(time: Instant, scenario: String = "", step: String = "", verb: AuditVerb,
                sourceApp: String = "", sourceIdentity: String = "", destinationApp: String = "",
                destinationIdentity: String = "", owner: String = "", decision: Verdict) {
        self.init(time: time, scenario: scenario, step: step, verb: verb, sourceApp: sourceApp,
                  sourceIdentity: sourceIdentity, destinationApp: destinationApp,
                  destinationIdentity: destinationIdentity, owner: owner,
                  decision: AuditDecision(decision), reason: decision.blockedBy, explanation: decision.explanation)
    }

    /// A line read back from the store or an export, its fields as written.
    public init(time: Instant, scenario: String, step: String, verb: String, sourceApp: String, sourceIdentity: String,
                destinationApp: String, destinationIdentity: String, owner: String, decision: String, reason: String,
                explanation: String) throws(AuditLineError) {
        guard let v = AuditVerb(rawValue: verb) else { throw .unknown("verb", verb) }
        guard let d = AuditDecision(rawValue: decision) else { throw .unknown("decision", decision) }
        var r: Reason?
        if !reason.isEmpty {
            guard let known = Reason(rawValue: reason) else { throw .unknown("reason", reason) }
            r = known
        }
        self.init(time: time, scenario: scenario, step: step, verb: v, sourceApp: sourceApp, sourceIdentity: sourceIdentity,
                  destinationApp: destinationApp, destinationIdentity: destinationIdentity, owner: owner, decision: d,
                  reason: r, explanation: explanation)
    }

    enum CodingKeys: String, CodingKey {
        case time, scenario, step, verb, sourceApp, sourceIdentity, destinationApp, destinationIdentity
        case owner, decision, reason, explanation
    }

    /// `time` travels as ISO-8601 text (`2026-01-01T09:00:00Z`), the way scenario files write it.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time.description, forKey: .time)
        try c.encode(scenario, forKey: .scenario)
        try c.encode(step, forKey: .step)
        try c.encode(verb.rawValue, forKey: .verb)
        try c.encode(sourceApp, forKey: .sourceApp)
        try c.encode(sourceIdentity, forKey: .sourceIdentity)
        try c.encode(destinationApp, forKey: .destinationApp)
        try c.encode(destinationIdentity, forKey: .destinationIdentity)
        try c.encode(owner, forKey: .owner)
        try c.encode(decision.rawValue, forKey: .decision)
        try c.encode(reason?.rawValue ?? "", forKey: .reason)
        try c.encode(explanation, forKey: .explanation)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .time)
        guard let time = Instant(iso8601: text) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: c, debugDescription: "\"\(text)\" is not an ISO-8601 date-time")
        }
        do {
            try self.init(
                time: time, scenario: try c.decode(String.self, forKey: .scenario), step: try c.decode(String.self, forKey: .step),
                verb: try c.decode(String.self, forKey: .verb), sourceApp: try c.decode(String.self, forKey: .sourceApp),
                sourceIdentity: try c.decode(String.self, forKey: .sourceIdentity),
                destinationApp: try c.decode(String.self, forKey: .destinationApp),
                destinationIdentity: try c.decode(String.self, forKey: .destinationIdentity),
                owner: try c.decode(String.self, forKey: .owner), decision: try c.decode(String.self, forKey: .decision),
                reason: try c.decode(String.self, forKey: .reason), explanation: try c.decode(String.self, forKey: .explanation))
        } catch let error as AuditLineError {
            let key: CodingKeys = switch error { case .unknown(let field, _): field == "verb" ? .verb : field == "decision" ? .decision : .reason }
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.description)
        }
    }
}

/// An audit line whose fields this version does not know (a log written by a newer mamsim).
public enum AuditLineError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknown(String, String)

    public var description: String {
        switch self {
        case .unknown(let field, let value): "\"\(value)\" is not an audit \(field) this mamsim knows (a log from a newer version?)"
        }
    }
}
