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
        var fleet = try c.fleet()
        // policyForAccountIds: several accounts with a managed one among them read the lock-down
        // policy, not any one account's (IntuneMAMPolicyManager.h).
        if call.accounts.count > 1 {
            let enrolled = try call.accounts.compactMap { try c.enrolled(c.named($0)) }
            if let managed = enrolled.first(where: { fleet.isManaged($0, in: c.bundle) }) {
                fleet = fleet.lockingDown(managed)
                let view = Enforcer.policyReading(as: managed, app: c.bundle, in: fleet, signedIn: try c.identities.accounts(of: c.app))
                let capture = Enforcer.screenCapture(as: managed, in: c.app.descriptor, policies: c.state.appConfigPolicies, fleet: fleet)
                return Answered(.allowed("the lock-down policy of \(call.accounts.count) accounts, \(managed) managed among them, in \(c.bundle)"),
                                PolicySummary(view, of: managed, screenCaptureAllowed: capture.isAllowed))
            }
        }
        let named = call.as ?? call.accounts.first
        var who = try named.map(c.named) ?? c.current()
        // policyForAccountId answers for the app's own accounts (signed in or enrolled in it);
        // for another it is nil, as an unmanaged identity's: nothing of that account reaches it.
        if named != nil, let named = who, !named.isEmpty {
            let own = try c.identities.accounts(of: c.app).contains { $0.isSame(as: named) }
                || c.state.enrollments(app: c.app.identityOwner).contains { $0.account.isSame(as: named) }
            if !own {
                c.event(.hostile(handle: c.app.handle, what: "asked for the policy of \(named), which is not one of its accounts", disconnected: false))
                who = nil
            } else {
                // Its own, but the SDK manages only enrolled accounts (SCENARIOS.md v1.3).
                who = try c.enrolled(named)
            }
        }
        let (bundle, app, configs, signedIn, asked) = (c.bundle, c.app.descriptor, c.state.appConfigPolicies, try c.identities.accounts(of: c.app), who)
        let (view, summary) = PolicyReads.decision(in: fleet) { fleet in
            let view = Enforcer.policyReading(as: asked, app: bundle, in: fleet, signedIn: signedIn)
            let capture = Enforcer.screenCapture(as: asked, in: app, policies: configs, fleet: fleet)
            return Pair(view, PolicySummary(view, of: asked, screenCaptureAllowed: capture.isAllowed))
        }.both
        let whose = who.map { $0.isEmpty ? "the unmanaged identity" : $0.description } ?? "the unmanaged identity"
        return Answered(.allowed(view.managed ? "the policy of \(whose) in \(c.bundle)" : "\(whose) is not managed in \(c.bundle): nothing is restricted"), summary)
    }
}

/// Two answers of one decision, compared together.
struct Pair<A: Hashable & Sendable, B: Hashable & Sendable>: Hashable, Sendable {
    let first: A, second: B
    init(_ first: A, _ second: B) { (self.first, self.second) = (first, second) }
    var both: (A, B) { (first, second) }
}
