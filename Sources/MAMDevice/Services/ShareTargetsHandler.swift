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
        let (owner, bundle) = (try c.current(), c.bundle)
        // The candidates for the item as the policy makes it, managed or personal; while a run's
        // reads are recorded, for both (a decision asked again under another policy may say
        // otherwise).
        let kinds = PolicyReads.isRecording ? [true, false] : [c.state.fleet.isManaged(owner, in: bundle)]
        var candidates: [Bool: [ShareCandidate]] = [:]
        for other in c.desk.registry.specs where other.bundleID != bundle {
            let takes = kinds.filter { managed in
                other.descriptor.kind == .app || other.activation?(call.types, managed).activated == true
            }
            guard !takes.isEmpty else { continue }
            let candidate = ShareCandidate(other.bundleID, receivedAs: try c.identities.receiver(of: other))
            for managed in takes { candidates[managed, default: []].append(candidate) }
        }
        let offered = candidates
        let listed = PolicyReads.decision(in: c.state.fleet) { fleet in
            Enforcer.shareTargets(owner: owner, from: bundle, candidates: offered[fleet.isManaged(owner, in: bundle)] ?? [], in: fleet)
        }
        return Answered(.allowed("the share sheet"), listed.compactMap { c.desk.registry.app(withBundle: $0)?.handle })
    }
}
