public import Crypto
import Foundation
import GRDB
public import MAMModel
public import MAMPolicy

/// The simulated Entra token service (RULES.md §10): conditional access policies in force,
/// and tokens signed with a key per tenant (ES256 JWTs an app can inspect).
extension DeviceState {
    /// Whether `app` is compliant for `account`: an SDK app that registered the managed
    /// account for app protection CA (a successful `remediateCompliance`), the account still
    /// signed in to it and still under a MAM policy that targets the app.
    public func isCompliant(app bundle: BundleID, account: Account) throws -> Bool {
        let app = try descriptor(bundle)
        let owner = app.containingApp ?? app.bundleID
        guard app.sdkIntegrated, fleet.isManaged(account), fleet.isPolicyManaged(owner, for: account) else { return false }
        guard try signedInAccounts(app: owner).contains(where: { $0.isSame(as: account) }) else { return false }
        return try readStore { db in try Self.setting(db, Self.complianceKey(owner, account)) } != nil
    }

    /// Records that `app` registered `account` for app protection CA (stored: it survives a
    /// restart, as the registration with the service would).
    public func recordCompliance(app bundle: BundleID, account: Account) throws {
        let owner = try descriptor(bundle).containingApp ?? bundle
        try writeStore { db in try Self.setSetting(db, Self.complianceKey(owner, account), "registered") }
    }

    static func complianceKey(_ app: BundleID, _ account: Account) -> String {
        "ca_registered:\(app.folded):\(key(of: account))"
    }

    /// A signed token for `account`, as Entra would issue it to `app` for `resource`: an ES256
    /// JWT with `oid`, `tid`, `aud`, `xms_cc` (the app's client capabilities), valid for an
    /// hour of the simulated clock.
    public func issueToken(app bundle: BundleID, account: Account, resource: String) throws -> String {
        let app = try descriptor(bundle)
        let tenant = account.tenant.isEmpty ? "common" : account.tenant
        let key = try tenantKey(tenant)
        let iat = Int(now.secondsSince1970)
        var claims: [String: Any] = [
            "aud": resource, "iss": "https://login.microsoftonline.com/\(tenant)/v2.0", "iat": iat, "nbf": iat, "exp": iat + Int(fleet.service.tokenLifetime ?? 3600),
            "oid": account.oid, "tid": tenant, "appid": app.bundleID.rawValue, "ver": "2.0",
        ]
        if !account.upn.isEmpty { claims["preferred_username"] = account.upn }
        if !app.clientCapabilities.isEmpty { claims["xms_cc"] = app.clientCapabilities }
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "typ": "JWT", "kid": tenant], options: [.sortedKeys])
        let body = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = Self.base64URL(header) + "." + Self.base64URL(body)
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        return signingInput + "." + Self.base64URL(signature)
    }

    /// The public key that verifies a tenant's tokens.
    public func tenantPublicKey(_ tenant: String) throws -> P256.Signing.PublicKey {
        try tenantKey(tenant.isEmpty ? "common" : tenant).publicKey
    }

    /// The tenant's signing key, made once and kept sealed in its own table (tenant_key):
    /// nothing a declaration names can reach it. The seal's label is the one the key had
    /// before v6 moved it there, so keys made earlier still open.
    func tenantKey(_ tenant: String) throws -> P256.Signing.PrivateKey {
        let id = tenant.lowercased()
        let label = "generated_identity:tenant:\(id)"
        if let stored = try readStore({ db in try Data.fetchOne(db, sql: "SELECT key FROM tenant_key WHERE tenant = ?", arguments: [id]) }) {
            return try P256.Signing.PrivateKey(derRepresentation: try storeKey.open(stored, row: label))
        }
        let key = P256.Signing.PrivateKey()
        try writeStore { db in
            try db.execute(sql: "INSERT INTO tenant_key (tenant, key) VALUES (?, ?)", arguments: [id, try storeKey.seal(key.derRepresentation, row: label)])
        }
        return key
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The conditional access policies in force: stored run-time changes, else `initial`.
    public func loadConditionalAccess(initial: [ConditionalAccessPolicy]) throws {
        conditionalAccess = initial
        if let text = try readStore({ db in try Self.setting(db, "ca_states") }) {
            let states = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
            for i in conditionalAccess.indices {
                if let s = states[conditionalAccess[i].name], let state = ConditionalAccessPolicy.State(rawValue: s) { conditionalAccess[i].state = state }
            }
        }
    }

    /// `setConditionalAccess`: the admin turns a policy on or off (stored).
    public func setConditionalAccessState(_ name: String, _ state: ConditionalAccessPolicy.State) throws {
        guard let i = conditionalAccess.firstIndex(where: { $0.name == name }) else {
            throw DeviceStateError(.badRequest, "no conditional access policy named \"\(name)\"; the device has \(conditionalAccess.map(\.name).joined(separator: ", "))")
        }
        conditionalAccess[i].state = state
        let states = Dictionary(conditionalAccess.map { ($0.name, $0.state.rawValue) }, uniquingKeysWith: { a, _ in a })
        let text = String(decoding: try JSONEncoder().encode(states), as: UTF8.self)
        try writeStore { db in try Self.setSetting(db, "ca_states", text) }
    }
}
