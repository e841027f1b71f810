import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `file_owner`: `IntuneMAMFilePolicyManager`'s owner of a file (`""`: personal data).
enum FileOwnerHandler: ServiceHandler {
    static func audit(_ call: Service.FileOwner) -> AuditPlan { .refusalsOnly(.fileOwner) }

    static func answer(_ call: Service.FileOwner, _ c: CallContext) throws -> Answered<Service.FileOwner.Answer> {
        let owner = try c.state.fileOwner(app: c.bundle, path: ContainerPath(parsing: call.path)) ?? ""
        return Answered(.allowed("\(call.path) is owned by \(owner.isEmpty ? "nobody (personal data)" : owner)"), (owner, false))
    }
}
