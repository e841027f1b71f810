public import Foundation
import MAMActivation
public import MAMModel
public import MAMPolicy
import MAMDeclarations

/// One step of a scenario: a verb with its typed arguments and, optionally, what must
/// happen. Without an expectation the outcome is recorded, not checked.
public struct Step: Sendable, Hashable {
    /// Position in `steps:`, from 0 (as in the key path `steps[3]`).
    public var index: Int
    /// The line the step starts on.
    public var line: Int
    public var name: String?
    public var arguments: StepArguments
    public var expect: ExpectedOutcome?

    public init(index: Int, line: Int, name: String?, arguments: StepArguments, expect: ExpectedOutcome?) {
        self.index = index
        self.line = line
        self.name = name
        self.arguments = arguments
        self.expect = expect
    }

    public var verb: Verb { arguments.verb }
    /// Same as `arguments`.
    public var args: StepArguments { arguments }
}

/// The item of a `share` or `shareTargets` step.
public struct ScenarioItem: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case text(String)
        case data([UInt8])
        /// Resolved against the scenario's folder; checked to exist.
        case file(URL)
    }

    /// The type identifier (UTI), given or inferred from the file extension.
    public var type: String
    public var content: Content

    public init(type: String, content: Content) {
        self.type = type
        self.content = content
    }

    /// The payload bytes (reading the file for `.file`).
    public func bytes() throws -> [UInt8] {
        switch content {
        case .text(let s): return Array(s.utf8)
        case .data(let d): return d
        case .file(let url): return Array(try InputFile.contents(of: url))
        }
    }
}

/// What a step must produce (SCENARIOS.md, column "outcomes"). Reason codes are RULES.md §11's.
public enum ExpectedOutcome: Sendable, Hashable, CustomStringConvertible {
    case ok
    case success
    case delivered
    case allowed
    case canceled
    case notAllowed
    /// Bare `failed`: any failure.
    case failed
    case blocked(Reason)
    /// `{failed: REASON}`.
    case failedBecause(Reason)
    /// `{targets: [ids]}`: order-insensitive.
    case targets([String])
    case pasted(String)
    case value(String)
    /// `{error: -25300}`: an OSStatus.
    case error(Int)
    case shown(String)
    /// `{text: "..."}`: what `readFile` read.
    case text(String)
    /// `{owner: X}`: the owner `protectionInfo` reports (`Account(upn: "")` = unowned).
    case owner(Account)
    /// `none`: nothing to report (an unprotected file, a configuration key with no value).
    case none
    /// `{value: X}` of `appConfig`, with `conflict:` when given.
    case configValue(String, conflict: Bool?)
    /// `{values: [..]}` of `appConfig` (order-insensitive), with `conflict:` when given.
    case configValues([String], conflict: Bool?)
    /// `{config: {...}}` of `managedConfig`: the property list as canonical JSON.
    case config(String)
    /// `{fullData: [{KEY: VALUE, ...}, ...]}` of `appConfigData`: the dictionaries, in any order.
    case fullData([[String: String]])
    /// `{password: "..."}` of `managedSecret`.
    case password(String)
    /// `{certificate: {...}}` / `{identity: {...}}`: the subject and SHA-256 fields given.
    case certificate(subject: String?, sha256: String?, identity: Bool)
    /// `{ids: [..]}`, order-insensitive.
    case ids([String])
    /// `{signature: verified}`: a signature that verifies with the identity's certificate.
    case signatureVerified
    /// `{error: invalid-identifier}`: a reason code as an error.
    case errorCode(Reason)
    /// `{token: ok}`: a token was issued.
    case token
    /// `{token: {CLAIM: VALUE, …}}`: a token was issued with these claims (a list claim
    /// compares as a set; claims not named are not checked).
    case tokenClaims([String: [String]])
    /// `{openedIn: APP}`: the app of the fleet a link reached (`nil`, written `ios`: where iOS
    /// sends it, outside the fleet).
    case openedIn(String?)
    /// `{blocked: REASON, homeAccountId: OID.TID}`: refused, and MSAL's error names this
    /// homeAccountId (the account to remediate).
    case blockedHome(Reason, homeAccountID: String)
    /// `{compliance: STATUS}` of `remediate`.
    case compliance(ComplianceStatus)
    /// `{compliance: STATUS, title?: "...", message?: "..."}`: the status, and words the
    /// delegate's error title and message contain.
    case complianceTold(ComplianceStatus, title: String?, message: String?)
    /// `{remediation: started|queued|dropped}`: how the SDK took a `remediate` that does not wait.
    case remediation(String)
    /// `{inProgress: true|false}` of `remediationInProgress`.
    case inProgress(Bool)
    /// `{statuses: [{account: A, compliance: S}, ...]}`: what the compliance delegate was told, in order.
    case statuses([ToldStatus])
    /// `{accounts: [..]}`: the accounts a window shows (`""` the unmanaged identity), in any order.
    case accounts([Account])
    /// `{enrollment: STATUS}`: the status the enrollment delegate received (SCENARIOS.md v1.3).
    case enrollment(EnrollmentStatus)
    /// `pending`: asked, its outcome to come later (`wait: false`).
    case pending

