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
        try strictUnidentifiedWrite(call, owner: owner, c)
        let info = try c.state.writeFile(app: c.bundle, path: ContainerPath(parsing: call.path), data: call.data, owner: owner)
        if let saved = HostEvent.saved(by: c.app.handle, path: call.path, owner: info.owner) { c.event(saved) }
        return Answered(.allowed("wrote \(call.path)"), (info.owner, info.isEncrypted))
    }

    /// Strict Mode (docs/STRICT.md): a multi-identity app whose screen shows a managed account
    /// writes a file naming no owner, with no identity on its thread, so the file takes the
    /// process identity — another than the account whose data is on screen. The SDK files it
    /// as the thread (else process) identity says; the mistake is the app's, seen by the host.
    static func strictUnidentifiedWrite(_ call: Service.WriteFile, owner: String?, _ c: CallContext) throws {
        // Only the facts are gathered here; the rule (StrictRules+Host) judges them.
        guard call.owner == nil, c.context.thread == nil, c.app.descriptor.multiIdentity,
              let shown = try c.current(), try c.fleet().isManaged(shown, in: c.bundle) else { return }
        let filedAs = owner.flatMap { $0.isEmpty ? nil : c.named($0) }
        let path = UntrustedText.escaped(UntrustedText.prefix(call.path, utf8Bytes: 200))
        if let finding = FileWrittenWithoutThreadIdentity.finding(path: path, multiIdentity: true, ownerNamed: false, threadIdentitySet: false,
                                                                  shownManaged: shown.description, filedAs: filedAs?.description) {
            c.event(.strict(handle: c.app.handle, finding))
        }
    }
}
