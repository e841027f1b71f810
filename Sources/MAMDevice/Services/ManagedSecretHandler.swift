import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `managed_secret`: a password, certificate or identity the app's declaration gives it; an
/// identity comes as its certificate only (the key stays in the device).
enum ManagedSecretHandler: ServiceHandler {
    static func audit(_ call: Service.ManagedSecret) -> AuditPlan { .decides(.managedSecret, target: "\(call.kind) \(call.id)") }

    static func answer(_ call: Service.ManagedSecret, _ c: CallContext) throws -> Answered<ManagedSecretValue> {
        let value: ManagedSecretValue = switch try c.state.managedSecret(app: c.bundle, kind: call.kind, id: call.id) {
        case .password(let user, let password): .password(userName: user, password: password)
        case .certificate(let der): .certificate(der)
        case .identity(let der): .identity(certificate: der)
        }
        return Answered(.allowed("\(call.kind) \"\(call.id)\" for \(c.bundle)"), value)
    }
}
