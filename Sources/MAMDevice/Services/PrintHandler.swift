import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `print`: whether the current identity's data may be printed.
enum PrintHandler: ServiceHandler {
    static func audit(_ call: Service.Print) -> AuditPlan { .decides(.print) }
    static func acting(_ call: Service.Print) -> Acting { .current }

    static func answer(_ call: Service.Print, _ c: CallContext) throws -> Answered<Void> {
        let (who, bundle) = (try c.current(), c.bundle)
        return Answered(try c.decision { Enforcer.print(as: who, app: bundle, in: $0) })
    }
}
