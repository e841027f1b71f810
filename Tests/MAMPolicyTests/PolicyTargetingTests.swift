import MAMModel
import MAMPolicy
import Testing

/// RULES.md §1: which apps a policy targets (`apps` with `appGroupType`), and that outside
/// them the account is unmanaged — seed 000: policies reach an app « lorsque Intune gère
/// activement l'application ».
@Suite("Policy targeting (RULES.md §1)")
struct PolicyTargetingTests {
    typealias W = World
    static let lob: BundleID = "com.contoso.crm"
    static let companion: BundleID = "com.example.companion"
    static let dynamics: BundleID = "com.microsoft.dynamics.fieldservice"

    static func fleet(_ p: IosManagedAppProtection) -> Fleet {
        var f = W.fleet(policy: p)
        f.install(AppDescriptor(bundleID: lob))
        var c = AppDescriptor(bundleID: companion)
        c.publisher = "Microsoft"
        f.install(c)
        f.install(AppDescriptor(bundleID: dynamics))
        var notMicrosoft = AppDescriptor(bundleID: "com.microsoft.msedge")
        notMicrosoft.publisher = "contoso"
        f.install(notMicrosoft)
        return f
    }

    static func policy(_ type: TargetedAppGroupType, _ apps: [BundleID]? = nil) -> IosManagedAppProtection {
        var p = W.strictPolicy()
        p.appGroupType = type
        if let apps { p.apps = apps }
        return p
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let type: TargetedAppGroupType
        /// `nil`: no `apps` at all (a Graph collection read without $expand=apps).
        let listed: [BundleID]?
        let app: BundleID
        let targeted: Bool
        var testDescription: String { "\(type.rawValue) \(listed.map { "\($0)" } ?? "no apps key") → \(app): \(targeted)" }
    }

    static let rows: [Row] = [
        // selectedPublicApps: the list; no list = every SDK app (a scenario policy without apps:,
        // a Graph document without its apps); an explicit empty list = none (RULES §1)
        Row(type: .selectedPublicApps, listed: [W.mine], app: W.mine, targeted: true),
        Row(type: .selectedPublicApps, listed: ["COM.CONTOSO.MAIL"], app: W.mine, targeted: true),
        Row(type: .selectedPublicApps, listed: [W.mine], app: lob, targeted: false),
        Row(type: .selectedPublicApps, listed: [W.mine], app: W.outlook, targeted: false),
        Row(type: .selectedPublicApps, listed: nil, app: lob, targeted: true),
        Row(type: .selectedPublicApps, listed: [], app: lob, targeted: false),
        Row(type: .selectedPublicApps, listed: [], app: W.mine, targeted: false),
        // an extension follows its containing app
        Row(type: .selectedPublicApps, listed: [W.word], app: W.wordOpenIn, targeted: true),
        Row(type: .selectedPublicApps, listed: [W.mine], app: W.wordOpenIn, targeted: false),
        // Microsoft's core apps, by bundle id or by the scenario's publisher
        Row(type: .allCoreMicrosoftApps, listed: [], app: W.outlook, targeted: true),
        Row(type: .allCoreMicrosoftApps, listed: [], app: W.wordOpenIn, targeted: true),
        Row(type: .allCoreMicrosoftApps, listed: [], app: companion, targeted: true),
        Row(type: .allCoreMicrosoftApps, listed: [], app: W.mine, targeted: false),
        Row(type: .allCoreMicrosoftApps, listed: [], app: dynamics, targeted: false),
        Row(type: .allCoreMicrosoftApps, listed: [], app: "com.microsoft.msedge", targeted: false),
        Row(type: .allCoreMicrosoftApps, listed: [lob], app: lob, targeted: true),
        // every Microsoft app: core ones and any com.microsoft. app
        Row(type: .allMicrosoftApps, listed: [], app: dynamics, targeted: true),
        Row(type: .allMicrosoftApps, listed: [], app: W.outlook, targeted: true),
        Row(type: .allMicrosoftApps, listed: [], app: lob, targeted: false),
        // every SDK app, never one without the SDK
        Row(type: .allApps, listed: [W.mine], app: lob, targeted: true),
        Row(type: .allApps, listed: [], app: W.notes, targeted: false),
    ]

