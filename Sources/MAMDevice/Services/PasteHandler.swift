import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `paste`: the pasteboard's text as the receiving identity may have it (the clipboard rules,
/// RULES.md §3), or the placeholder the SDK gives instead.
enum PasteHandler: ServiceHandler {
    static func audit(_ call: Service.Paste) -> AuditPlan { .decides(.paste, receiver: call.as ?? "") }
    static func acting(_ call: Service.Paste) -> Acting { .namedOrCurrent(call.as) }

    static func answer(_ call: Service.Paste, _ c: CallContext) throws -> Answered<String> {
        let who = try c.namedOrCurrent(call.as)
        guard let board = c.desk.pasteboard else { return Answered(.allowed("the pasteboard is empty"), "") }
        let bundle = c.bundle
        let p = try c.decision { held in
            let fleet = board.lockedDown ? board.owner.map(held.lockingDown) ?? held : held
            return Enforcer.paste(board.text, owner: board.owner, copiedIn: board.source, into: bundle, as: who, in: fleet)
        }
        return Answered(p.decision, p.text)
    }
}
