import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `sign_with_identity`: data signed with a managed identity's key, which never leaves the
/// device.
enum SignWithIdentityHandler: ServiceHandler {
    static func audit(_ call: Service.SignWithIdentity) -> AuditPlan { .decides(.signWithIdentity, target: "identity \(call.id)") }

    static func answer(_ call: Service.SignWithIdentity, _ c: CallContext) throws -> Answered<[UInt8]> {
        let (signature, _) = try c.state.signWithIdentity(app: c.bundle, id: call.id, data: call.data)
        return Answered(.allowed("signed \(call.data.count) bytes with the identity \"\(call.id)\" (its key stays in the device)"), signature)
    }
}
