import MAMModel
import MAMPolicy
import Testing

@Suite("Data transfer: exemptions, OS sharing, re-owning")
struct TransferRulesTests {
    typealias W = World

    @Test func defaultExemptedSchemeOpensALinkButDoesNotLetAShareOut() {
        // com.skype.skype declares "Skype": the default list exempts "skype" (any case), for links.
        #expect(Enforcer.openURL(scheme: "Skype", owner: W.alice, from: World.mine, in: W.fleet()).explanation.contains("exemptedAppProtocols"))
        let d = Enforcer.transfer(owner: W.alice, from: W.mine, to: W.skypeLike, receivedAs: nil, in: W.fleet())
        #expect(d.decision.blockedBy == .outboundPolicy)
    }

    @Test func defaultExemptionsAreIntunesList() {
        let keys = IosManagedAppProtection().exemptSchemeKeys
        #expect(keys == ["skype", "app-settings", "itms", "itmss", "itms-apps", "itms-appss", "itms-services", "calshow"])
    }

    /// RULES.md §2: exempted URL schemes apply to launches by URL (`openURL`) only; an Open-in
    /// or share of org data to an exempt app is judged by the transfer table like any other.
    @Test func exemptedSchemesOpenLinksButNeverLetAShareThrough() {
        var p = W.strictPolicy()
        p.allowedOutboundDataTransferDestinations = .none
        let fleet = W.fleet(policy: p)
        #expect(Enforcer.transfer(owner: W.alice, from: W.mine, to: W.outlook, receivedAs: W.alice, in: fleet).decision.blockedBy == .outboundPolicy)
        #expect(Enforcer.transfer(owner: W.alice, from: W.mine, to: W.skypeLike, receivedAs: nil, in: fleet).decision.blockedBy == .outboundPolicy)
        #expect(Enforcer.openURL(scheme: "skype", owner: W.alice, from: World.mine, in: fleet).isAllowed)
    }

    @Test func customExemptionListReplacesTheDefaultForLinks() {
        var p = W.strictPolicy()
        p.exemptedAppProtocols = [KeyValuePair(name: "Notes", value: " notes ; other;")]
        let fleet = W.fleet(policy: p)
        #expect(Enforcer.openURL(scheme: "notes", owner: W.alice, from: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.openURL(scheme: "skype", owner: W.alice, from: World.mine, in: fleet).blockedBy == .notExempt)
        #expect(Enforcer.transfer(owner: W.alice, from: W.mine, to: W.notes, receivedAs: nil, in: fleet).decision.blockedBy == .outboundPolicy)
    }

    /// "Policy managed apps with OS sharing": files only, MDM-managed destinations only, on an
    /// MDM-enrolled device only; allowOpenFromManagedToUnmanaged never stops a managed
    /// (MDM-managed) destination.
    @Test(arguments: [
        (true, true, true, nil as Bool?, true),
        (true, true, true, false, true),
        (false, true, true, nil, false),
        (true, false, true, nil, false),
        (true, true, false, nil, false),
    ])
    func osSharingCarriesFilesToMdmManagedAppsOnEnrolledDevices(_ isFile: Bool, _ enrolled: Bool, _ mdmManaged: Bool,
                                                                 _ openToUnmanaged: Bool?, _ allowed: Bool) {
        var p = W.strictPolicy()
        p.disableProtectionOfManagedOutboundOpenInData = true
        var fleet = W.fleet(policy: p, device: DeviceFacts(mdmEnrolled: enrolled))
        fleet.install(AppDescriptor(bundleID: W.notes, sdkIntegrated: false, mdmManaged: mdmManaged))
        if let openToUnmanaged { fleet.device.restrictions["allowOpenFromManagedToUnmanaged"] = openToUnmanaged }
        let d = Enforcer.transfer(owner: W.alice, from: W.mine, to: W.notes, receivedAs: nil, isFile: isFile, in: fleet)
        #expect(d.isAllowed == allowed, "\(d.decision)")
        if !allowed { #expect(d.decision.blockedBy == .outboundPolicy) }
    }

    @Test func incomingOrgDataReownsUnmanagedDataByTheReceiver() {
        var p = W.strictPolicy()
        p.allowedInboundDataTransferSources = .allApps
        p.protectInboundDataFromUnknownSources = true
        var fleet = W.fleet(policy: p, device: DeviceFacts(mdmEnrolled: true))
        // MDM-only: on an unenrolled device the value is plain allApps, nothing is re-owned.
        fleet.device.mdmEnrolled = false
        let plain = Enforcer.transfer(owner: nil, from: W.notes, to: W.mine, receivedAs: W.alice, in: fleet)
        #expect(plain.isAllowed && plain.reowned == nil, "\(plain)")
        fleet.device.mdmEnrolled = true
        let d = Enforcer.transfer(owner: nil, from: W.notes, to: W.mine, receivedAs: W.alice, in: fleet)
        #expect(d.isAllowed)
        #expect(d.reowned == W.alice)
        #expect(d.owner(after: nil) == W.alice)
        #expect(d.decision.explanation.contains("now belongs to alice@contoso.com"))
        // Data already owned by the managed account keeps its owner.
        let own = Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.mine, receivedAs: W.alice, in: fleet)
        #expect(own.isAllowed && own.reowned == nil)
    }

