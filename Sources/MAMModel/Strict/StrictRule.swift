/// Who decides that a Strict Mode check found a mistake (docs/STRICT.md, "seen in").
public enum StrictJudge: Sendable, Hashable {
    /// The façade in the app sees the mistake at the call and reports it with the line;
    /// the host keeps it as reported (bounded).
    case app
    /// The façade reports every such call; the host keeps the finding only where the app's
    /// own declarations (its capabilities, `MultiIdentity`, whether it restores its state)
    /// make it a mistake.
    case hostConfirms
    /// The host makes the finding itself from what it saw (a wipe, a write, a share); no app
    /// may report it, or an app could put a finding of the device's in the run.
    case host
}

/// One Strict Mode check as a rule of its own: its name, what it judges and who judges it.
/// A host-judged rule carries its judgment as a pure function (its table tests are in
/// `StrictRuleTests`), so the host's services only gather the facts.
public protocol StrictRule: Sendable {
    static var check: StrictCheck { get }
    static var judge: StrictJudge { get }
    /// What the check found wrong, for reports (SARIF's rule description, the human output).
    static var summary: String { get }
}

/// What the host holds about an app that a `hostConfirms` rule reads.
public struct StrictAppFacts: Sendable, Hashable {
    public var bundle: String
    public var multiIdentity: Bool
    public var restoresState: Bool
    /// MSAL client capabilities the app declares (`protapp`…), as written.
    public var clientCapabilities: [String]

    public init(bundle: String, multiIdentity: Bool, restoresState: Bool, clientCapabilities: [String]) {
        self.bundle = bundle
        self.multiIdentity = multiIdentity
        self.restoresState = restoresState
        self.clientCapabilities = clientCapabilities
    }
}

/// A rule the host confirms: the façade's report stands only where `noFinding` says nothing.
public protocol StrictHostConfirmedRule: StrictRule {
    /// Why the reported call is no mistake for this app (`nil`: it is one).
    static func noFinding(for app: StrictAppFacts) -> String?
}

extension StrictHostConfirmedRule {
    public static var judge: StrictJudge { .hostConfirms }
}

/// Every check's rule, found by its check: the registry reports, the loader and the host
/// read (SwiftLint's pattern — one type per rule, one list of them).
public enum StrictRules {
    public static let all: [any StrictRule.Type] = [
        AccountIdIsUPN.self, EnrollmentDelegateLate.self, EnrollmentRetriedAfterRefusal.self, DeregisterInCallback.self,
        RemediationWithoutProtapp.self, ProcessPolicyInMultiIdentity.self, WipeAnsweredWithFilesLeft.self,
        FileWrittenWithoutThreadIdentity.self, ItemSharedWithoutOwner.self, LocationNeedsAccount.self,
        RestartUnhandledWithState.self, PolicyCachedWithoutObserver.self, ProtectMissingFile.self,
        IdentitySwitchUnhandled.self, ItemIdentityMismatch.self,
    ]

    private static let byCheck: [StrictCheck: any StrictRule.Type] = Dictionary(uniqueKeysWithValues: all.map { ($0.check, $0) })

    /// The rule of `check`; every check has one (`StrictRuleTests`).
    public static func rule(for check: StrictCheck) -> any StrictRule.Type { byCheck[check]! }
}

extension StrictCheck {
    public static let names: Set<String> = Set(allCases.map(\.rawValue))

    /// Its rule in the registry.
    public var rule: any StrictRule.Type { StrictRules.rule(for: self) }
    /// Who decides the finding.
    public var judge: StrictJudge { rule.judge }
    /// The host keeps the finding only when the app made the mistake.
    public var judgedByHost: Bool { judge == .hostConfirms }
    /// The host makes the finding; no app may report it.
    public var madeByHost: Bool { judge == .host }
    /// What the check found wrong, for reports.
    public var summary: String { rule.summary }
}
