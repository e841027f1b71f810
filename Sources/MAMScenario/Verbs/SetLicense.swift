import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `setLicense`: the administrator gives or takes an account's Intune licence; the service
/// sees it after the tenant's propagation delay (`device.service.propagation`).
struct SetLicenseStep: StepVerb {
    static let name = "setLicense"
    static let since = "v1.3"
    static let summary = "the account gets or loses its Intune licence (visible to the service after the propagation delay)"
    static let example = "setLicense: {account: alice@contoso.com, licensed: true}"
    static let arguments: [VerbArgument] = [
        .required("account", .account(unmanaged: false), "the account"),
        .required("licensed", .bool, "true: licensed"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .failedBecause]

    var account: Account
    var licensed: Bool

    init(_ a: VerbArgumentReader) { (account, licensed) = (a.account("account"), a.bool("licensed", default: true)) }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [account, licensed] host in try host.enrollment.setLicense(StepRun.key(account), licensed: licensed) }) {
        case .success(let why): return (.ok, why, "\(account)")
        case .failure(let e): return (.failed(e.reason), e.message, "\(account)")
        }
    }
}
