import MAMDevice
import MAMDeviceState
import MAMModel

/// `remediationInProgress`: `IntuneMAMComplianceManager remediationInProgressForAccountId:` — a
/// remediation the app asked for this account and whose outcome its compliance delegate has
/// not yet been told (under way, or queued behind another account's).
struct RemediationInProgressStep: StepVerb {
    static let name = "remediationInProgress"
    static let since = "v1.2"
    static let summary = "the app asks whether a compliance remediation is in progress for an account (remediationInProgressForAccountId)"
    static let example = "remediationInProgress: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [.app(), .required("account", .account(unmanaged: false), "the account")]
    static let outcomes: [OutcomeForm] = [.inProgress, .failedBecause]

    var app: String
    var account: Account

    init(_ a: VerbArgumentReader) {
        (app, account) = (a.app(), a.account("account"))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let answer = await run.host.result { [app, account] host in
            try host.tokens.remediationInProgress(try host.app(app), account: StepRun.key(account))
        }
        let parties = "\(app) (\(account))"
        switch answer {
        case .success(let yes):
            return (.inProgress(yes), yes ? "a remediation of \(account) was asked for and its delegate not yet told" : "no remediation of \(account) is asked for", parties)
        case .failure(let e): return (.failed(e.reason), e.message, parties)
        }
    }
}