    @Test func inboundAllAppsWithoutIncomingOrgDataKeepsTheOwner() {
        var p = W.strictPolicy()
        p.allowedInboundDataTransferSources = .allApps
        let d = Enforcer.transfer(owner: W.bob, from: W.notes, to: W.mine, receivedAs: W.alice, in: W.fleet(policy: p))
        #expect(d.isAllowed && d.reowned == nil)
    }

    @Test func inboundNoneRefusesEvenManagedApps() {
        var p = W.strictPolicy()
        p.allowedInboundDataTransferSources = .none
        let d = Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.mine, receivedAs: W.alice, in: W.fleet(policy: p))
        #expect(d.decision.blockedBy == .inboundPolicy)
    }

    @Test func canReceiveSharedFileAppliesTheTransferChecks() {
        let fleet = W.fleet()
        #expect(Enforcer.canReceiveSharedFile(owner: nil, from: W.notes, into: W.mine, as: W.alice, in: fleet).decision.blockedBy == .inboundPolicy)
        #expect(Enforcer.canReceiveSharedFile(owner: W.alice, from: W.outlook, into: W.mine, as: W.alice, in: fleet).isAllowed)
    }

    @Test func canReceiveSharedItemProviderNeedsTheHostsOwnerTag() {
        let fleet = W.fleet()
        var item = Item(id: "1", typeIdentifiers: ["public.plain-text"], payload: .inline(Array("hi".utf8)))
        #expect(Enforcer.canReceiveSharedItemProvider(item, into: W.mine, as: W.alice, in: fleet).decision.blockedBy == .badRequest)
        item.ownership = Ownership(upn: "alice@contoso.com", oid: "", managed: true, sourceBundle: W.outlook)
        #expect(Enforcer.canReceiveSharedItemProvider(item, into: W.mine, as: W.alice, in: fleet).isAllowed)
        #expect(Enforcer.canReceiveSharedItemProvider(item, into: W.mine, as: W.bob, in: fleet).decision.blockedBy == .outboundPolicy)
    }

    @Test func urlToANonExemptSchemeIsNotExempt() {
        var p = W.strictPolicy()
        p.allowedOutboundDataTransferDestinations = .none
        let fleet = W.fleet(policy: p)
        #expect(Enforcer.openURL(scheme: "notes", owner: W.alice, from: World.mine, in: fleet).blockedBy == .notExempt)
        #expect(Enforcer.openURL(scheme: "ITMS-APPS", owner: W.alice, from: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.openURL(scheme: "notes", owner: W.bob, from: World.mine, in: fleet).isAllowed)
    }

    /// "Transfer messaging data to" (protectedMessagingRedirectAppType) decides sms: links,
    /// not the outbound data setting (the strict policy sends org data to managed apps only).
    @Test(arguments: [
        (MessagingRedirectAppType.anyApp, nil as Reason?),
        (.blocked, .notExempt),
        (.specificApps, .notExempt),
        (.anyManagedApp, .notExempt),
    ])
    func messagingLinksFollowTheMessagingSetting(type: MessagingRedirectAppType, expected: Reason?) {
        var p = W.strictPolicy()
        p.protectedMessagingRedirectAppType = type
        let d = Enforcer.openURL(scheme: "sms", owner: W.alice, from: World.mine, in: W.fleet(policy: p))
        #expect(d.blockedBy == expected, "\(type): \(d)")
    }

    /// "Transfer telecommunication data to" (dialerRestrictionLevel) decides phone links the
    /// same way.
    @Test(arguments: [
        (DialerRestrictionLevel.allApps, nil as String?, nil as Reason?),
        (.blocked, nil, .notExempt),
        (.customApp, nil, .notExempt),
        (.customApp, "acmedial", .notExempt),
        (.managedApps, nil, .notExempt),
    ])
    func phoneLinksFollowTheDialerSetting(level: DialerRestrictionLevel, custom: String?, expected: Reason?) {
        var p = W.strictPolicy()
        p.dialerRestrictionLevel = level
        p.customDialerAppProtocol = custom
        let fleet = W.fleet(policy: p)
        let d = Enforcer.openURL(scheme: "tel", owner: W.alice, from: World.mine, in: fleet)
        #expect(d.blockedBy == expected, "\(level) \(custom ?? "-"): \(d)")
    }


    /// RULES §2 (memdocs, dialer and messaging settings): a scheme listed in
    /// exemptedAppProtocols stays exempt whatever the dialer or messaging setting says, and is
    /// not sent to a custom dialer; removed from the exemptions, the setting decides.
    @Test(arguments: [
        ("tel", true, nil as Reason?), ("telprompt", true, nil), ("sms", true, nil),
        ("tel", false, .notExempt), ("sms", false, .notExempt),
    ])
    func anExemptedSchemeBeatsTheDialerAndMessagingSettings(scheme: String, exempted: Bool, expected: Reason?) {
        var p = W.strictPolicy()
        p.dialerRestrictionLevel = .customApp
        p.customDialerAppProtocol = "acmedial"
        p.protectedMessagingRedirectAppType = .blocked
        p.exemptedAppProtocols = IosManagedAppProtection.defaultExemptedAppProtocols
            + (exempted ? [KeyValuePair(name: "Phone and messages", value: "tel;telprompt;sms")] : [])
        let d = Enforcer.openURL(scheme: scheme, owner: W.alice, from: World.mine, in: W.fleet(policy: p))
        #expect(d.blockedBy == expected, "\(scheme), exempted \(exempted): \(d)")
        if scheme.hasPrefix("tel") {
            #expect(Enforcer.dialerScheme(for: scheme, policy: p) == (exempted ? scheme : "acmedial"))
        }
    }
}

