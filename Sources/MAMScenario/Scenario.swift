public import Foundation
public import MAMDevice
public import MAMDeclarations
import MAMExtensions
import MAMActivation
public import MAMBundle
public import MAMDocument
public import MAMModel
public import MAMPolicy
public import MAMWire

/// A loaded, validated scenario file (SCENARIOS.md v1): the device, its accounts and
/// policies, the installed apps and extensions, the steps, and the `Fleet` built from them,
/// ready for a host to run.
///
/// Everything a step names (app and extension ids, accounts, policy names, files) has been
/// checked to exist when a `Scenario` exists.
public struct Scenario: Sendable {
    public var name: String
    /// The scenario file.
    public var file: URL
    public var device: ScenarioDevice
    public var accounts: [ScenarioAccount]
    /// Policies by their scenario name (`strict`, `level3`).
    public var policies: [String: IosManagedAppProtection]
    /// `allowedAccounts`: the UPN and the OID of every account it names (so the check matches
    /// whichever one the SDK reports); `nil` when the key is absent.
    public var allowedAccounts: [String]?
    public var apps: [ScenarioApp]
    public var extensions: [ScenarioExtension]
    /// `appConfigs:` — Intune targeted app configuration policies (v1.1).
    public var appConfigs: [AppConfigPolicy] = []
    /// `declarations:` — Apple DDM declarations the MDM server sends at start (v1.1).
    public var declarations: [DeclarationSet.Entry] = []
    /// `conditionalAccess:` — Entra CA policies (v1.1).
    public var conditionalAccess: [ConditionalAccessPolicy] = []
    public var steps: [Step]
    /// Things accepted but worth a look: policy import warnings, unresolved build settings,
    /// manifest notes.
    public var warnings: [ScenarioDiagnostic]
    /// Device, accounts with their policies, allowed accounts, apps and extensions.
    public var fleet: Fleet
    /// The files the scenario read its data from: policies, app configurations, conditional
    /// access, declarations (with their secrets) and shared items. No child may read them.
    public var inputs: [URL] = []
    /// Strict Mode (v1.5, docs/STRICT.md): whether the apps' integration mistakes fail the run,
    /// and the findings the team accepted.
    public var strict = StrictSettings()
    /// Where each policy is written, by its scenario name.
    public var policySources: [String: SourcePlace] = [:]
    /// Where each app configuration is written, by its name.
    public var appConfigSources: [String: SourcePlace] = [:]

    /// The bundle id of the app or extension with handle `id`.
    public func bundle(of id: String) -> BundleID? {
        if let app = apps.first(where: { $0.id == id }) { return app.descriptor.bundleID }
        return extensions.first(where: { $0.id == id })?.descriptor.bundleID
    }

    /// Every path an app or extension reads and every variable it receives because its
    /// `sandbox` declared them, one line each with why it may: what `mamsim run` shows.
    public var sandboxGrants: [String] {
        let declared = apps.map { ($0.id, $0.sandbox) } + extensions.map { ($0.id, $0.sandbox) }
        return declared.flatMap { id, sandbox in
            (sandbox.program.map { ["\(id) reads \($0)"] } ?? []) + sandbox.grants.map { "\(id) reads \($0)" } + sandbox.environment.map { "\(id) receives $\($0)" }
        }
    }

    /// The scenario account a UPN or OID names, in any letter case.
    public func account(named key: String) -> Account? {
        accounts.first { $0.account.matches(key) }?.account
    }
}

