import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `policy_getters_read`: the façade in the app says which getters of which account's policy
/// object the app's own code read (`GettersRead`). It is the app's word about itself and decides
/// nothing: checked (the SDK's getters only, an account of the app's own) and handed to the run
/// as an event, for `mamsim mutate` to tell a setting the app consults from one it ignores.
/// The app configuration keys the code read come the same way, as text the app chose: bounded,
/// and escaped wherever they are shown.
enum PolicyGettersReadHandler: ServiceHandler {
    /// Each getter is told once per account and process: past this many, an app is repeating itself.
    static let reportsPerApp = 4 * PolicyGetter.allCases.count * 16
    /// App configuration keys: at most this many in one report, each at most `keyBytes` long,
    /// and `keysPerApp` kept of one app.
    static let keysPerReport = 64
    static let keyBytes = 256
    static let keysPerApp = 4_096

    static func audit(_ call: Service.PolicyGettersRead) -> AuditPlan { .refusalsOnly(.diagnostic) }

    static func answer(_ call: Service.PolicyGettersRead, _ c: CallContext) throws -> Answered<Void> {
        var getters: [PolicyGetter] = []
        for name in call.getters.prefix(PolicyGetter.allCases.count + 1) {
            guard let getter = PolicyGetter(rawValue: name) else {
                return Answered(.failed(.badRequest, "policy_getters_read names \(UntrustedText.escaped(UntrustedText.prefix(name, utf8Bytes: 64)).debugDescription), which is no getter of IntuneMAMPolicy"))
            }
            getters.append(getter)
        }
        guard getters.count <= PolicyGetter.allCases.count else {
            return Answered(.failed(.badRequest, "policy_getters_read names more getters than IntuneMAMPolicy has"))
        }
        guard call.configKeys.count <= keysPerReport else {
            return Answered(.failed(.badRequest, "policy_getters_read names \(call.configKeys.count) app configuration keys; at most \(keysPerReport) in one report"))
        }
        if let long = call.configKeys.first(where: { $0.utf8.count > keyBytes || $0.isEmpty }) {
            return Answered(.failed(.badRequest, "policy_getters_read names the app configuration key \(UntrustedText.escaped(UntrustedText.prefix(long, utf8Bytes: 64)).debugDescription), which is empty or longer than \(keyBytes) bytes"))
        }
        var account: Account?
        if !call.account.isEmpty {
            // An account of the app's own: signed in to it, or enrolled in it by the SDK.
            let own = try c.identities.accounts(of: c.app) + c.state.enrollments(app: c.app.identityOwner).map(\.account)
            guard let named = own.first(where: { $0.matches(call.account) }) else {
                return Answered(.blocked(.notSignedIn, "policy_getters_read names an account that is not one of \(c.bundle)'s"))
            }
            account = named
        }
        let handle = c.app.handle
        let owner = account?.upn ?? ""
        if !call.configKeys.isEmpty {
            let keys = c.desk.configKeysRead[handle, default: 0]
            guard keys < keysPerApp else { return Answered(.allowed("past \(keysPerApp) app configuration keys, the rest are not kept")) }
            c.desk.configKeysRead[handle] = keys + call.configKeys.count
            c.event(.appConfigKeysRead(handle: handle, keys: call.configKeys, account: owner))
        }
        guard !getters.isEmpty else { return Answered(.allowed("recorded")) }
        let told = c.desk.gettersRead[handle, default: 0]
        guard told < reportsPerApp else { return Answered(.allowed("past \(reportsPerApp) reports, the rest are not kept")) }
        c.desk.gettersRead[handle] = told + getters.count
        c.event(.policyGettersRead(handle: handle, getters: getters, account: owner))
        return Answered(.allowed("recorded"))
    }
}
