import MAMDevice
import MAMModel
import MAMWire

/// `policyQuery`: the app reads one of `IntuneMAMPolicy`'s feature switches before it uses the
/// feature with the data it shows (seed 000; `IntuneMAMPolicy.h`): for the window's identity,
/// one account (`policyForAccountId`) or a view of several (`policyForAccountIds`, v1.2).
struct PolicyQueryStep: StepVerb {
    static let name = "policyQuery"
    static let since = "v1.2"
    static let summary = "the app reads a feature switch of its policy (contact sync, widgets, Spotlight, Siri…); feature-restricted when it is off or, for encryption, required"
    static let example = "policyQuery: {app: mail, setting: contactSync}"
    static let arguments: [VerbArgument] = [
        .app(),
        .required("setting", .choice(PolicySetting.allCases.map(\.rawValue)), "the feature switch"),
        .optional("account", .account(unmanaged: true), "whose policy (policyForAccountId; absent: the identity the window shows)"),
        .optional("accounts", .list, "a view of several accounts' data (policyForAccountIds): more than one with a managed one is the SDK's lock-down policy (v1.2)"),
        .window,
    ]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked, .failedBecause]

    var app: String
    var setting: PolicySetting
    var account: Account?
    var accounts: [Account]?
    var window: String?

    init(_ a: VerbArgumentReader) {
        setting = a.choice("setting", PolicySetting.self) ?? .contactSync
        (app, account, accounts, window) = (a.app(), a.optionalAccount("account"), a.optionalAccounts("accounts"), a.optionalText("window"))
        if account != nil, accounts != nil { a.error("give account (policyForAccountId) or accounts (policyForAccountIds), not both", at: "accounts") }
        // An empty list is the header's "nil or empty": no user, so nothing is restricted.
    }

    var actingApp: String? { app }

    /// Asked as the app's own process asks (`ServiceRequest.policyQuery`): one decision, in the
    /// host's service desk, either way.
    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .policyQuery(setting, as: account.map(StepRun.key), accounts: (accounts ?? []).map(StepRun.key)),
                                  context: ServiceContext(window: window ?? ""))
        return (Observed(r.verdict, allowed: .allowed), r.verdict.explanation, "\(app): \(setting.rawValue)")
    }
}
