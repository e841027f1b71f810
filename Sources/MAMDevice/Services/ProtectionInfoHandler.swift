import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `protection_info`: what the data protection header says of some data (nil: not protected).
enum ProtectionInfoHandler: ServiceHandler {
    static func audit(_ call: Service.ProtectionInfo) -> AuditPlan { .refusalsOnly(.protectionInfo) }

    static func answer(_ call: Service.ProtectionInfo, _ c: CallContext) throws -> Answered<ProtectionSummary?> {
        let info = c.state.protectionInfo(data: call.data)
        return Answered(.allowed(info == nil ? "not protected" : "protected"),
                        .some(info.map { ProtectionSummary(owner: $0.owner, encrypted: $0.isEncrypted) }))
    }
}
