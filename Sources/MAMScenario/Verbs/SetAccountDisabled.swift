import MAMDevice
import MAMDeviceState
import MAMModel

/// `setAccountDisabled`: the administrator disables an account in Entra (or enables it again).
/// Conditional launch's last check (`appActionIfUnableToAuthenticateUser`) reads it at the
/// app's next launch, resume or switch to that account (RULES.md §8).
struct SetAccountDisabledStep: StepVerb {
    static let name = "setAccountDisabled"
    static let since = "v1.2"
    static let summary = "the account is disabled in Entra (or enabled again); conditional launch notices at the next launch, resume or switch"
    static let example = "setAccountDisabled: {account: alice@contoso.com, disabled: true}"
    static let arguments: [VerbArgument] = [
        .required("account", .account(unmanaged: true), "the account"),
        .required("disabled", .bool, "true: disabled; false: enabled again"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .failedBecause]

    var account: Account
    var disabled: Bool

    init(_ a: VerbArgumentReader) { (account, disabled) = (a.account("account"), a.bool("disabled", default: true)) }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [account, disabled] host in try host.admin.setAccountDisabled(StepRun.key(account), disabled: disabled) }) {
        case .success(let why): return (.ok, why, "\(account)")
        case .failure(let e): return (.failed(e.reason), e.message, "\(account)")
        }
    }
}
