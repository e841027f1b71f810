public import MAMModel

/// One Intune targeted app configuration policy (Graph `targetedManagedAppConfiguration`,
/// RULES.md §9): name/value settings for the SDK apps it targets, delivered to the managed
/// accounts it is assigned to.
public struct AppConfigPolicy: Sendable, Hashable {
    /// The name scenarios use (`setAppConfig`); the display name when none is given.
    public var name: String
    public var displayName: String
    /// `customSettings`, in document order.
    public var settings: [KeyValuePair]
    /// Targeted apps; empty = every SDK app.
    public var apps: [BundleID]
    /// Targeted accounts by UPN or OID; `nil` = every managed account.
    public var accounts: [String]?
    /// The tenant default: delivered with `__IsDefault = true`, answering only when no targeted
    /// policy has the key.
    public var isDefault: Bool
    /// Graph's `assignments`, when the export expanded them (`mamsim whatif` resolves them).
    public var assignments: [PolicyAssignment] = []

    public init(name: String, displayName: String = "", settings: [KeyValuePair] = [], apps: [BundleID] = [],
                accounts: [String]? = nil, isDefault: Bool = false) {
        self.name = name
        self.displayName = displayName
        self.settings = settings
        self.apps = apps
        self.accounts = accounts
        self.isDefault = isDefault
    }

    /// Whether the policy reaches `account` in `app`.
    public func targets(_ app: AppDescriptor, account: Account) -> Bool {
        if !apps.isEmpty, !apps.contains(where: { $0 == app.bundleID || $0 == (app.containingApp ?? app.bundleID) }) { return false }
        guard let accounts else { return true }
        return accounts.contains { account.matches($0) }
    }

    /// The dictionary the SDK hands the app: the settings (a later duplicate key wins, as a
    /// dictionary would keep it), plus the default marker.
    public var dictionary: [String: String] {
        var d: [String: String] = [:]
        for pair in settings { d[pair.name] = pair.value }
        if isDefault { d[AppConfig.defaultMarker] = "true" }
        return d
    }
}

extension Enforcer {
    /// `appConfigForAccountId`: the configuration `account` receives in `app` (RULES.md §9).
    /// Only a managed account in an SDK app receives targeted configuration (it comes through
    /// the Intune MAM service the account is enrolled with); anything else gets none.
    public static func appConfig(for account: Account?, in app: AppDescriptor, policies: [AppConfigPolicy],
                                 fleet: Fleet) -> AppConfig {
        guard app.sdkIntegrated, let account, fleet.isManaged(account) else { return .empty }
        let applying = policies.filter { $0.targets(app, account: account) }
        // Targeted dictionaries first, in declaration order, then the default: the SDK's
        // "any" answers with the first targeted value.
        let ordered = applying.filter { !$0.isDefault } + applying.filter(\.isDefault)
        return AppConfig(fullData: ordered.map { $0.dictionary.mapValues { fillTokens($0, for: account) } })
    }

    /// The tokens Intune fills in app configuration values for the account it sends them to
    /// (Microsoft Learn, app configuration for managed apps: configuration values that use
    /// tokens), lowercased. `{{username}}` (a display name) is not known to the device and stays
    /// as written, like any other token.
    public static let appConfigTokens = ["userprincipalname", "mail", "partialupn", "userid", "accountid"]

    /// The `{{name}}` tokens of `value`, in order: each one's whole range and its name.
    public static func tokens(in value: String) -> [(range: Range<String.Index>, name: Substring)] {
        var found: [(Range<String.Index>, Substring)] = []
        var rest = value[...]
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            found.append((open.lowerBound..<close.upperBound, rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// `value` with the documented tokens replaced by `account`'s values (any letter case);
    /// a token the account has no value for, or an unknown one, stays as written.
    public static func fillTokens(_ value: String, for account: Account) -> String {
        guard value.contains("{{") else { return value }
        var out = ""
        var written = value.startIndex
        for token in tokens(in: value) {
            let filled: String? = switch token.name.lowercased() {
            case "userprincipalname", "mail": account.upn.isEmpty ? nil : account.upn
            case "partialupn": account.upn.split(separator: "@").first.map(String.init)
            case "userid": account.oid.isEmpty ? nil : account.oid
            case "accountid": account.tenant.isEmpty ? nil : account.tenant
            default: nil
            }
            out += value[written..<token.range.lowerBound]
            out += filled ?? String(value[token.range])
            written = token.range.upperBound
        }
        return out + value[written...]
    }

    /// The first SDK version that blocks screen capture when org data may not go to all apps.
    public static let screenCaptureBlockSDK = Version("19.7.6")!

    /// Since SDK 20.4.0 the dedicated setting (`screenCaptureConfigurationState`) governs
    /// screen capture when the admin set it; before it, and when it is unset, the block that
    /// comes with restricted sending does.
    public static let screenCaptureSettingSDK = Version("20.4.0")!

    /// `isScreenCaptureAllowed` with the app configuration `account` receives in `app`
    /// (RULES.md §7): the one rule every question about capturing a managed screen is
    /// answered by (`screenCapture`, `useSurface screenRecording` and "Ask Siri").
    public static func screenCapture(as account: Account?, in app: AppDescriptor, policies: [AppConfigPolicy],
                                     fleet: Fleet) -> Verdict {
        guard fleet.managedEntry(account, in: app.bundleID) != nil, let account else {
            return .allowed("\(unmanagedReason(account, in: app.bundleID, fleet)): screen capture is not restricted")
        }
        let config = appConfig(for: account, in: app, policies: policies, fleet: fleet)
        let key = config.fullData.lazy.flatMap(\.keys).first { $0.lowercased() == screenCaptureConfigKey }
        let control = key.flatMap { config.values(forKey: $0).first }.map { sdkConfigValue($0, sdkVersion: app.sdkVersion) }
        return Enforcer.screenCaptureRule(for: account, app: app.bundleID, sdkVersion: app.sdkVersion, appConfigControl: control, in: fleet)
    }
}