    public var description: String {
        switch self {
        case .ok: "ok"
        case .success: "success"
        case .delivered: "delivered"
        case .allowed: "allowed"
        case .canceled: "canceled"
        case .notAllowed: "notAllowed"
        case .failed: "failed"
        case .blocked(let r): "{blocked: \(r)}"
        case .failedBecause(let r): "{failed: \(r)}"
        case .targets(let ids): "{targets: [\(ids.joined(separator: ", "))]}"
        case .pasted(let t): "{pasted: \"\(t)\"}"
        case .value(let v): "{value: \"\(v)\"}"
        case .error(let n): "{error: \(n)}"
        case .shown(let t): "{shown: \"\(t)\"}"
        case .text(let t): "{text: \"\(t)\"}"
        case .owner(let a): "{owner: \"\(a.description)\"}"
        case .none: "none"
        case .configValue(let v, let c): "{value: \"\(v)\"\(c.map { ", conflict: \($0)" } ?? "")}"
        case .configValues(let v, let c): "{values: [\(v.joined(separator: ", "))]\(c.map { ", conflict: \($0)" } ?? "")}"
        case .config(let json): "{config: \(json)}"
        case .fullData(let d):
            "{fullData: [\(d.map { "{" + $0.sorted { $0.key < $1.key }.map { "\($0.key): \"\($0.value)\"" }.joined(separator: ", ") + "}" }.joined(separator: ", "))]}"
        case .password(let p): "{password: \"\(p)\"}"
        case .certificate(let subject, let sha, let identity):
            "{\(identity ? "identity" : "certificate"): {\([subject.map { "subject: \"\($0)\"" }, sha.map { "sha256: \($0)" }].compactMap { $0 }.joined(separator: ", "))}}"
        case .ids(let ids): "{ids: [\(ids.joined(separator: ", "))]}"
        case .signatureVerified: "{signature: verified}"
        case .errorCode(let r): "{error: \(r)}"
        case .token: "{token: ok}"
        case .tokenClaims(let c):
            "{token: {\(c.sorted { $0.key < $1.key }.map { "\($0.key): " + ($0.value.count == 1 ? "\"\($0.value[0])\"" : "[\($0.value.joined(separator: ", "))]") }.joined(separator: ", "))}}"
        case .blockedHome(let r, let h): "{blocked: \(r), homeAccountId: \"\(h)\"}"
        case .openedIn(let app): "{openedIn: \(app ?? "ios")}"
        case .compliance(let s): "{compliance: \(s.rawValue)}"
        case .complianceTold(let s, let title, let message):
            "{compliance: \(s.rawValue)\(title.map { ", title: \"\($0)\"" } ?? "")\(message.map { ", message: \"\($0)\"" } ?? "")}"
        case .remediation(let w): "{remediation: \(w)}"
        case .inProgress(let b): "{inProgress: \(b)}"
        case .accounts(let list): "{accounts: [\(list.map { $0.isEmpty ? "\"\"" : $0.description }.joined(separator: ", "))]}"
        case .enrollment(let s): "{enrollment: \(s.name)}"
        case .pending: "pending"
        case .statuses(let told): "{statuses: [\(told.map { "{account: \($0.account), compliance: \($0.status.rawValue)}" }.joined(separator: ", "))]}"
        }
    }
}

/// One status the compliance delegate was told: for which account.
public struct ToldStatus: Sendable, Hashable {
    public var account: Account
    public var status: ComplianceStatus

    public init(account: Account, status: ComplianceStatus) {
        (self.account, self.status) = (account, status)
    }
}
