import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `notify`: a notification of an account's data, shown as its policy allows (full, without
/// the text, or not at all).
enum NotifyHandler: ServiceHandler {
    static func audit(_ call: Service.Notify) -> AuditPlan { .decides(.notify, owner: call.account) }
    static func acting(_ call: Service.Notify) -> Acting { .named(call.account) }

    static func answer(_ call: Service.Notify, _ c: CallContext) throws -> Answered<String> {
        let (text, owner, bundle) = (call.text, try c.signedIn(call.account), c.bundle)
        let n = try c.decision { Enforcer.notification(text, of: owner, app: bundle, in: $0) }
        guard let shown = n.shownText else { return Answered(n.decision) }
        return Answered(.allowed(n.decision.explanation), shown)
    }
}
