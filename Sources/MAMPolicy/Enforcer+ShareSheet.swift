public import MAMModel

/// One destination a share sheet could list, with the identity it would receive as.
public struct ShareCandidate: Sendable, Hashable {
    public var bundle: BundleID
    public var receivedAs: Account?
    public init(_ bundle: BundleID, receivedAs: Account? = nil) {
        self.bundle = bundle
        self.receivedAs = receivedAs
    }
}

extension Enforcer {
    /// Which candidates a share sheet lists for an item owned by `owner` shared from `source`
    /// (RULES.md §2, "Share sheet filtering"), in the candidates' order.
    ///
    /// With `filterOpenInToOnlyManagedApps` on the owner's policy only destinations that would
    /// pass both transfer checks are listed; otherwise every candidate is listed and the
    /// transfer itself decides. When the owner is managed, a destination app that has an
    /// "Open in" action extension (`OpenInActionExtension`) is listed as that extension,
    /// replacing its "Copy to <App>" entry, and when the owner's policy does not send org
    /// data to all apps no "Copy to <App>" entry is listed at all (seed 000).
    public static func shareTargets(owner: Account?, from source: BundleID, candidates: [ShareCandidate],
                                    in fleet: Fleet) -> [BundleID] {
        guard let o = fleet.managedEntry(owner) else { return candidates.map(\.bundle) }
        let filter = o.policy!.filterOpenInToOnlyManagedApps
        // Org data that may not reach unmanaged apps is never offered as "Copy to <App>"
        // (seed 000): an app is reached through its "Open in" action extension, and share
        // extensions are listed when their rule accepts the Intune types.
        let noCopyTo = o.outbound != .allApps
        var listed: [BundleID] = []
        for candidate in candidates {
            var shown = candidate.bundle
            if let replacement = openInExtension(of: candidate.bundle, in: fleet) {
                shown = replacement
            } else if noCopyTo, let app = fleet.app(candidate.bundle), !app.isExtension {
                continue
            }
            if filter {
                let d = transfer(owner: owner, from: source, to: shown, receivedAs: candidate.receivedAs, in: fleet)
                if !d.isAllowed { continue }
            }
            if !listed.contains(shown) { listed.append(shown) }
        }
        return listed
    }

    /// The action extension with `OpenInActionExtension` contained in `app`, if any.
    static func openInExtension(of app: BundleID, in fleet: Fleet) -> BundleID? {
        guard let a = fleet.app(app), !a.isExtension else { return nil }
        let found = fleet.apps.values.filter { $0.kind == .action && $0.openInActionExtension && $0.containingApp == app }
        return found.map(\.bundleID).min()
    }

    /// Decides opening a URL whose scheme is `scheme` with data owned by `owner` (a "mailto:"
    /// or "skype:" link from org content). The owner's outbound setting applies; under
    /// `managedApps` or `none` only exempted schemes (`exemptedAppProtocols`) or, under
    /// `managedApps`, schemes of apps policy-managed for the owner may open.
    public static func openURL(scheme: String, owner: Account?, in fleet: Fleet) -> Decision {
        guard let o = fleet.managedEntry(owner) else {
            return .allowed("the link's data is unmanaged: no policy applies")
        }
        let p = o.policy!
        let key = scheme.lowercased()
        if p.allowedOutboundDataTransferDestinations == .allApps {
            return .allowed("\(o.subject) sends org data to all apps")
        }
        if p.exemptSchemeKeys.contains(key) {
            return .allowed("\(o.subject) exempts the URL scheme \(scheme) (exemptedAppProtocols)")
        }
        if p.allowedOutboundDataTransferDestinations == .managedApps {
            let handlers = fleet.apps.values.filter { $0.schemeKeys.contains(key) }
            if handlers.contains(where: { fleet.isPolicyManaged($0.bundleID, for: o.account) }) {
                return .allowed("\(o.subject) sends org data to policy-managed apps; a policy-managed app handles \(scheme):")
            }
        }
        return .blocked(.notExempt, because: "\(o.subject) sends org data to \(p.allowedOutboundDataTransferDestinations == .none ? "no app" : "policy-managed apps only"); the URL scheme \(scheme) is not exempt (exemptedAppProtocols)")
    }
}