    @Test(arguments: rows)
    func targetedApps(_ row: Row) {
        let fleet = Self.fleet(Self.policy(row.type, row.listed))
        #expect(fleet.isPolicyManaged(row.app, for: W.alice) == row.targeted)
        #expect(fleet.isManaged(W.alice, in: row.app) == row.targeted)
        #expect(fleet.isManaged(W.alice), "alice stays a managed account of the device")
    }

    /// Every restriction of the account is off in an SDK app its policy does not target.
    @Test func untargetedAppIsUnrestricted() {
        var p = Self.policy(.selectedPublicApps, [W.mine])
        p.printBlocked = true
        p.saveAsBlocked = true
        p.notificationRestriction = .block
        p.allowedOutboundClipboardSharingLevel = .blocked
        p.contactSyncBlocked = true
        p.allowedOutboundDataTransferDestinations = .none
        let fleet = Self.fleet(p)
        let lob = Self.lob
        #expect(Enforcer.print(as: W.alice, app: W.mine, in: fleet).blockedBy == .printBlocked)
        let print = Enforcer.print(as: W.alice, app: lob, in: fleet)
        #expect(print.isAllowed && print.explanation.contains("does not target com.contoso.crm"), "\(print)")
        #expect(Enforcer.save(owner: W.alice, to: .localDrive, locationAccount: W.alice, app: lob, in: fleet).isAllowed)
        #expect(Enforcer.save(owner: W.alice, to: .localDrive, locationAccount: W.alice, app: W.mine, in: fleet).blockedBy == .saveLocation)
        #expect(Enforcer.notification("hi", of: W.alice, app: lob, in: fleet).shownText == "hi")
        #expect(Enforcer.notification("hi", of: W.alice, app: W.mine, in: fleet).shownText == nil)
        #expect(Enforcer.isScreenCaptureAllowed(for: W.alice, app: lob, in: fleet))
        #expect(!Enforcer.isScreenCaptureAllowed(for: W.alice, app: W.mine, in: fleet))
        #expect(!Enforcer.isContactSyncBlocked(for: W.alice, app: lob, in: fleet))
        #expect(!Enforcer.isFileEncryptionRequired(for: W.alice, app: lob, in: fleet))
        #expect(Enforcer.openURL(scheme: "notes", owner: W.alice, from: lob, in: fleet).isAllowed)
        #expect(Enforcer.openURL(scheme: "notes", owner: W.alice, from: W.mine, in: fleet).blockedBy == .notExempt)
        // Sharing and pasting: the owner's data out of the untargeted app is unmanaged ...
        let out = Enforcer.transfer(owner: W.alice, from: lob, to: W.notes, receivedAs: nil, in: fleet)
        #expect(out.isAllowed && out.decision.explanation.contains("does not target com.contoso.crm"), "\(out)")
        #expect(Enforcer.pasteDecision(length: 10, owner: W.alice, copiedIn: lob, into: W.notes, as: nil, in: fleet).isAllowed)
        #expect(Enforcer.pasteDecision(length: 10, owner: W.alice, copiedIn: W.mine, into: W.notes, as: nil, in: fleet).blockedBy == .clipboardPolicy)
        // ... and the targeted app's org data may not reach it.
        #expect(Enforcer.transfer(owner: W.alice, from: W.mine, to: lob, receivedAs: W.alice, in: fleet).decision.blockedBy == .outboundPolicy)
        // Conditional launch runs only where the policy applies.
        var pin = p
        pin.pinRequired = true
        let f2 = Self.fleet(pin)
        #expect(Enforcer.launchChecks(for: W.alice, facts: LaunchFacts(now: Instant(iso8601: "2026-01-01T09:00:00Z")!), app: lob, in: f2) == nil)
    }
}
