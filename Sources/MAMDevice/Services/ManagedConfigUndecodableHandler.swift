import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire
import Foundation

/// `managed_config_undecodable`: the app's decoder refused its ManagedApp configuration. The
/// decoder's words go to the administrator as the app wrote them, cut to a line; the same
/// words again (every update while the configuration stays undecodable, or a child repeating
/// itself) are said once, and a child making up new words at every call is heard a bounded
/// number of times.
enum ManagedConfigUndecodableHandler: ServiceHandler {
    /// How much of an app decoder's error the administrator's log keeps.
    static let decoderErrorLimit = 500
    /// How many different decoder errors an app may put in the administrator's log.
    static let reportsPerApp = 20

    static func audit(_ call: Service.ManagedConfigUndecodable) -> AuditPlan { .refusalsOnly(.managedConfig) }

    static func answer(_ call: Service.ManagedConfigUndecodable, _ c: CallContext) throws -> Answered<Void> {
        let handle = c.app.handle
        let said = UntrustedText.escaped(UntrustedText.prefix(call.error, utf8Bytes: decoderErrorLimit))
        guard c.desk.decoderErrors[handle]?.last != said else { return Answered(.allowed("already reported to the administrator")) }
        let reported = (c.desk.decoderErrors[handle]?.count ?? 0) + 1
        c.desk.decoderErrors[handle] = (reported, said)
        guard reported <= reportsPerApp else {
            if reported == reportsPerApp + 1 {
                c.event(.hostile(handle: handle, what: "reported \(reported) different decoder errors; further ones are not logged", disconnected: false))
            }
            return Answered(.allowed("not reported: \(handle) reported \(reportsPerApp) decoder errors already"))
        }
        let why = "\(c.bundle)'s decoder refused its ManagedApp configuration (the app sees nil): \(said)"
        c.audit.record(verb: .managedConfig, source: handle, decision: .failed, reason: .badRequest, explanation: why)
        c.event(.diagnostic(handle: handle, name: "managed-config-undecodable", detail: why))
        // Said in the run's own output too (issue 87, item 3): a configuration that is always
        // nil with its reason only in the audit log looks like no configuration at all.
        c.event(.said(handle: handle, "its configuration decoder refused the ManagedApp configuration, so the app sees nil: \(said)"))
        return Answered(.allowed("reported to the administrator"))
    }
}
