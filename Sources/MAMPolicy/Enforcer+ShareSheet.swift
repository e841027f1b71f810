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
        guard let o = fleet.managedEntry(owner, in: source) else { return candidates.map(\.bundle) }
        let filter = o.policy!.filterOpenInToOnlyManagedApps
        // Org data that may not reach unmanaged apps is never offered as "Copy to <App>"
        // (seed 000): an app is reached through its "Open in" action extension, and share
        // extensions are listed when their rule accepts the Intune types.
        let noCopyTo = o.outboundSettings.level != .allApps
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

    /// One "Transfer … data to" setting as it applies to a link: "Transfer telecommunication
    /// data to" (`dialerRestrictionLevel`, Graph `managedAppPhoneNumberRedirectLevel`) for
    /// phone links, "Transfer messaging data to" (`protectedMessagingRedirectAppType`) for
    /// messaging links. Each says: any app, a policy-managed one, one specific app (by its URL
    /// scheme), or none.
    struct LinkRedirect {
        enum Level { case anyApp, managedApps, specificApp, none }
        let level: Level
        /// The Graph property and its value, for explanations (`dialerRestrictionLevel = allApps`).
        let setting: String
        /// The property naming the specific app's scheme, and its value (`nil` when unset).
        let specificProperty: String
        let specificScheme: String?
        /// `dialer` or `messaging`; `phone numbers` or `messaging links`.
        let app: String
        let data: String

        /// The setting that decides links of `scheme` under `p`; `nil` for other links.
        init?(scheme: String, policy p: IosManagedAppProtection) {
            func clean(_ s: String?) -> String? {
                guard let name = s?.lowercased().trimmingSuffix(":"), !name.isEmpty else { return nil }
                return name
            }
            if phoneSchemes.contains(scheme) {
                level = switch p.dialerRestrictionLevel {
                case .allApps: .anyApp
                case .managedApps: .managedApps
                case .customApp: .specificApp
                case .blocked: .none
                }
                setting = "dialerRestrictionLevel = \(p.dialerRestrictionLevel.rawValue)"
                (specificProperty, specificScheme) = ("customDialerAppProtocol", clean(p.customDialerAppProtocol))
                (app, data) = ("dialer", "phone numbers")
            } else if messagingSchemes.contains(scheme) {
                level = switch p.protectedMessagingRedirectAppType {
                case .anyApp: .anyApp
                case .anyManagedApp: .managedApps
                case .specificApps: .specificApp
                case .blocked: .none
                }
                setting = "protectedMessagingRedirectAppType = \(p.protectedMessagingRedirectAppType.rawValue)"
                (specificProperty, specificScheme) = ("messagingRedirectAppUrlScheme", clean(p.messagingRedirectAppUrlScheme))
                (app, data) = ("messaging", "messaging links")
            } else {
                return nil
            }
        }
    }

    /// The scheme a link opens with under `policy`: the specific app's when its "Transfer …
    /// data to" setting sends it to one and the scheme is not exempted, else the link's own.
    public static func dialerScheme(for scheme: String, policy: IosManagedAppProtection?) -> String {
        let key = scheme.lowercased()
        guard let p = policy, !p.exemptSchemeKeys.contains(key), let r = LinkRedirect(scheme: key, policy: p), r.level == .specificApp,
              let custom = r.specificScheme else { return key }
        return custom
    }

    /// Decides a phone or messaging link of org data by its "Transfer … data to" setting.
    static func redirect(_ r: LinkRedirect, scheme: String, entry o: AccountEntry, in fleet: Fleet) -> Verdict {
        switch r.level {
        case .anyApp:
            return .allowed("\(o.subject) lets any \(r.app) app take \(r.data) (\(r.setting))")
        case .managedApps:
            let handlers = fleet.apps.values.filter { $0.schemeKeys.contains(scheme) }
            if handlers.contains(where: { fleet.isPolicyManaged($0.bundleID, for: o.account) }) {
                return .allowed("\(o.subject) lets a policy-managed \(r.app) app take \(r.data) (\(r.setting))")
            }
            return .blocked(.notExempt, because: "\(o.subject) lets only a policy-managed \(r.app) app take \(r.data) (\(r.setting)), and no policy-managed app handles \(scheme):")
        case .specificApp:
            guard let custom = r.specificScheme, fleet.apps.values.contains(where: { $0.schemeKeys.contains(custom) }) else {
                return .blocked(.notExempt, because: "\(o.subject) sends \(r.data) to a specific \(r.app) app (\(r.setting)), but \(r.specificScheme.map { "no installed app declares its scheme \($0):" } ?? "it names no \(r.specificProperty)")")
            }
            return .allowed("\(o.subject) sends \(r.data) to its \(r.app) app (\(r.specificProperty) = \(custom))")
        case .none:
            return .blocked(.notExempt, because: "\(o.subject) transfers \(r.data) to no app (\(r.setting))")
        }
    }

    /// Decides opening a URL whose scheme is `scheme` with data owned by `owner` (a "mailto:"
    /// or "skype:" link from org content). The owner's outbound setting applies; under
    /// `managedApps` or `none` only exempted schemes (`exemptedAppProtocols`) or, under
    /// `managedApps`, schemes of apps policy-managed for the owner may open.
    public static func openURL(scheme: String, owner: Account?, from source: BundleID, in fleet: Fleet) -> Verdict {
        guard let o = fleet.managedEntry(owner, in: source) else {
            return .allowed("\(unmanagedReason(owner, in: source, fleet)): no policy applies to the link")
        }
        let p = o.policy!
        let key = scheme.lowercased()
        // An exempted scheme stays exempt even where the dialer or messaging setting would
        // decide it (memdocs: admins must remove tel, telprompt or sms from the exemptions for
        // those settings to take effect; RULES.md §2).
        if p.exemptSchemeKeys.contains(key) {
            let overrides = LinkRedirect(scheme: key, policy: p).map { "; it is not sent by \($0.setting)" } ?? ""
            return .allowed("\(o.subject) exempts the URL scheme \(scheme) (exemptedAppProtocols)\(overrides)")
        }
        if let redirect = LinkRedirect(scheme: key, policy: p) { return Self.redirect(redirect, scheme: key, entry: o, in: fleet) }
        if p.allowedOutboundDataTransferDestinations == .allApps {
            return .allowed("\(o.subject) sends org data to all apps")
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
    public static func openWebLink(_ url: String, owner: Account?, from source: BundleID, browserInstalled: Bool, in fleet: Fleet) -> Verdict {
        webLink(url, owner: owner, from: source, browserInstalled: browserInstalled, in: fleet).verdict
    }

    /// Where a web link goes when it may open.
    public enum WebLinkDestination: Sendable, Hashable {
        /// Where iOS sends it: the app that claims it as a universal link, else the browser.
        case whereIOSSendsIt
        /// The universal link's own app (exempted, or managed and claimed by a managed app).
        case claimingApp
        /// The browser the policy requires (Edge, or the custom browser).
        case managedBrowser
    }

    /// `openWebLink`'s verdict and where the link goes.
    public static func webLink(_ url: String, owner: Account?, from source: BundleID, browserInstalled: Bool,
                               in fleet: Fleet) -> (verdict: Verdict, opensIn: WebLinkDestination) {
        // Where iOS sends a web link: the installed app that claims its domain (its associated
        // domains, exact or `*.`), SDK or not, else the default browser.
        let claimant = fleet.apps.values.filter { $0.bundleID != source && $0.claimsUniversalLink(url) }.min { $0.bundleID.rawValue < $1.bundleID.rawValue }
        func whereIOSSendsIt(_ why: String) -> (verdict: Verdict, opensIn: WebLinkDestination) {
            guard let claimant else { return (.allowed("\(why): the link opens where iOS sends it"), .whereIOSSendsIt) }
            return (.allowed("\(why): the link opens in \(claimant.bundleID), which claims its domain (associated domains)"), .claimingApp)
        }
        guard let o = fleet.managedEntry(owner, in: source) else {
            return whereIOSSendsIt("the link's data is unmanaged")
        }
        let p = o.policy!
        if let pattern = p.exemptedUniversalLinks.first(where: { universalLinkMatches(url, $0) }) {
            return (.allowed("\(o.subject) exempts the universal link \(pattern) (exemptedUniversalLinks): it opens in the app that claims it"), .claimingApp)
        }
        if let pattern = p.managedUniversalLinks.first(where: { universalLinkMatches(url, $0) }) {
            let claimant = fleet.apps.values.first { $0.claimsUniversalLink(url) && fleet.isPolicyManaged($0.bundleID, for: o.account) }
            if let claimant {
                return (.allowed("\(o.subject) lists \(pattern) as a managed universal link (managedUniversalLinks): it opens in \(claimant.bundleID), the policy-managed app that claims it"), .claimingApp)
            }
            // No policy-managed app on the device opens it: the protected browser, when the
            // policy requires one and it is installed, never iOS (RULES.md §2).
            if p.managedBrowserToOpenLinksRequired, browserInstalled {
                return (.allowed("\(o.subject) lists \(pattern) as a managed universal link (managedUniversalLinks), and no policy-managed app on the device claims it: it opens in \(managedBrowserName(p))"), .managedBrowser)
            }
            if !p.managedBrowserToOpenLinksRequired {
                return whereIOSSendsIt("\(o.subject) lists \(pattern) as a managed universal link (managedUniversalLinks); no policy-managed app on the device claims it, and web links are not restricted")
            }
        }
        guard p.managedBrowserToOpenLinksRequired else {
            return whereIOSSendsIt("\(o.subject) does not restrict web content (managedBrowserToOpenLinksRequired = false)")
        }
        let browser = managedBrowserName(p)
        guard browserInstalled else {
            return (.blocked(.outboundPolicy, because: "\(o.subject) opens web links only in \(browser) (managedBrowserToOpenLinksRequired = true), which is not installed"), .managedBrowser)
        }
        return (.allowed("\(o.subject) opens web links in \(browser) (managedBrowserToOpenLinksRequired = true)"), .managedBrowser)
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

    /// A universal-link pattern: with `*` standing for any run of characters; one that names
    /// only an origin (`https://maps.apple.com`, as Intune's defaults do) stands for every link
    /// of that origin — its paths, queries and fragments, not a longer host name.
    static func universalLinkMatches(_ url: String, _ pattern: String) -> Bool {
        if linkMatches(url, pattern) { return true }
        guard let origin = pattern.firstRange(of: "://"), !pattern[origin.upperBound...].contains(where: { "/?#".contains($0) }) else { return false }
        return ["/*", "?*", "#*"].contains { linkMatches(url, pattern + $0) }
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
