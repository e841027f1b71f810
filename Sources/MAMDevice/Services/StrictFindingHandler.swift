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
    /// How many findings one app may report: a loop that makes one mistake at every turn
    /// reports it once per line anyway (the façade's own de-duplication); past this, it is noise.
    static let findingsPerApp = 200
    /// What one finding's fields may hold, in UTF-8 bytes (a `Character` may be megabytes: a
    /// letter with a million combining marks), and what one app's findings may hold in all.
    static let callBytes = 200, fileBytes = 400, detailBytes = 600
    static let bytesPerApp = 64 * 1024

    static func audit(_ call: Service.StrictFinding) -> AuditPlan { .refusalsOnly(.diagnostic) }

    static func answer(_ call: Service.StrictFinding, _ c: CallContext) throws -> Answered<Void> {
        guard let check = StrictCheck(rawValue: call.check) else {
            return Answered(.failed(.badRequest, "strict_finding names the check \(UntrustedText.escaped(UntrustedText.prefix(call.check, utf8Bytes: 64)).debugDescription), which is none of docs/STRICT.md's"))
        }
        guard !check.madeByHost else {
            return Answered(.failed(.badRequest, "strict_finding names \(check.rawValue), a check the host makes from what it sees; an app cannot report it"))
        }
        // A check the host confirms: the façade reported the call, the app's own declarations
        // decide whether it is a mistake (the rule's judgment, StrictRules+Host).
        if let rule = check.rule as? any StrictHostConfirmedRule.Type {
            let facts = StrictAppFacts(bundle: c.bundle.rawValue, multiIdentity: c.app.descriptor.multiIdentity,
                                       restoresState: c.app.descriptor.restoresState, clientCapabilities: c.app.descriptor.clientCapabilities)
            if let why = rule.noFinding(for: facts) { return Answered(.allowed(why)) }
        }
        let handle = c.app.handle
        let reported = c.desk.strictFindings[handle, default: (count: 0, bytes: 0)]
        guard reported.count < findingsPerApp, reported.bytes < bytesPerApp else {
            return Answered(.allowed("past \(findingsPerApp) findings or \(bytesPerApp / 1024) KiB of them, the rest are not kept"))
        }
        // The app's words, bounded in bytes and with every control and bidirectional character
        // escaped here, once: every reporter (terminal, CI log, JSON, JUnit, SARIF, HTML) then
        // carries text that can drive nothing. The bound applies after escaping, so it holds.
        let bounded = { (text: String, limit: Int) in
            UntrustedText.prefix(UntrustedText.escaped(UntrustedText.prefix(text, utf8Bytes: limit)), utf8Bytes: limit)
        }
        let finding = StrictFindingEvent(
            check: check.rawValue, call: bounded(call.call, callBytes), file: bounded(call.file, fileBytes), line: Int(call.line),
            detail: bounded(call.detail, detailBytes))
        c.desk.strictFindings[handle] = (reported.count + 1, reported.bytes + finding.call.utf8.count + finding.file.utf8.count + finding.detail.utf8.count)
        c.desk.onEvent(.strict(handle: handle, finding))
        return Answered(.allowed("recorded"))
    }
}
