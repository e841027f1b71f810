import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `can_save`: `isSaveToAllowedForLocation:withAccountId:` for the current identity's data.
enum CanSaveHandler: ServiceHandler {
    static func audit(_ call: Service.CanSave) -> AuditPlan {
        .decides(.save, target: call.account.isEmpty ? "\(call.location)" : "\(call.location) (\(call.account))", owner: call.account)
    }
    static func acting(_ call: Service.CanSave) -> Acting { .current }

    static func answer(_ call: Service.CanSave, _ c: CallContext) throws -> Answered<Void> {
        Answered(Enforcer.save(owner: try c.current(), to: call.location, locationAccount: c.named(call.account), app: c.bundle, in: try c.fleet()))
    }
}
