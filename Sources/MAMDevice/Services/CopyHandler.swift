import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `copy`: text onto the general pasteboard, with who owned it and where it was copied.
enum CopyHandler: ServiceHandler {
    static func audit(_ call: Service.Copy) -> AuditPlan { .decides(.copy) }
    static func acting(_ call: Service.Copy) -> Acting { .current }

    static func answer(_ call: Service.Copy, _ c: CallContext) throws -> Answered<Void> {
        let owner = try c.current()
        // Copied in a window of several accounts: the text carries the lock-down policy of the
        // managed one among them to wherever it is pasted (RULES.md §2, merged windows).
        let lockedDown = try c.desk.lockedDownAccount(c.app, c.context, in: c.state.fleet(heldBy: c.app.identityOwner))
        c.desk.pasteboard = Pasteboard(text: call.text, owner: lockedDown ?? owner, source: c.bundle, lockedDown: lockedDown != nil)
        return Answered(.allowed("copied \(call.text.count) characters in \(c.bundle)\(lockedDown.map { " from a window of several accounts: under the lock-down policy of \($0)" } ?? "")"))
    }
}

/// The general pasteboard's content: the copied text, who owned it, where it was copied, and
/// whether it was copied under the lock-down policy of a window of several accounts.
struct Pasteboard {
    var text: String
    var owner: Account?
    var source: BundleID
    var lockedDown = false
}
