import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `write_file`: writes a file in the app's container, owned by the effective file identity
/// unless the app names one of its own accounts.
enum WriteFileHandler: ServiceHandler {
    static func audit(_ call: Service.WriteFile) -> AuditPlan { .refusalsOnly(.writeFile) }

    static func answer(_ call: Service.WriteFile, _ c: CallContext) throws -> Answered<Service.WriteFile.Answer> {
        let owner = try call.owner ?? c.fileIdentity()
        if let o = owner, !o.isEmpty, try c.identities.signedIn(o, to: c.app) == nil {
            c.event(.hostile(handle: c.app.handle, what: "wrote a file as \(o), which is not signed in to it", disconnected: false))
            return Answered(.blocked(.notSignedIn, "\(o) is not signed in to \(c.bundle); a file can be owned only by an account of the app"))
        }
        let info = try c.state.writeFile(app: c.bundle, path: ContainerPath(parsing: call.path), data: call.data, owner: owner)
        return Answered(.allowed("wrote \(call.path)"), (info.owner, info.isEncrypted))
    }
}
