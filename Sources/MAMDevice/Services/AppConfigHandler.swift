import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `app_config`: `IntuneMAMAppConfigManager.appConfigForAccountId`, the app configuration
/// policies' settings for an account of the app (the current identity by default).
enum AppConfigHandler: ServiceHandler {
    static func audit(_ call: Service.AppConfig) -> AuditPlan { .refusalsOnly(.appConfig) }

    static func answer(_ call: Service.AppConfig, _ c: CallContext) throws -> Answered<[[String: String]]> {
        // For an account not signed in to the app, the SDK answers an object with no
        // settings: nothing of the account's.
        if let account = call.account, !account.isEmpty, try c.identities.signedIn(account, to: c.app) == nil {
            return Answered(.allowed("\(account) is not signed in to \(c.bundle): its app configuration has no settings"), [])
        }
        let who = try c.namedOrCurrent(call.account)
        // Nor for one signed in that the SDK has not enrolled (refused, deregistered).
        if let account = call.account, !account.isEmpty, let named = who, try c.enrolled(named) == nil {
            return Answered(.allowed("\(named) is not enrolled in \(c.bundle): its app configuration has no settings"), [])
        }
        let config = try c.state.appConfig(app: c.bundle, account: who)
        let why = config.fullData.isEmpty
            ? "no app configuration for \(who.map(\.description) ?? "the unmanaged identity") in \(c.bundle)"
            : "\(config.fullData.count) app configuration polic\(config.fullData.count == 1 ? "y" : "ies") for \(who.map(\.description) ?? "") in \(c.bundle)"
        return Answered(.allowed(why), config.fullData)
    }
}
