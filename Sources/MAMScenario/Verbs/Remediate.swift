import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `remediate`: the SDK's `remediateComplianceForAccount` after a conditional-access refusal.
struct RemediateStep: StepVerb {
    static let name = "remediate"
    static let since = "v1.1"
    static let summary = "the app remediates compliance for an account (the user may cancel)"
    static let example = "remediate: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [
        .app(), .required("account", .account(unmanaged: false), "the account"),
        .optional("silent", .bool, "no UI: a remediation that needs the user answers interactionRequired"),
        .optional("userCancels", .bool, "the user cancels the UI"),
    ]
    static let outcomes: [OutcomeForm] = [.compliance, .complianceTold, .failedBecause]

    var app: String
    var account: Account
    var silent: Bool
    var userCancels: Bool

    init(app: String, account: Account, silent: Bool, userCancels: Bool) {
        (self.app, self.account, self.silent, self.userCancels) = (app, account, silent, userCancels)
    }

    init(_ a: VerbArgumentReader) {
        self.init(app: a.app(), account: a.account("account"), silent: a.bool("silent", default: false), userCancels: a.bool("userCancels", default: false))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let outcome: Result<RemediationOutcome, DeviceStateError> = await run.host.complete { [app, account, silent, userCancels] host, done in
            host.tokens.remediate(try host.app(app), account: StepRun.key(account), silent: silent, userCancels: userCancels, fromApp: false, done)
        }
        switch outcome {
        case .success(let o):
            let why = o.status == .compliant ? "\(account) is compliant in \(app)" : "\(o.title): \(o.message)"
            return (.compliance(o.status, title: o.title, message: o.message), why, "\(app) (\(account))")
        case .failure(let e): return (.failed(e.reason), e.message, "\(app) (\(account))")
        }
    }
}