/// The simulated device: `DeviceFacts` for the rules plus the simulated clock's start.
public struct ScenarioDevice: Sendable, Hashable {
    public var mdmEnrolled: Bool = false
    public var jailbroken: Bool = false
    /// `compliant:` (v1.5) — Intune device compliance, for conditional access's
    /// `compliantDevice`; unsaid, that control is not met and the answer says so.
    public var compliant: Bool?
    public var osVersion: Version = Version("18.4")!
    /// Start of the simulated clock (`advanceClock` moves it).
    public var clock: Instant = Instant(iso8601: "2026-01-01T09:00:00Z")!
    /// Apple MDM restrictions, e.g. `allowOpenFromManagedToUnmanaged: false`.
    public var restrictions: [String: Bool] = [:]
    /// Device model identifier (our extension key `model:`), for `allowedIosDeviceModels`.
    public var model: String = "iPhone15,2"
    /// `network:` at start (check-ins need it; `setNetwork` changes it).
    public var online: Bool = true
    /// `authenticator:` — the broker app is installed (app protection CA remediation needs it).
    public var authenticator: Bool = false
    /// `assetServer:` (v1.5) — `available` (the default) or `failing`: the MDM's asset server
    /// does not answer the device's requests for ManagedApp secrets.
    public var assetServerAvailable: Bool = true
    /// `limits:` (`memory`, `processes`) — what all the device's apps may use together.
    public var limits = DeviceLimits()
    /// `service:` and `mdmEnrolledAs:` (v1.3): the Intune service's time and the device's MDM user.
    public var service = IntuneServiceSettings()

    public init() {}

    public var facts: DeviceFacts {
        var facts = DeviceFacts(mdmEnrolled: mdmEnrolled, jailbroken: jailbroken, osVersion: osVersion,
                                restrictions: restrictions, model: model)
        facts.compliant = compliant
        return facts
    }
}

/// One account of `accounts:` and the policy that targets it.
public struct ScenarioAccount: Sendable, Hashable {
    /// UPN, OID (given or derived, see `derivedOID(forUPN:)`) and tenant.
    public var account: Account
    /// Whether the OID was derived from the UPN rather than written in the file.
    public var oidWasDerived: Bool
    /// The scenario name of the targeting policy; `nil` ⇒ unmanaged.
    public var policyName: String?
    /// `policies:` (v1.5): more policies of the account, each applying in the apps it targets
    /// (the fleet's `add(_:policies:)`, as a tenant assigns several); with `policy:`, it comes first.
    public var morePolicyNames: [String] = []
    /// `licensed:` (v1.3): whether the user holds an Intune licence (default true).
    public var licensed = true
    /// `groups:`, `roles:` (v1.5): the directory groups (object ids) and role template ids the
    /// user is in, for conditional access's `includeGroups`/`excludeGroups`/`includeRoles`.
    public var groups: [String] = []
    public var roles: [String] = []

    public init(account: Account, oidWasDerived: Bool, policyName: String?) {
        self.account = account
        self.oidWasDerived = oidWasDerived
        self.policyName = policyName
    }

    /// A stable, UUID-shaped object id for an account written without `oid:`: two 64-bit
    /// FNV-1a hashes of the lowercased UPN (with different seeds) laid out as
    /// `xxxxxxxx-xxxx-8xxx-yxxx-xxxxxxxxxxxx`, with the RFC 9562 version 8 ("custom") and
    /// variant bits set. The same UPN, in any case, always gives the same OID, on every
    /// platform and run (Swift's `Hasher` is randomly seeded, so it cannot be used).
    public static func derivedOID(forUPN upn: String) -> String {
        let bytes = Array(upn.lowercased().utf8)
        func fnv1a(_ seed: UInt64) -> UInt64 {
            var h = seed
            for b in bytes {
                h ^= UInt64(b)
                h &*= 0x0000_0100_0000_01B3
            }
            return h
        }
        let high = fnv1a(0xCBF2_9CE4_8422_2325)
        var low = fnv1a(0x6C62_272E_07BB_0142 ^ 0x6D61_6D73_696D)  // "mamsim"
        var hi = high
        hi = (hi & ~0x0000_0000_0000_F000) | 0x0000_0000_0000_8000  // version 8
        low = (low & ~0xC000_0000_0000_0000) | 0x8000_0000_0000_0000  // RFC variant
        func hex(_ v: UInt64, _ digits: Int) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, digits - s.count)) + s
        }
        let h = hex(hi, 16), l = hex(low, 16)
        let hc = Array(h), lc = Array(l)
        return String(hc[0..<8]) + "-" + String(hc[8..<12]) + "-" + String(hc[12..<16]) + "-"
            + String(lc[0..<4]) + "-" + String(lc[4..<16])
    }
}

