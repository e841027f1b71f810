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
            return Answered(Enforcer.policyQuery(call.setting, accounts: accounts, app: c.bundle, in: try c.fleet()))
        }
        let who = try call.as.map { try c.enrolled(c.named($0)) } ?? c.current()
        let signedIn = call.setting == .thirdPartyKeyboards ? try c.identities.accounts(of: c.app) : []
        return Answered(Enforcer.policyQuery(call.setting, as: who, app: c.bundle, in: try c.fleet(), signedIn: signedIn))
    }
}
