import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `policy_query`: one of `IntuneMAMPolicy`'s switches for an account (`policyForAccountId`),
/// for several (`policyForAccountIds`: the strictest), or for the current identity. An account
/// the app's SDK has not enrolled answers as the unmanaged identity (`CallContext.enrolled`).
enum PolicyQueryHandler: ServiceHandler {
    static func audit(_ call: Service.PolicyQuery) -> AuditPlan {
        .decides(.policyQuery, target: call.setting.rawValue, owner: call.as ?? call.accounts.joined(separator: ", "))
    }

    static func answer(_ call: Service.PolicyQuery, _ c: CallContext) throws -> Answered<Void> {
        if call.as == nil, !call.accounts.isEmpty {
            let accounts = try call.accounts.map { try c.enrolled(c.named($0)) ?? Account(upn: "") }
            let (setting, bundle) = (call.setting, c.bundle)
            return Answered(try c.decision { Enforcer.policyQuery(setting, accounts: accounts, app: bundle, in: $0) })
        }
        let who = try call.as.map { try c.enrolled(c.named($0)) } ?? c.current()
        let signedIn = call.setting == .thirdPartyKeyboards ? try c.identities.accounts(of: c.app) : []
        let (setting, bundle) = (call.setting, c.bundle)
        return Answered(try c.decision { Enforcer.policyQuery(setting, as: who, app: bundle, in: $0, signedIn: signedIn) })
    }
}
