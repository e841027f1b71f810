import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `policy`: `policyForAccountId`'s whole policy in one answer, so the app reads its getters
/// without asking again. Each field is what its single call would answer (`policy_query`,
/// `can_save`/`can_open` with the policy's own account, `screen_capture`). A read, logged only
/// when refused, like the app configuration.
enum PolicyHandler: ServiceHandler {
    static func audit(_ call: Service.Policy) -> AuditPlan { .refusalsOnly(.policyQuery) }

    static func answer(_ call: Service.Policy, _ c: CallContext) throws -> Answered<PolicySummary> {
        let who = try call.as.map(c.named) ?? c.current()
        let fleet = try c.fleet()
        let view = Enforcer.policyReading(as: who, app: c.bundle, in: fleet, signedIn: try c.identities.accounts(of: c.app))
        let capture = Enforcer.screenCapture(as: who, in: c.app.descriptor, policies: c.state.appConfigPolicies, fleet: fleet)
        let summary = PolicySummary(view, of: who, screenCaptureAllowed: capture.isAllowed)
        let whose = who.map { $0.isEmpty ? "the unmanaged identity" : $0.description } ?? "the unmanaged identity"
        return Answered(.allowed(view.managed ? "the policy of \(whose) in \(c.bundle)" : "\(whose) is not managed in \(c.bundle): nothing is restricted"), summary)
    }
}
