import MAMDeviceState
public import MAMModel
import MAMPolicy
import MAMWire

extension ServiceDesk {
    // MARK: - Links

    /// The app opens `url` from the data it shows (`UIApplication.open`): a custom scheme goes
    /// to the installed app that declares it, judged by the owner's outbound setting and its
    /// exempted schemes; a web link by the web-content rules (RULES.md §2). Returns the
    /// decision and the app that takes the link, if any.
    public func openURL(_ url: String, for app: AppSpec) throws -> (Verdict, handler: String?) {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex,
              url[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) else {
            let d = Verdict.failed(.badRequest, "\"\(url)\" is not a URL: it needs a scheme such as https: or mailto:")
            audit.record(verb: .openURL, source: app.handle, destination: url, d)
            return (d, nil)
        }
        let owner = try identities.current(of: app)
        if let refused = try refusedAfterConditionalLaunch(.current, for: app, in: .main) {
            audit.record(verb: .openURL, source: app.handle, sourceIdentity: owner?.upn ?? "", destination: url, refused)
            return (.blocked(refused.reason ?? .conditionalLaunch, because: refused.explanation), nil)
        }
        let (decision, handler) = linkDecision(url, universalLink: false, owner: owner, for: app, in: fleet)
        audit.record(verb: .openURL, source: app.handle, sourceIdentity: owner?.upn ?? "", destination: handler ?? url,
                     owner: owner?.upn ?? "", decision)
        return (decision, handler)
    }

    /// What opening `url` by `owner`'s data in `app` comes to, and the app that takes it: a web
    /// link by the web-content rules, a custom scheme by the owner's outbound setting and its
    /// exempted schemes (`universalLink`: a web link opened only as a universal link). The
    /// policy's answer alone: nothing is opened or logged.
    func linkDecision(_ url: String, universalLink: Bool, owner: Account?, for app: AppSpec, in fleet: Fleet) -> (verdict: Verdict, handler: String?) {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex,
              url[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) else {
            return (.failed(.badRequest, "\"\(url)\" is not a URL: it needs a scheme such as https: or mailto:"), nil)
        }
        let scheme = url[..<colon].lowercased()
        if scheme == "http" || scheme == "https" {
            let policy = fleet.policy(for: owner, in: app.bundleID)
            let browsers = policy.map(Enforcer.managedBrowserSchemes) ?? []
            let browser = registry.specs.first { spec in spec.descriptor.schemeKeys.contains(where: browsers.contains) }
            let link = Enforcer.webLink(url, owner: owner, from: app.bundleID, browserInstalled: browser != nil, in: fleet)
            // The required browser, or the fleet app that claims a universal link by its
            // associated domains; the default browser is iOS's choice.
            switch link.opensIn {
            case .managedBrowser:
                // Only as a universal link, a link the policy sends to the managed browser opens nowhere.
                if universalLink { return (.blocked(.outboundPolicy, because: "\(owner.map(\.description) ?? "the data")'s policy opens web links in a managed browser only, not as universal links"), nil) }
                return (link.verdict, browser?.handle)
            case .claimingApp: return (link.verdict, registry.specs.first { $0.bundleID != app.bundleID && $0.descriptor.claimsUniversalLink(url) }?.handle)
            case .whereIOSSendsIt: return (link.verdict, nil)
            }
        }
        // A phone link goes to the custom dialer app when the owner's policy names one.
        let opensWith = Enforcer.dialerScheme(for: scheme, policy: fleet.policy(for: owner, in: app.bundleID))
        guard let target = registry.specs.first(where: { $0.bundleID != app.bundleID && $0.descriptor.schemeKeys.contains(opensWith) }) else {
            return (.failed(.unknownApp, "no installed app declares the URL scheme \(scheme): (CFBundleURLSchemes)"), nil)
        }
        return (Enforcer.openURL(scheme: scheme, owner: owner, from: app.bundleID, in: fleet), target.handle)
    }
}
