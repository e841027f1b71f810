import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `can_open`: `isOpenFromAllowedForLocation:withAccountId:` for the receiving identity.
enum CanOpenHandler: ServiceHandler {
    static func audit(_ call: Service.CanOpen) -> AuditPlan {
        .decides(.open, target: call.account.isEmpty ? "\(call.location)" : "\(call.location) (\(call.account))",
                 receiver: call.as ?? "", owner: call.account)
    }
    static func acting(_ call: Service.CanOpen) -> Acting { .namedOrCurrent(call.as) }

    static func answer(_ call: Service.CanOpen, _ c: CallContext) throws -> Answered<Void> {
        let who = try c.namedOrCurrent(call.as)
        let (location, account, bundle) = (call.location, c.named(call.account), c.bundle)
        return Answered(try c.decision { Enforcer.open(from: location, locationAccount: account, as: who, app: bundle, in: $0) })
    }
}
