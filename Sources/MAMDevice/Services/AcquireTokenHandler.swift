import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `acquire_token`: MSAL's token for an account signed in to the app, decided by the token
/// service (conditional access, compliance), which audits it.
enum AcquireTokenHandler: ServiceHandler {
    static func audit(_ call: Service.AcquireToken) -> AuditPlan { .selfAudited(.acquireTokenCall) }

    static func answer(_ call: Service.AcquireToken, _ c: CallContext) throws -> Answered<Service.AcquireToken.Answer> {
        let tokens = try c.desk.tokenService(for: call)
        let r = tokens.tokenResult(for: c.app, account: call.account, resource: call.resource)
        return Answered(r.verdict, Service.AcquireToken.answer(from: r.value))
    }
}
