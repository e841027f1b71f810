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
        return Answered(Enforcer.open(from: call.location, locationAccount: c.named(call.account), as: who, app: c.bundle, in: try c.fleet()))
    }
}
