import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `protect`: data protected for an account of the app (the current identity by default).
enum ProtectHandler: ServiceHandler {
    static func audit(_ call: Service.Protect) -> AuditPlan { .refusalsOnly(.protect) }

    static func answer(_ call: Service.Protect, _ c: CallContext) throws -> Answered<[UInt8]> {
        let owner = try call.owner ?? c.current()?.upn ?? ""
        return Answered(.allowed("protected for \(owner.isEmpty ? "unmanaged use" : owner)"),
                        try c.state.protect(app: c.bundle, data: call.data, owner: owner))
    }
}
