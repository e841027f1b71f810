import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// The identities the device holds for an app, read from the store. A storage failure is
/// thrown, never read as "no account": the caller answers `failed(internal)`.
struct Identities {
    let state: DeviceState

    /// Accounts signed in to an app; an extension acts with its containing app's accounts.
    func accounts(of spec: AppSpec) throws -> [Account] {
        try state.signedInAccounts(app: spec.identityOwner)
    }

    /// The app's effective UI identity (main window, else process) as an account.
    func current(of spec: AppSpec) throws -> Account? {
        state.account(forIdentity: try state.effectiveIdentity(app: spec.identityOwner, window: "", for: .ui))
    }

    /// Who receives an item shared to the app (RULES.md §2): an app receives as its effective
    /// UI identity; an extension, whatever window its containing app shows, as the process
    /// identity its own SDK sets. A single-identity extension (no `MultiIdentity` in its own
    /// Info.plist, the default, seed 001) runs as the enrolled user: the managed account
    /// signed in to its containing app, else the app's process identity. A multi-identity
    /// extension takes its containing app's process identity.
    func receiver(of spec: AppSpec) throws -> Account? {
        guard spec.descriptor.kind != .app else { return try current(of: spec) }
        let process = state.account(forIdentity: try state.processIdentity(app: spec.identityOwner))
        guard !spec.descriptor.multiIdentity else { return process }
        let enrolled = try accounts(of: spec).first { state.fleet.isManaged($0, in: spec.identityOwner) }
        return enrolled ?? process
    }

    /// The signed-in account `name` names, if it is signed in to the app.
    func signedIn(_ name: String, to spec: AppSpec) throws -> Account? {
        try accounts(of: spec).first { $0.matches(name) }
    }
}

/// A failure of the device itself (storage, I/O), as the verdict a caller is told.
func internalFailure(_ error: any Error, doing what: String) -> Verdict {
    if let e = error as? DeviceStateError { return .failed(e.reason, e.message) }
    return .failed(.internalError, "the device could not \(what): \(error)")
}
