import Foundation
import MAMModel
import Testing
@testable import MAMPolicy

/// RULES §7: every Graph iosManagedAppProtection property the importer reads is enforced,
/// answered by a query, or declared out of scope with why, and docs/GRAPH-COVERAGE.md says so.
@Suite("Graph property coverage")
struct GraphCoverageTests {
    @Test func everyImportedPropertyIsPlacedOnce() {
        let placed = GraphPolicyCoverage.entries.map(\.key)
        #expect(Set(placed).count == placed.count, "a property is placed twice")
        let known = Set(GraphPolicyImporter.knownProperties).union(GraphPolicyImporter.navigationProperties)
        #expect(known.subtracting(placed).isEmpty, "the importer reads properties the table does not place: \(known.subtracting(placed).sorted())")
        #expect(Set(placed).subtracting(known).isEmpty, "the table places properties the importer does not read: \(Set(placed).subtracting(known).sorted())")
        for e in GraphPolicyCoverage.entries { #expect(!e.note.isEmpty, "\(e.key) says nothing") }
    }

    /// The newer keys are read, never silently dropped, and the document is current.
    @Test func theGeneratedDocumentIsCurrent() throws {
        for key in ["genmojiConfigurationState", "writingToolsConfigurationState", "screenCaptureConfigurationState", "purviewContentEvaluationRequired"] {
            #expect(GraphPolicyCoverage.entry(key) != nil, "\(key)")
        }
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)
        let doc = try String(contentsOfFile: parts.joined(separator: "/") + "/docs/GRAPH-COVERAGE.md", encoding: .utf8)
        #expect(doc == GraphPolicyCoverage.markdown(), "docs/GRAPH-COVERAGE.md is stale: run scripts/generate-verb-reference")
    }

