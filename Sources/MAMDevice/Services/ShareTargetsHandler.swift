import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `share_targets`: what the share sheet lists for an item the app shares now: every other
/// app, and every extension whose activation rule accepts the item (managed data is offered
/// only to extensions accepting the Intune types), filtered by the owner's policy; an app's
/// "Open in" action extension replaces its "Copy to" entry for managed data.
enum ShareTargetsHandler: ServiceHandler {
    static func audit(_ call: Service.ShareTargets) -> AuditPlan { .refusalsOnly(.shareTargets) }
    static func acting(_ call: Service.ShareTargets) -> Acting { .current }

    static func answer(_ call: Service.ShareTargets, _ c: CallContext) throws -> Answered<[String]> {
        let owner = try c.current()
        let fleet = c.state.fleet
        let managed = fleet.isManaged(owner, in: c.bundle)
        var candidates: [ShareCandidate] = []
        for other in c.desk.registry.specs where other.bundleID != c.bundle {
            if other.descriptor.kind != .app {
                guard let accepts = other.activation, accepts(call.types, managed).activated else { continue }
            }
            candidates.append(ShareCandidate(other.bundleID, receivedAs: try c.identities.receiver(of: other)))
        }
        let listed = Enforcer.shareTargets(owner: owner, from: c.bundle, candidates: candidates, in: fleet)
        return Answered(.allowed("the share sheet"), listed.compactMap { c.desk.registry.app(withBundle: $0)?.handle })
    }
}
