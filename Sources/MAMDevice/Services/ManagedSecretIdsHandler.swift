import MAMDeclarations
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `managed_secret_ids`: the ids of the app's managed passwords, certificates or identities.
enum ManagedSecretIdsHandler: ServiceHandler {
    static func audit(_ call: Service.ManagedSecretIds) -> AuditPlan { .refusalsOnly(.managedSecretIds) }

    static func answer(_ call: Service.ManagedSecretIds, _ c: CallContext) throws -> Answered<[String]> {
        guard case .success(let content) = try c.state.managedAppContent(app: c.bundle) else {
            return Answered(.allowed("\(c.bundle) has no managed \(call.kind.plural)"), [])
        }
        return Answered(.allowed("\(c.bundle)'s \(call.kind) ids"), content.assets(of: call.kind).keys.sorted())
    }
}
