import MAMModel
@testable import MAMPolicy
import PropertyBased
import Testing

/// Installing one app rebuilds only the entries it changes (its own and its extensions'), so
/// after any sequence of installs, replacements and uninstalls every entry must still be what
/// the descriptors alone imply: an extension is managed as its installed containing app.
@Suite struct FleetInstallTests {
    static let apps = ["com.contoso.one", "com.contoso.two", "com.microsoft.office.outlook"]
    static let extensions = ["com.contoso.share", "com.contoso.action"]

    static func recased(_ id: String, _ flip: Bool) -> BundleID { BundleID(flip ? id.uppercased() : id) }

    /// One step from one number: install an app, install an extension (or the same id as a
    /// plain app), or uninstall one of either.
    static func apply(_ n: Int, to fleet: inout Fleet) {
        let flip = (n / 32) % 2 == 1, sdk = (n / 16) % 2 == 0
        switch n % 4 {
        case 0, 1:
            fleet.install(AppDescriptor(bundleID: recased(apps[(n / 4) % apps.count], flip), sdkIntegrated: sdk))
        case 2:
            let id = recased(extensions[(n / 4) % extensions.count], flip)
            if (n / 128) % 2 == 0 {
                fleet.install(AppDescriptor(bundleID: id, sdkIntegrated: sdk))
            } else {
                let container = recased(apps[(n / 8) % apps.count], !flip)
                fleet.install(AppDescriptor(bundleID: id, kind: .share, sdkIntegrated: sdk, containingApp: container))
            }
        default:
            let all = apps + extensions
            fleet.uninstall(recased(all[(n / 4) % all.count], flip))
        }
    }

    static func expectEntriesFollowTheDescriptors(_ fleet: Fleet) {
        for id in apps + extensions {
            let bundle = BundleID(id)
            guard let app = fleet.apps[bundle] else {
                #expect(fleet.appEntry(bundle) == nil, "\(id) is not installed but keeps an entry")
                continue
            }
            let subject = app.isExtension ? (app.containingApp.flatMap { fleet.apps[$0] } ?? app) : app
            guard let entry = fleet.appEntry(bundle) else {
                Issue.record("\(id) is installed but has no entry")
                continue
            }
            #expect(entry.app == app)
            #expect(entry.managementBundle == subject.bundleID, "\(id) is managed as \(entry.managementBundle), not \(subject.bundleID)")
            #expect(entry.managementSDK == subject.sdkIntegrated, "\(id)")
            #expect(entry.microsoftCore == MicrosoftApps.isCore(subject), "\(id)")
            #expect(entry.microsoft == MicrosoftApps.isMicrosoft(subject), "\(id)")
        }
    }

    @Test func everyEntryFollowsTheDescriptorsAfterAnySequenceOfInstalls() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...1_000).array(of: 24)) { steps in
            var fleet = Fleet()
            for n in steps {
                Self.apply(n, to: &fleet)
                Self.expectEntriesFollowTheDescriptors(fleet)
            }
        }
    }

    /// The cases a random walk may miss, spelled out: an extension installed before its
    /// containing app, the app replaced without the SDK, then uninstalled.
    @Test func anExtensionFollowsItsContainingAppThroughInstallReplaceAndUninstall() {
        var fleet = Fleet()
        let share = AppDescriptor(bundleID: "com.contoso.share", kind: .share, sdkIntegrated: true, containingApp: "com.contoso.one")
        fleet.install(share)
        #expect(fleet.appEntry("com.contoso.share")?.managementBundle == "com.contoso.share")
        fleet.install(AppDescriptor(bundleID: "COM.CONTOSO.ONE", sdkIntegrated: true))
        #expect(fleet.appEntry("com.contoso.share")?.managementBundle == "com.contoso.one")
        #expect(fleet.appEntry("com.contoso.share")?.managementSDK == true)
        fleet.install(AppDescriptor(bundleID: "com.contoso.one", sdkIntegrated: false))
        #expect(fleet.appEntry("com.contoso.share")?.managementSDK == false)
        fleet.uninstall("com.contoso.one")
        #expect(fleet.appEntry("com.contoso.share")?.managementBundle == "com.contoso.share")
        #expect(fleet.appEntry("com.contoso.share")?.managementSDK == true)
        // The extension reinstalled as a plain app no longer follows its former container.
        fleet.install(AppDescriptor(bundleID: "com.contoso.one", sdkIntegrated: false))
        fleet.install(AppDescriptor(bundleID: "com.contoso.share", sdkIntegrated: true))
        fleet.install(AppDescriptor(bundleID: "com.contoso.one", sdkIntegrated: true))
        #expect(fleet.appEntry("com.contoso.share")?.managementSDK == true)
        #expect(fleet.appEntry("com.contoso.share")?.managementBundle == "com.contoso.share")
    }
}
