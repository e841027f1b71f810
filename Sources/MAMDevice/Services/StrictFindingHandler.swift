import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire
import Foundation

/// `strict_finding`: Strict Mode (docs/STRICT.md). The façade in the app saw the app's code make
/// an integration mistake and says which check, in which SDK call, at which line of the app's
/// source. It is the app's word about itself: it decides nothing, so it is only bounded (known
/// checks, short fields, a number per app) and handed to the run as an event.
enum StrictFindingHandler: ServiceHandler {
    /// The checks the façade makes (docs/STRICT.md): a name outside them is a hostile child's.
    static let checks = StrictCheck.names
    /// How many findings one app may report: a loop that makes one mistake at every turn
    /// reports it once per line anyway (the façade's own de-duplication); past this, it is noise.
    static let findingsPerApp = 200

    static func audit(_ call: Service.StrictFinding) -> AuditPlan { .refusalsOnly(.diagnostic) }

    static func answer(_ call: Service.StrictFinding, _ c: CallContext) throws -> Answered<Void> {
        guard checks.contains(call.check) else {
            return Answered(.failed(.badRequest, "strict_finding names the check \(call.check.prefix(64).debugDescription), which is none of docs/STRICT.md's"))
        }
        // A check the host judges: the façade reported the call, the app's own declaration
        // decides whether it is a mistake.
        if call.check == StrictCheck.remediationWithoutProtapp.rawValue,
           c.app.descriptor.clientCapabilities.contains(where: { $0.lowercased() == Enforcer.protectionCapability }) {
            return Answered(.allowed("\(c.bundle) declares the protapp capability: no finding"))
        }
        if call.check == StrictCheck.processPolicyInMultiIdentity.rawValue, !c.app.descriptor.multiIdentity {
            return Answered(.allowed("\(c.bundle) is single-identity: its process policy is its one account's, no finding"))
        }
        if call.check == StrictCheck.restartUnhandledWithState.rawValue, c.app.descriptor.restoresState {
            return Answered(.allowed("\(c.bundle) restores its state when relaunched: no finding"))
        }
        let handle = c.app.handle
        let reported = c.desk.strictFindings[handle, default: 0]
        guard reported < findingsPerApp else { return Answered(.allowed("past \(findingsPerApp) findings, the rest are not kept")) }
        c.desk.strictFindings[handle] = reported + 1
        let bounded = { (text: String, limit: Int) in String(text.prefix(limit)).replacingOccurrences(of: "\n", with: " ") }
        c.desk.onEvent(.strict(handle: handle, StrictFindingEvent(
            check: call.check, call: bounded(call.call, 200), file: bounded(call.file, 400), line: Int(call.line), detail: bounded(call.detail, 600))))
        return Answered(.allowed("recorded"))
    }
}