@Suite("Share sheet filtering")
struct ShareSheetTests {
    typealias W = World
    let candidates = [ShareCandidate(World.outlook, receivedAs: World.alice), ShareCandidate(World.notes),
                      ShareCandidate(World.word, receivedAs: World.alice)]

    /// Seed 000: org data that may not reach unmanaged apps is never offered as "Copy to
    /// <App>"; Word is reached through its "Open in" action extension.
    @Test func managedAppsOffersNoCopyToEntries() {
        let listed = Enforcer.shareTargets(owner: W.alice, from: W.mine, candidates: candidates, in: W.fleet())
        #expect(listed == [W.wordOpenIn])
        var filtered = W.strictPolicy()
        filtered.filterOpenInToOnlyManagedApps = true
        #expect(Enforcer.shareTargets(owner: W.alice, from: W.mine, candidates: candidates, in: W.fleet(policy: filtered)) == [W.wordOpenIn])
    }

    @Test func allAppsListsEveryCopyToEntryAndFilteringKeepsOnlyThoseThatWouldPass() {
        var p = W.strictPolicy()
        p.allowedOutboundDataTransferDestinations = .allApps
        #expect(Enforcer.shareTargets(owner: W.alice, from: W.mine, candidates: candidates, in: W.fleet(policy: p)) == [W.outlook, W.notes, W.wordOpenIn])
        p.filterOpenInToOnlyManagedApps = true
        p.allowedInboundDataTransferSources = .allApps
        let listed = Enforcer.shareTargets(owner: W.alice, from: W.mine, candidates: candidates, in: W.fleet(policy: p))
        #expect(listed == [W.outlook, W.notes, W.wordOpenIn], "all apps: every transfer would pass")
        #expect(Enforcer.shareTargets(owner: W.bob, from: W.mine, candidates: candidates, in: W.fleet()) == [W.outlook, W.notes, W.word], "personal data: no filtering")
    }

    @Test func copyToAppIsReplacedByItsOpenInActionExtension() {
        let listed = Enforcer.shareTargets(owner: W.alice, from: W.mine, candidates: [ShareCandidate(W.word, receivedAs: W.alice)], in: W.fleet())
        #expect(listed == [W.wordOpenIn])
    }

    @Test func unmanagedDataListsEveryCandidateUnchanged() {
        let listed = Enforcer.shareTargets(owner: W.bob, from: W.mine, candidates: candidates, in: W.fleet())
        #expect(listed == [W.outlook, W.notes, W.word])
    }
}

/// Web links from org data (RULES.md §2, the v1.1 `openURL` verb).
@Suite("Web links and universal links")
struct WebLinkTests {
    static func fleet(_ change: (inout IosManagedAppProtection) -> Void) -> Fleet {
        var p = World.strictPolicy()
        change(&p)
        return World.fleet(policy: p)
    }

