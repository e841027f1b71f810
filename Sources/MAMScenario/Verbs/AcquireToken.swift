import Foundation
import MAMDevice
import MAMDeviceState
import MAMDocument
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
    static let outcomes: [OutcomeForm] = [.token, .tokenClaims, .blocked, .blockedHome, .failedBecause]

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
        let (t, token) = await run.host.run(orElse: shutDown) { [app, account, resource] (host: MAMDevice.Host) -> (TokenDecision, token: String?) in
            do {
                return host.tokens.acquireToken(for: try host.app(app), account: StepRun.key(account), resource: resource, fromApp: false)
            } catch {
                return (.unanswered(HostFailure(error)), nil)
            }
        }
        let parties = "\(app) (\(account)) → \(resource)"
        guard let token else {
            let why = t.decision.explanation + (t.homeAccountID.map { " [homeAccountId \($0)]" } ?? "")
            if case .blocked(let reason, _) = t.decision, let home = t.homeAccountID { return (.blockedHome(reason, homeAccountID: home), why, parties) }
            return (Observed(t.decision, allowed: .token(claims: [:])), why, parties)
        }
        return (.token(claims: Self.claims(of: token)), "\(t.decision.explanation); token \(token)", parties)
    }

    /// The claims of a JWT's payload, each as strings (a list claim as its elements, a number
    /// as its decimal spelling); nothing when the payload is not a JSON object.
    static func claims(of jwt: String) -> [String: [String]] {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return [:] }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object.mapValues { value in
            switch value {
            case let list as [Any]: list.map { "\($0)" }
            default: ["\(value)"]
            }
        }
    }
}
