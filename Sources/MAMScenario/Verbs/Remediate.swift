import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `remediate`: the SDK's `remediateComplianceForAccount` after a conditional-access refusal.
/// An app's remediations run one at a time in the order asked; a call for an account already
/// asked for and not yet answered is dropped, another account's is queued
/// (`IntuneMAMComplianceManager.h`). By default the step waits for what the compliance
/// delegate is told; with `wait: false` it returns as the SDK's call does, the SDK's UI left in
/// front of the user until `finishRemediation`.
struct RemediateStep: StepVerb {
    static let name = "remediate"
    static let since = "v1.1"
    static let summary = "the app remediates compliance for an account (the user may cancel)"
    static let example = "remediate: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [
        .app(), .required("account", .account(unmanaged: false), "the account"),
        .optional("silent", .bool, "no UI: a remediation that needs the user answers interactionRequired"),
        .optional("userCancels", .bool, "the user cancels the UI"),
        .optional("wait", .bool, "false: return as the SDK's call does, the remediation under way until finishRemediation (v1.2)"),
    ]
    static let outcomes: [OutcomeForm] = [.compliance, .complianceTold, .remediation, .failedBecause]

    var app: String
    var account: Account
    var silent: Bool
    var userCancels: Bool
    var wait: Bool

    init(app: String, account: Account, silent: Bool, userCancels: Bool, wait: Bool = true) {
        (self.app, self.account, self.silent, self.userCancels, self.wait) = (app, account, silent, userCancels, wait)
    }

    init(_ a: VerbArgumentReader) {
        self.init(app: a.app(), account: a.account("account"), silent: a.bool("silent", default: false),
                  userCancels: a.bool("userCancels", default: false), wait: a.bool("wait", default: true))
    }

    /// What the step saw: how the SDK took the call, or what the delegate was told.
    private enum Answer: Sendable {
        case took(RemediationStart)
        case told(Result<RemediationOutcome, DeviceStateError>)
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let answer: Result<Answer, DeviceStateError> = await run.host.complete { [app, account, silent, userCancels, wait] host, done in
            let start = try host.tokens.remediate(try host.app(app), account: StepRun.key(account), silent: silent, userCancels: userCancels,
                                                  fromApp: false, heldForUser: !wait) { told in if wait { done(.success(.told(told))) } }
            // A step that waits cannot wait for a remediation that itself waits for the user.
            if !wait || start == .dropped || start == .queued(behindUser: true) { done(.success(.took(start))) }
        }
        let parties = "\(app) (\(account))"
        let outcome: Result<RemediationOutcome, DeviceStateError>
        switch answer {
        case .success(.took(let start)):
            let why = switch start {
            case .started: "the SDK took the call: the remediation of \(account) is under way"
            case .queued(let behindUser): "queued behind another account's remediation" + (behindUser ? ", which waits for the user (finishRemediation)" : "")
            case .dropped: "a remediation of \(account) was already asked for and not yet answered: the call has no effect"
            }
            return (.remediation(start.word), why, parties)
        case .success(.told(let told)): outcome = told
        case .failure(let e): outcome = .failure(e)
        }
        switch outcome {
        case .success(let o):
            let why = o.status == .compliant ? "\(account) is compliant in \(app)" : "\(o.title): \(o.message)"
            return (.compliance(o.status, title: o.title, message: o.message), why, parties)
        case .failure(let e): return (.failed(e.reason), e.message, parties)
        }
    }
}