/// One entry of `apps:`: its handle, what the host knows about it, and where its files are.
public struct ScenarioApp: Sendable, Hashable {
    /// The handle steps use (`mail`).
    public var id: String
    public var descriptor: AppDescriptor
    /// `info:`, resolved against the scenario's folder.
    public var infoPlist: URL?
    /// `entitlements:`, resolved against the scenario's folder.
    public var entitlements: URL?
    /// Our extension key `executable:`: a program of its own instead of the built-in runtime.
    public var executable: URL?
    /// Our extension key `arguments:`, passed to `executable`.
    public var arguments: [String]
    /// Our extension key `sandbox:` (`read:`, `environment:`): what its confined process may
    /// use beyond its own program's folder and its container.
    public var sandbox = PluginSandbox()
    /// Our extension key `msalAccounts:`: accounts the user signed in to the app with MSAL
    /// before the scenario starts (its own process may get their tokens and enroll them).
    public var msalAccounts: [String] = []
    /// Whether `msalAccounts:` was written (it narrows the default: every account).
    public var msalAccountsListed = false
    /// Our extension key `delegate:` (v1.2): how the app's IntuneMAMPolicyDelegate answers the
    /// SDK — a switch it requires, a selective wipe.
    public var delegate = DelegateAnswers()
}

/// One entry of `extensions:`: a plugin folder read through `MAMExtensions`.
public struct ScenarioExtension: Sendable {
    public var id: String
    /// The plugin folder, resolved against the scenario's folder.
    public var plugin: URL
    /// The containing app's handle.
    public var container: String
    public var descriptor: AppDescriptor
    /// Its Info.plist: activation rule, Intune settings, declared types.
    public var manifest: ExtensionManifest
    /// The `*.entitlements` file found in the folder, if any.
    public var entitlementsFile: URL?
    /// `executable:`, else the folder's own program (`MamsimExecutable` in its Info.plist,
    /// `executable` in `plugin.json`, or a file named `run`); `nil` runs the built-in runtime.
    public var executable: URL?
    public var arguments: [String]
    /// `plugin.json`'s `sandbox`, or the entry's own `sandbox:`.
    public var sandbox = PluginSandbox()

    /// The project's Info.plist the folder's was copied from: `plugin.json`'s `builtFrom`
    /// (relative to the folder), which `mamsim init` writes; a fix edits that file.
    public var builtFrom: URL? {
        guard let data = try? InputFile.contents(of: plugin.appendingPathComponent("plugin.json"), limit: 1 << 20),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let path = object["builtFrom"] as? String, !path.isEmpty else { return nil }
        return (path.hasPrefix("/") ? URL(fileURLWithPath: path) : plugin.appendingPathComponent(path)).standardizedFileURL
    }
}

/// A scenario's `strict:` (docs/STRICT.md).
public struct StrictSettings: Sendable {
    /// Whether an unsuppressed finding fails the run (`--strict` sets it too).
    public var enabled = false
    public var suppressions: [StrictSuppression] = []

    public init(enabled: Bool = false, suppressions: [StrictSuppression] = []) {
        self.enabled = enabled
        self.suppressions = suppressions
    }

    /// The suppression that covers `finding`: its check, and its file when it names one (the
    /// file as `#fileID` writes it, `Module/File.swift`, or its last component).
    public func suppression(of finding: StrictFindingEvent) -> StrictSuppression? {
        suppressions.first { s in
            s.check == finding.check && (s.file.map { $0 == finding.file || finding.file.hasSuffix("/" + $0) } ?? true)
        }
    }
}

/// A finding a team accepted: the check, optionally only in one file, and why.
public struct StrictSuppression: Sendable, Hashable {
    public var check: String
    public var file: String?
    public var reason: String

    public init(check: String, file: String?, reason: String) {
        self.check = check
        self.file = file
        self.reason = reason
    }
}