    /// A property the importer does not know is a warning naming it, not an error.
    @Test func anUnknownPropertyIsAWarning() throws {
        let r = try GraphPolicyImporter.importPolicies(Array(#"{"pinRequired": false, "quantumEntanglementBlocked": true}"#.utf8), source: "p.json")
        #expect(r.policies.count == 1)
        #expect(r.warnings.contains { $0.message.contains("quantumEntanglementBlocked") }, "\(r.warnings)")
    }
}

/// SCENARIOS v1.4 `useSurface` (RULES §7): each OS surface by the key that governs it.
@Suite("OS surfaces")
struct SurfaceTests {
    typealias W = World

    @Test(arguments: [
        (OSSurface.writingTools, "writingTools", true), (.writingTools, "genmoji", false),
        // Image Playground is no app protection key's (issue 74): the device's restriction.
        (.genmoji, "genmoji", true), (.imagePlayground, "genmoji", false), (.genmoji, "writingTools", false),
        // Picture-in-picture by the screen-capture key (SCENARIOS v1.4): capturing its content is
        // what is blocked (SDK 20.6.0), which the answer says.
        (.askSiri, "screenCapture", true), (.pictureInPicture, "screenCapture", true), (.screenRecording, "screenCapture", true),
        (.screenRecording, "notBlocked", false),
        // The setting unset: restricted sending blocks capture, as `screenCapture` answers.
        (.screenRecording, "none", true),
        (.callKit, "dialer", true), (.callKit, "none", false),
        (.textViewLink, "browser", true), (.textViewLink, "none", false),
    ])
    func eachSurfaceFollowsItsKey(surface: OSSurface, blockedSetting: String, blocked: Bool) {
        var p = W.strictPolicy()
        p.dialerRestrictionLevel = .allApps
        p.managedBrowserToOpenLinksRequired = false
        switch blockedSetting {
        case "writingTools": p.writingToolsConfigurationState = .blocked
        case "genmoji": p.genmojiConfigurationState = .blocked
        case "screenCapture": p.screenCaptureConfigurationState = .blocked
        case "dialer": p.dialerRestrictionLevel = .managedApps
        case "browser": p.managedBrowserToOpenLinksRequired = true
        case "notBlocked": p.screenCaptureConfigurationState = .notBlocked
        default: p.writingToolsConfigurationState = .notBlocked
        }
        let fleet = W.fleet(policy: p)
        let d = Enforcer.useSurface(surface, as: W.alice, app: W.mine, in: fleet)
        #expect(d.isAllowed == !blocked, "\(surface) with \(blockedSetting): \(d)")
        if blocked { #expect(d.blockedBy == .featureRestricted) }
        #expect(Enforcer.useSurface(surface, as: W.bob, app: W.mine, in: fleet).isAllowed, "personal data meets every surface")
    }
}

/// Issue 74: the screen-capture rule every question about capturing a managed screen is answered
/// by, row by row: the dedicated setting governs from SDK 20.4.0 when set; else restricted sending
/// blocks, unless the app configuration disables the control or the app predates SDK 19.7.6.
@Suite("Screen capture, one rule")
struct ScreenCaptureRuleTests {
    typealias W = World

    @Test(arguments: [
        // state, outbound, sdk, app config control, allowed
        (FeatureConfigurationState.notBlocked, DataTransferLevel.managedApps, String?.none, String?.none, true),
        (.notBlocked, .managedApps, "20.4.0", nil, true),
        (.notBlocked, .managedApps, "20.3.0", nil, false),
        (.blocked, .allApps, nil, nil, false),
        (.blocked, .allApps, "20.3.0", nil, true),
        (.notConfigured, .managedApps, nil, nil, false),
        (.notConfigured, .managedApps, nil, "Disabled", true),
        (.notConfigured, .managedApps, "19.7.5", nil, true),
        (.notConfigured, .allApps, nil, nil, true),
        (.allowed, .managedApps, nil, nil, true),
    ])
    func oneRule(state: FeatureConfigurationState, outbound: DataTransferLevel, sdk: String?, control: String?, allowed: Bool) {
        var p = W.strictPolicy()
        p.allowedOutboundDataTransferDestinations = outbound
        p.screenCaptureConfigurationState = state
        let fleet = W.fleet(policy: p)
        let d = Enforcer.screenCaptureRule(for: W.alice, app: W.mine, sdkVersion: sdk, appConfigControl: control, in: fleet)
        #expect(d.isAllowed == allowed, "\(state) \(outbound) \(sdk ?? "-") \(control ?? "-"): \(d)")
        // The surfaces that capture the screen answer the same, as surfaces do.
        if sdk == nil, control == nil {
            #expect(Enforcer.useSurface(.screenRecording, as: W.alice, app: W.mine, in: fleet).isAllowed == allowed)
            #expect(Enforcer.isScreenCaptureAllowed(for: W.alice, app: W.mine, in: fleet) == allowed)
        }
    }

    /// Graph writes these enums as notBlocked / blocked: an export loads as it is.
    @Test func graphsOwnValuesLoad() throws {
        let json = ##"{"@odata.type": "#microsoft.graph.iosManagedAppProtection", "displayName": "p", "writingToolsConfigurationState": "notBlocked", "screenCaptureConfigurationState": "notBlocked", "genmojiConfigurationState": "blocked"}"##
        let p = try GraphPolicyImporter.importPolicies(Array(json.utf8), source: "p.json").policies[0]
        #expect(p.writingToolsConfigurationState == .notBlocked && p.screenCaptureConfigurationState == .notBlocked && p.genmojiConfigurationState == .blocked)
    }

    /// The lock-down policy of a view of several accounts blocks every newer surface too.
    @Test func theLockDownPolicyBlocksEverySurface() {
        var p = W.strictPolicy()
        p.writingToolsConfigurationState = .notBlocked
        p.genmojiConfigurationState = .notBlocked
        let locked = Enforcer.lockDown(p)
        let fleet = W.fleet(policy: locked)
        for surface in [OSSurface.writingTools, .genmoji, .screenRecording, .askSiri] {
            #expect(!Enforcer.useSurface(surface, as: W.alice, app: W.mine, in: fleet).isAllowed, "\(surface)")
        }
        #expect(Enforcer.useSurface(.writingTools, as: W.alice, app: W.mine, in: W.fleet(policy: p)).isAllowed)
    }

    /// Image Playground: the device's MDM restriction, for every account's data.
    @Test func imagePlaygroundIsTheDevicesToRestrict() {
        var device = DeviceFacts()
        device.restrictions = ["allowImagePlayground": false]
        let fleet = W.fleet(device: device)
        #expect(!Enforcer.useSurface(.imagePlayground, as: W.alice, app: W.mine, in: fleet).isAllowed)
        #expect(!Enforcer.useSurface(.imagePlayground, as: W.bob, app: W.mine, in: fleet).isAllowed)
        #expect(Enforcer.useSurface(.imagePlayground, as: W.alice, app: W.mine, in: W.fleet()).isAllowed)
    }
}

/// Issue 74: `targetedAppManagementLevels` by device type, and a web link claimed by an app
/// without the SDK.
@Suite("Device types and claimed links")
struct DeviceTypeTargetingTests {
    typealias W = World

    @Test(arguments: [
        // levels, device MDM-enrolled, app MDM-managed, managed in the app. Per app (issue 84,
        // item 6; memdocs "Target app protection policies based on device management state":
        // the SDK knows an MDM-managed device by IntuneMAMUPN, which only MDM-managed apps get):
        // an enrolled device's app the MDM does not manage is on an unmanaged device.
        ("unspecified", false, false, true), ("unspecified", true, true, true), ("", true, false, true),
        ("unmanaged", false, false, true), ("unmanaged", true, false, true), ("unmanaged", false, true, false),
        ("mdm", false, false, false), ("mdm", true, false, false), ("mdm", false, true, true), ("mdm", true, true, true),
        ("unmanaged,mdm", true, false, true), ("unmanaged, mdm", false, false, true),
    ])
    func aPolicyReachesTheAppsOfItsDeviceType(levels: String, deviceMDM: Bool, appMDM: Bool, managed: Bool) {
        var p = W.strictPolicy()
        p.targetedAppManagementLevels = levels
        var f = W.fleet(policy: p, device: DeviceFacts(mdmEnrolled: deviceMDM))
        var corp = AppDescriptor(bundleID: "com.contoso.corp")
        corp.mdmManaged = appMDM
        f.install(corp)
        #expect(f.isManaged(W.alice, in: "com.contoso.corp") == managed, "\(levels) device MDM \(deviceMDM) app MDM \(appMDM)")
    }

    @Test func aPersonalLinkOpensTheAppThatClaimsItsDomain() {
        var f = W.fleet()
        var maps = AppDescriptor(bundleID: "com.example.maps", sdkIntegrated: false)
        maps.associatedDomains = ["*.maps.example.com"]
        f.install(maps)
        let claimed = Enforcer.webLink("https://go.maps.example.com/x", owner: W.bob, from: W.mine, browserInstalled: false, in: f)
        #expect(claimed.opensIn == .claimingApp && claimed.verdict.isAllowed, "\(claimed)")
        let other = Enforcer.webLink("https://example.org/x", owner: W.bob, from: W.mine, browserInstalled: false, in: f)
        #expect(other.opensIn == .whereIOSSendsIt)
    }
}
