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
        let (who, location, account, bundle) = (try c.current(), call.location, c.named(call.account), c.bundle)
        return Answered(try c.decision { Enforcer.save(owner: who, to: location, locationAccount: account, app: bundle, in: $0) })
    }
}
