import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `acquireToken`: the app asks the simulated Entra service for a token (MSAL).
struct AcquireTokenStep: StepVerb {
    static let name = "acquireToken"
    static let since = "v1.1"
    static let summary = "the app asks Entra for a token; conditional access (App Protection CA) decides"
    static let example = "acquireToken: {app: mail, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [
        .app(), .required("account", .account(unmanaged: false), "the account"),
        .optional("resource", .text, "an app id or URI (absent: Microsoft Graph)"),
        .optional("silent", .bool, "accepted: a token request never shows UI here (remediate does)"),
    ]
    static let outcomes: [OutcomeForm] = [.token, .blocked, .failedBecause]

    /// Microsoft Graph's application id.
    static let graph = "00000003-0000-0000-c000-000000000000"

    var app: String
    var account: Account
    var resource: String

    init(app: String, account: Account, resource: String = graph) { (self.app, self.account, self.resource) = (app, account, resource) }
    init(_ a: VerbArgumentReader) {
        if let x = a["silent"] { _ = a.reader.bool(x, what: "silent") }
        self.init(app: a.app(), account: a.account("account"), resource: a.optionalText("resource") ?? Self.graph)
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let shutDown: (TokenDecision, token: String?) = (.unanswered(.shutDown), nil)
        let (t, token) = await run.host.run(orElse: shutDown) { [app, account, resource] (host: Host) -> (TokenDecision, token: String?) in
            do {
                return host.tokens.acquireToken(for: try host.app(app), account: StepRun.key(account), resource: resource, fromApp: false)
            } catch {
                return (.unanswered(HostFailure(error)), nil)
            }
        }
        let parties = "\(app) (\(account)) → \(resource)"
        guard let token else {
            let why = t.decision.explanation + (t.homeAccountID.map { " [homeAccountId \($0)]" } ?? "")
            return (Observed(t.decision, allowed: .token), why, parties)
        }
        return (.token, "\(t.decision.explanation); token \(token)", parties)
    }
}
