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

    /// Phone number links: the dialer setting decides them, not the outbound data setting.
    public static let phoneSchemes: Set<String> = ["tel", "telprompt"]

    /// Messaging links: the messaging setting decides them.
    public static let messagingSchemes: Set<String> = ["sms", "mms"]

    /// The scheme a phone or messaging link opens with under `policy`: the specific app's
    /// (`customDialerAppProtocol`, `messagingRedirectAppUrlScheme`) when the policy names one,
    /// else the link's own.
    public static func dialerScheme(for scheme: String, policy: IosManagedAppProtection?) -> String {
        let key = scheme.lowercased()
        guard let p = policy else { return key }
        let custom: String?
        if phoneSchemes.contains(key), p.dialerRestrictionLevel == .customApp {
            custom = p.customDialerAppProtocol
        } else if messagingSchemes.contains(key), p.protectedMessagingRedirectAppType == .specificApps {
            custom = p.messagingRedirectAppUrlScheme
        } else {
            custom = nil
        }
        guard let name = custom?.lowercased().trimmingSuffix(":"), !name.isEmpty else { return key }
        return name
    }

    /// `protectedMessagingRedirectAppType` ("Transfer messaging data to"): any messaging app,
    /// a policy-managed one, the specific app of `messagingRedirectAppUrlScheme`, or none.
    static func messaging(scheme: String, entry o: AccountEntry, policy p: IosManagedAppProtection, in fleet: Fleet) -> Decision {
        switch p.protectedMessagingRedirectAppType {
        case .anyApp:
            return .allowed("\(o.subject) lets any messaging app take messaging links (protectedMessagingRedirectAppType = anyApp)")
        case .anyManagedApp:
            let handlers = fleet.apps.values.filter { $0.schemeKeys.contains(scheme) }
            if handlers.contains(where: { fleet.isPolicyManaged($0.bundleID, for: o.account) }) {
                return .allowed("\(o.subject) lets a policy-managed messaging app take messaging links (protectedMessagingRedirectAppType = anyManagedApp)")
            }
            return .blocked(.notExempt, because: "\(o.subject) lets only a policy-managed messaging app take messaging links (protectedMessagingRedirectAppType = anyManagedApp), and no policy-managed app handles \(scheme):")
        case .specificApps:
            let custom = dialerScheme(for: scheme, policy: p)
            guard custom != scheme, fleet.apps.values.contains(where: { $0.schemeKeys.contains(custom) }) else {
                return .blocked(.notExempt, because: "\(o.subject) sends messaging links to a specific app (protectedMessagingRedirectAppType = specificApps), but \(custom == scheme ? "it names no messagingRedirectAppUrlScheme" : "no installed app declares its scheme \(custom):")")
            }
            return .allowed("\(o.subject) sends messaging links to its messaging app (messagingRedirectAppUrlScheme = \(custom))")
        case .blocked:
            return .blocked(.notExempt, because: "\(o.subject) transfers messaging data to no app (protectedMessagingRedirectAppType = blocked)")
        }
    }

    /// `dialerRestrictionLevel` (Graph `managedAppPhoneNumberRedirectLevel`, "Transfer
    /// telecommunication data to"): any dialer app, a policy-managed one, the custom dialer app
    /// named by `customDialerAppProtocol`, or none.
    static func dialer(scheme: String, entry o: AccountEntry, policy p: IosManagedAppProtection, in fleet: Fleet) -> Decision {
        switch p.dialerRestrictionLevel {
        case .allApps:
            return .allowed("\(o.subject) lets any dialer app take phone numbers (dialerRestrictionLevel = allApps)")
        case .managedApps:
            let handlers = fleet.apps.values.filter { $0.schemeKeys.contains(scheme) }
            if handlers.contains(where: { fleet.isPolicyManaged($0.bundleID, for: o.account) }) {
                return .allowed("\(o.subject) lets a policy-managed dialer app take phone numbers (dialerRestrictionLevel = managedApps)")
            }
            return .blocked(.notExempt, because: "\(o.subject) lets only a policy-managed dialer app take phone numbers (dialerRestrictionLevel = managedApps), and no policy-managed app handles \(scheme):")
        case .customApp:
            let custom = dialerScheme(for: scheme, policy: p)
            guard custom != scheme, fleet.apps.values.contains(where: { $0.schemeKeys.contains(custom) }) else {
                return .blocked(.notExempt, because: "\(o.subject) sends phone numbers to a specific dialer app (dialerRestrictionLevel = customApp), but \(custom == scheme ? "it names no customDialerAppProtocol" : "no installed app declares its scheme \(custom):")")
            }
            return .allowed("\(o.subject) sends phone numbers to its dialer app (customDialerAppProtocol = \(custom))")
        case .blocked:
            return .blocked(.notExempt, because: "\(o.subject) transfers phone numbers to no app (dialerRestrictionLevel = blocked)")
        }
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
        if phoneSchemes.contains(key) { return dialer(scheme: key, entry: o, policy: p, in: fleet) }
        if messagingSchemes.contains(key) { return messaging(scheme: key, entry: o, policy: p, in: fleet) }
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

    /// Decides opening a web link (`http`/`https`) from data owned by `owner`. A web link
    /// always has somewhere to go — the app that claims it as a universal link, else the
    /// browser — so only "Restrict web content transfer with other apps"
    /// (`managedBrowserToOpenLinksRequired`) can stop it: the link must open in the managed
    /// browser, which must be installed (`browserInstalled`). Links listed in
    /// `exemptedUniversalLinks` open in their own app whatever the browser setting;
    /// `managedUniversalLinks` open in their policy-managed app (our reading; the patterns
    /// are compared case-insensitively, `*` matching any run of characters).
    public static func openWebLink(_ url: String, owner: Account?, browserInstalled: Bool, in fleet: Fleet) -> Decision {
        guard let o = fleet.managedEntry(owner) else {
            return .allowed("the link's data is unmanaged: the link opens where iOS sends it")
        }
        let p = o.policy!
        if let pattern = p.exemptedUniversalLinks.first(where: { linkMatches(url, $0) }) {
            return .allowed("\(o.subject) exempts the universal link \(pattern) (exemptedUniversalLinks): it opens in the app that claims it")
        }
        if let pattern = p.managedUniversalLinks.first(where: { linkMatches(url, $0) }) {
            return .allowed("\(o.subject) lists \(pattern) as a managed universal link (managedUniversalLinks): it opens in the policy-managed app that claims it")
        }
        guard p.managedBrowserToOpenLinksRequired else {
            return .allowed("\(o.subject) does not restrict web content (managedBrowserToOpenLinksRequired = false): the link opens in any browser")
        }
        let browser = managedBrowserName(p)
        guard browserInstalled else {
            return .blocked(.outboundPolicy, because: "\(o.subject) opens web links only in \(browser) (managedBrowserToOpenLinksRequired = true), which is not installed")
        }
        return .allowed("\(o.subject) opens web links in \(browser) (managedBrowserToOpenLinksRequired = true)")
    }

    /// The URL schemes of the browser a policy requires for web links: Edge's, or the
    /// custom browser's protocol.
    public static func managedBrowserSchemes(_ p: IosManagedAppProtection) -> [String] {
        if p.managedBrowser == .microsoftEdge { return ["microsoft-edge-https", "microsoft-edge-http"] }
        guard let custom = p.customBrowserProtocol?.lowercased(), !custom.isEmpty else { return [] }
        return [custom.hasSuffix("://") ? String(custom.dropLast(3)) : custom.hasSuffix(":") ? String(custom.dropLast()) : custom]
    }

    static func managedBrowserName(_ p: IosManagedAppProtection) -> String {
        p.managedBrowser == .microsoftEdge ? "Microsoft Edge" : "the browser of \(p.customBrowserProtocol ?? "customBrowserProtocol")"
    }

    /// `pattern` with `*` standing for any run of characters, compared without case.
    static func linkMatches(_ url: String, _ pattern: String) -> Bool {
        let u = Array(url.lowercased().utf8), q = Array(pattern.lowercased().utf8)
        var i = 0, j = 0, star = -1, mark = 0
        while i < u.count {
            if j < q.count, q[j] == UInt8(ascii: "*") { star = j; mark = i; j += 1 }
            else if j < q.count, q[j] == u[i] { i += 1; j += 1 }
            else if star >= 0 { j = star + 1; mark += 1; i = mark }
            else { return false }
        }
        while j < q.count, q[j] == UInt8(ascii: "*") { j += 1 }
        return j == q.count
    }
}

extension String {
    /// Without one trailing `suffix` (`"tel:"` → `"tel"`).
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
