import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `copy`: text onto the general pasteboard, with who owned it and where it was copied.
enum CopyHandler: ServiceHandler {
    static func audit(_ call: Service.Copy) -> AuditPlan { .decides(.copy) }
    static func acting(_ call: Service.Copy) -> Acting { .current }

    static func answer(_ call: Service.Copy, _ c: CallContext) throws -> Answered<Void> {
        c.desk.pasteboard = Pasteboard(text: call.text, owner: try c.current(), source: c.bundle)
        return Answered(.allowed("copied \(call.text.count) characters in \(c.bundle)"))
    }
}

/// The general pasteboard's content: the copied text, who owned it and where it was copied.
struct Pasteboard {
    var text: String
    var owner: Account?
    var source: BundleID
}
