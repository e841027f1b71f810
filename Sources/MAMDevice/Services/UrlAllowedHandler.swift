import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `url_allowed`: IntuneMAMPolicy's isURLAllowed and isUniversalLinkAllowed, the policy's answer
/// for a link opened by the data of an account (the current identity by default), decided as
/// opening it would be (RULES.md §2) without opening it. A read: logged only when refused.
enum UrlAllowedHandler: ServiceHandler {
    static func audit(_ call: Service.UrlAllowed) -> AuditPlan { .refusalsOnly(.openURL) }

    static func answer(_ call: Service.UrlAllowed, _ c: CallContext) throws -> Answered<Void> {
        let owner = try call.as.map { try c.enrolled(c.named($0)) } ?? c.current()
        return Answered(c.desk.linkDecision(call.url, universalLink: call.universalLink, owner: owner, for: c.app, in: try c.fleet()).verdict)
    }
}
