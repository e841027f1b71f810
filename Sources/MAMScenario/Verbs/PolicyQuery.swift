import MAMDevice
import MAMModel
import MAMWire

/// `policyQuery`: the app reads one of `IntuneMAMPolicy`'s feature switches before it uses the
/// feature with the data it shows (seed 000; `IntuneMAMPolicy.h`).
struct PolicyQueryStep: StepVerb {
    static let name = "policyQuery"
    static let since = "v1.2"
    static let summary = "the app reads a feature switch of its policy (contact sync, widgets, Spotlight, Siri…); feature-restricted when it is off or, for encryption, required"
    static let example = "policyQuery: {app: mail, setting: contactSync}"
    static let arguments: [VerbArgument] = [
        .app(),
        .required("setting", .choice(PolicySetting.allCases.map(\.rawValue)), "the feature switch"),
        .optional("account", .account(unmanaged: true), "whose policy (policyForAccountId; absent: the identity the window shows)"),
        .window,
    ]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked, .failedBecause]

    var app: String
    var setting: PolicySetting
    var account: Account?
    var window: String?

    init(_ a: VerbArgumentReader) {
        setting = a.choice("setting", PolicySetting.self) ?? .contactSync
        (app, account, window) = (a.app(), a.optionalAccount("account"), a.optionalText("window"))
    }

    var actingApp: String? { app }

    /// Asked as the app's own process asks (`ServiceRequest.policyQuery`): one decision, in the
    /// host's service desk, either way.
    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .policyQuery(setting, as: account.map(StepRun.key)), context: ServiceContext(window: window ?? ""))
        return (Observed(r.verdict, allowed: .allowed), r.verdict.explanation, "\(app): \(setting.rawValue)")
    }
}
