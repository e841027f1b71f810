import MAMModel
import MAMWire

/// `appConfigData`: the app reads its whole Intune app configuration for an account
/// (`IntuneMAMAppConfig.fullData`): one dictionary per configuration policy that targets it,
/// the tenant default marked `__IsDefault = true` (`IntuneMAMAppConfig.h`).
struct AppConfigDataStep: StepVerb {
    static let name = "appConfigData"
    static let since = "v1.2"
    static let summary = "the app reads its whole app configuration (fullData): one dictionary per policy, the tenant default marked __IsDefault"
    static let example = "appConfigData: {app: mail}"
    static let arguments: [VerbArgument] = [
        .app(),
        .optional("account", .account(unmanaged: true), "whose configuration (absent: the app's current identity)"),
    ]
    static let outcomes: [OutcomeForm] = [.fullData, .none, .failedBecause]

    var app: String
    var account: Account?

    init(_ a: VerbArgumentReader) { (app, account) = (a.app(), a.optionalAccount("account")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.AppConfig(account: account.map { $0.isEmpty ? "" : $0.description }))
        guard let data = r.allowedAnswer, !data.isEmpty else {
            return (Observed(r.verdict, allowed: .none), r.verdict.explanation, app)
        }
        let defaults = data.filter { $0[AppConfig.defaultMarker]?.lowercased() == "true" }.count
        return (.fullData(data), "\(r.verdict.explanation); \(data.count) dictionar\(data.count == 1 ? "y" : "ies")\(defaults > 0 ? ", the tenant default among them" : "")", app)
    }
}