    /// owner, URL, browser required, browser installed → the reason (`nil` = opens) and where
    /// the link goes.
    @Test(arguments: [
        ("bob", "https://contoso.com/q3", true, false, nil as Reason?, Enforcer.WebLinkDestination.whereIOSSendsIt),
        ("alice", "https://contoso.com/q3", false, false, nil, .whereIOSSendsIt),
        ("alice", "https://contoso.com/q3", true, true, nil, .managedBrowser),
        ("alice", "https://contoso.com/q3", true, false, .outboundPolicy, .managedBrowser),
        ("alice", "https://facetime.apple.com/join/1", true, false, nil, .claimingApp),   // exempt universal link
        ("alice", "HTTPS://Teams.Microsoft.com/l/chat", true, true, nil, .claimingApp),  // managed universal link, Teams installed
        ("alice", "https://teams.microsoft.com.evil.example/l", true, false, .outboundPolicy, .managedBrowser),
        // RULES §2: a managed universal link no policy-managed app on the device opens goes to
        // the required protected browser when installed, never to iOS
        ("alice", "https://sharepoint.contoso.com/q3", true, true, nil, .managedBrowser),
        ("alice", "https://sharepoint.contoso.com/q3", true, false, .outboundPolicy, .managedBrowser),
        ("alice", "https://sharepoint.contoso.com/q3", false, false, nil, .whereIOSSendsIt),
    ])
    func webLink(owner: String, url: String, required: Bool, installed: Bool, expected: Reason?, opensIn: Enforcer.WebLinkDestination) {
        var fleet = Self.fleet {
            $0.managedBrowserToOpenLinksRequired = required
            $0.managedBrowser = .microsoftEdge
            $0.exemptedUniversalLinks = ["https://facetime.apple.com/*"]
            $0.managedUniversalLinks = ["https://teams.microsoft.com/*", "https://sharepoint.contoso.com/*"]
        }
        // Teams, a policy-managed app, claims teams.microsoft.com; no app claims SharePoint's.
        var teams = AppDescriptor(bundleID: "com.microsoft.skype.teams")
        teams.associatedDomains = ["*.teams.microsoft.com", "teams.microsoft.com"]
        fleet.install(teams)
        let d = Enforcer.webLink(url, owner: owner == "alice" ? World.alice : World.bob, from: World.mine, browserInstalled: installed, in: fleet)
        #expect(d.verdict.blockedBy == expected, "\(owner) opens \(url): \(d.verdict)")
        #expect(d.opensIn == opensIn, "\(owner) opens \(url) in \(d.opensIn)")
    }

    /// Intune's default exemptions (a policy that does not say): Apple Maps and FaceTime, every
    /// link of those origins and no other host; an explicit list, even empty, replaces them.
    @Test(arguments: [
        (nil as [String]?, "https://maps.apple.com/?q=Contoso", nil as Reason?),
        (nil, "http://maps.apple.com", nil),
        (nil, "https://facetime.apple.com/join#v=1&p=abc", nil),
        (nil, "https://maps.apple.com.evil.example/?q=x", .outboundPolicy),
        (nil, "https://apple.com/maps", .outboundPolicy),
        ([], "https://maps.apple.com/?q=Contoso", .outboundPolicy),
        (["https://contoso.com"], "https://contoso.com/q3?x=1", nil),
        (["https://contoso.com"], "https://maps.apple.com/?q=Contoso", .outboundPolicy),
    ])
    func defaultUniversalLinkExemptions(list: [String]?, url: String, expected: Reason?) {
        let fleet = Self.fleet {
            $0.managedBrowserToOpenLinksRequired = true
            $0.managedBrowser = .microsoftEdge
            if let list { $0.exemptedUniversalLinks = list }
        }
        let d = Enforcer.openWebLink(url, owner: World.alice, from: World.mine, browserInstalled: false, in: fleet)
        #expect(d.blockedBy == expected, "\(list ?? ["(default)"]) · \(url): \(d)")
    }

    @Test func theRequiredBrowsersSchemes() {
        var p = World.strictPolicy()
        p.managedBrowser = .microsoftEdge
        #expect(Enforcer.managedBrowserSchemes(p) == ["microsoft-edge-https", "microsoft-edge-http"])
        p.managedBrowser = .notConfigured
        p.customBrowserProtocol = "contoso-browser://"
        #expect(Enforcer.managedBrowserSchemes(p) == ["contoso-browser"])
    }
}
