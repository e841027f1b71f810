import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `unprotect`: protected data read back by an app that may read it.
enum UnprotectHandler: ServiceHandler {
    static func audit(_ call: Service.Unprotect) -> AuditPlan { .refusalsOnly(.unprotect) }

    static func answer(_ call: Service.Unprotect, _ c: CallContext) throws -> Answered<[UInt8]> {
        Answered(.allowed("unprotected"), try c.state.unprotect(app: c.bundle, data: call.data))
    }
}
