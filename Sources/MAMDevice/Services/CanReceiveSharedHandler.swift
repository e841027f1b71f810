import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `can_receive_shared`: IntuneMAMPolicy's canReceiveSharedFile (a file of the app's container,
/// its owner as the host recorded it) and canReceiveSharedItemProvider (an item the host
/// stamped: its owner and the app it came from), for an account (the current identity by
/// default): the transfer rules of RULES.md §2, as a share into the app would be decided.
enum CanReceiveSharedHandler: ServiceHandler {
    static func audit(_ call: Service.CanReceiveShared) -> AuditPlan { .decides(.share, target: call.path) }

    static func answer(_ call: Service.CanReceiveShared, _ c: CallContext) throws -> Answered<Void> {
        let receiver = try call.as.map { try c.enrolled(c.named($0)) } ?? c.current()
        let fleet = try c.fleet()
        let owner: Account?
        let source: BundleID
        if !call.path.isEmpty {
            let status = try c.desk.fileStatus(c.app, path: call.path)
            guard status.exists else { return Answered(.failed(.badRequest, "\(call.path) does not exist in \(c.bundle)'s container")) }
            owner = status.owner.flatMap { c.state.account(forIdentity: $0) }
            // A file already in the container is judged as data of its owner in this app.
            source = c.bundle
        } else {
            owner = call.owner.isEmpty ? nil : c.named(call.owner)
            source = call.sourceBundle.isEmpty ? c.bundle : BundleID(call.sourceBundle)
        }
        return Answered(Enforcer.canReceiveSharedFile(owner: owner, from: source, into: c.bundle, as: receiver, in: fleet).decision)
    }
}
