import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// A multi-identity app asked to switch identity to take an item (`identitySwitchRequired`,
/// cause `documentImport`): to a managed account, whose switch runs conditional launch (the
/// PIN prompt answered as the run scripted it) and is audited, or to its unmanaged identity.
/// The app's consent alone is not enough: the switch must succeed on the device.
struct IdentitySwitchAsk {
    let supervisor: Supervisor
    let state: DeviceState
    let audit: AuditSink
    /// The run around the device: what the user types at a PIN prompt.
    let context: RunContext
    let onEvent: (HostEvent) -> Void

    /// `identitySwitchRequired(account)`: asks a multi-identity app to show a managed
    /// account to import an item. The app's consent is not enough: the switch runs
    /// conditional launch (the PIN prompt is answered as the run scripted it).
    /// `completion(accepted, why not)`.
    func ask(_ target: AppSpec, to account: Account, because why: String, _ completion: @escaping (Bool, String?) -> Void) {
        supervisor.command(target, .identitySwitchRequired(account: account.upn.isEmpty ? account.oid : account.upn, reason: why, cause: IdentitySwitchCause.documentImport)) { [state, audit, context, onEvent] result in
            guard case .identitySwitchRequired(accepted: true) = result else { return completion(false, "the app declined") }
            do {
                let pin = context.takePinAnswer(target.key)
                let report = try state.setUIPolicyAccountId(app: target.identityOwner, window: "", account: account.description, pin: pin, now: nil)
                audit.record(verb: .switchIdentity, source: target.handle, sourceIdentity: account.description, owner: account.description,
                             decision: AuditDecision(report.result), reason: report.decision.blockedBy, explanation: "to import an item: \(report.decision.explanation)")
                guard report.result == .success else { return completion(false, report.decision.explanation) }
                onEvent(.note("\(target.handle) switched to \(account) to import an item: \(why)"))
                completion(true, nil)
            } catch {
                completion(false, "\(error)")
            }
        }
    }

    /// `identitySwitchRequired("")`: asks a multi-identity app to show its unmanaged identity;
    /// on yes, its main window's UI identity becomes `""`.
    func askUnmanaged(_ target: AppSpec, because why: String, _ completion: @escaping (Bool) -> Void) {
        supervisor.command(target, .identitySwitchRequired(account: "", reason: why, cause: IdentitySwitchCause.documentImport)) { [state, onEvent] result in
            guard case .identitySwitchRequired(accepted: true) = result else { return completion(false) }
            do {
                let report = try state.setUIPolicyAccountId(app: target.identityOwner, window: "", account: "", pin: nil, now: nil)
                onEvent(.note("\(target.handle) switched to its unmanaged identity to receive an item: \(why)"))
                completion(report.result == .success)
            } catch {
                onEvent(.note("\(target.handle) could not switch to its unmanaged identity: \(error)"))
                completion(false)
            }
        }
    }
}
