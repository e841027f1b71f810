/// What the host knows about one installed app or extension, filled from scenario files and
/// Info.plists (`IntuneMAMSettings`) and entitlements (RULES.md §1, §6).
///
/// The enforcer decides only from these facts: a child never gets to describe itself.
/// URL schemes are kept lowercased beside the declared spelling so exemption checks compare
/// without allocating.
public struct AppDescriptor: Sendable, Hashable {
    /// An app, or one of the extension kinds the SDK or ManagedApp cares about.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case app
        /// A share extension (`com.apple.share-services`).
        case share
        /// An action extension (`com.apple.ui-services`), e.g. an "Open in" extension.
        case action
        /// A custom keyboard (`com.apple.keyboard-service`): it receives no shared items.
        case keyboard
        // SCENARIOS v1.4: the other extension points, fleet members whose settings RULES §1
        // names (a File Provider: file-provider encryption; a widget: widget content sync; an
        // AutoFill credential provider: conditional launch at its launch; intents: Siri and App
        // Intents). Data they send or receive follows RULES §2 like a share extension.
        case fileProvider, widget, autofill, intents, notificationService, notificationContent, broadcastUpload, messages, contentBlocker

        /// The kind an `NSExtensionPointIdentifier` (or ExtensionKit point) makes.
        public static func forExtensionPoint(_ point: String) -> Kind? {
            switch point {
            case "com.apple.share-services": .share
            case "com.apple.ui-services", "com.apple.services": .action
            case "com.apple.keyboard-service": .keyboard
            case "com.apple.fileprovider-nonui", "com.apple.fileprovider-actionsui": .fileProvider
            case "com.apple.widgetkit-extension", "com.apple.widget-extension": .widget
            case "com.apple.authentication-services-credential-provider-ui": .autofill
            case "com.apple.intents-service", "com.apple.intents-ui-service", "com.apple.appintents-extension": .intents
            case "com.apple.usernotifications.service": .notificationService
            case "com.apple.usernotifications.content-extension": .notificationContent
            case "com.apple.broadcast-services-upload", "com.apple.broadcast-services-setupui": .broadcastUpload
            case "com.apple.message-payload-provider": .messages
            case "com.apple.Safari.content-blocker": .contentBlocker
            default: nil
            }
        }

        /// A share or action extension: the share sheet lists it, by its activation rule.
        public var isShareSheetTarget: Bool { self == .share || self == .action }
    }

    public var bundleID: BundleID
    public var kind: Kind
    /// Whether the app integrates the Intune SDK; without it no policy can manage it.
    public var sdkIntegrated: Bool
    /// `IntuneMAMSettings.MultiIdentity`.
    public var multiIdentity: Bool
    /// Declared URL schemes (`CFBundleURLSchemes`).
    public var urlSchemes: [String] {
        didSet { schemeKeys = urlSchemes.map { $0.lowercased() } }
    }
    /// `urlSchemes`, lowercased once.
    public private(set) var schemeKeys: [String]
    /// For an extension: the app that contains it (`ContainingAppBundleId`).
    public var containingApp: BundleID?
    /// `keychain-access-groups`, in order: the first is the default group.
    public var keychainAccessGroups: [String]
    /// `com.apple.security.application-groups` (`group.*`).
    public var appGroups: [String]
    /// `IntuneMAMSettings.OpenInActionExtension`: this action extension replaces the
    /// "Copy to <App>" entry of its containing app in a share sheet.
    public var openInActionExtension: Bool
    /// Whether the app is MDM-managed (installed by the MDM): Apple's managed open-in applies.
    /// A keyboard extension the user granted full access (it asks with `RequestsOpenAccess`):
    /// only then may it use ManagedApp (seed 004).
    public var keyboardFullAccess = false
    public var mdmManaged: Bool
    /// Whether the MDM's app configuration gives an MDM-managed app `IntuneMAMUPN` (and
    /// `IntuneMAMOID`), as Intune asks of every app it manages on an enrolled device (scenario
    /// `intuneMAMUPN:`). Without it the SDK cannot tell the enrolled user: the app is to its SDK
    /// on an unmanaged device (memdocs data-transfer-between-apps-manage-ios, "Configure user
    /// UPN setting"). `nil`, not said: an MDM-managed app is taken as configured for targeting
    /// and sharing, and what only the SDK team's answers tell of the key (no restart on a first
    /// policy) is not assumed.
    public var intuneMAMUPNConfigured: Bool?
    /// An MDM-managed app its MDM gives IntuneMAMUPN (or not said otherwise): what Intune's
    /// device-type targeting knows as managed by the device.
    public var carriesIntuneMAMUPN: Bool { mdmManaged && !lacksIntuneMAMUPN }
    /// Said to have no IntuneMAMUPN (`intuneMAMUPN: false`): "with OS sharing" does not open
    /// from it and "all apps with incoming org data" marks nothing in it. Only said narrows
    /// RULES.md §2, whose tables name no IntuneMAMUPN.
    public var lacksIntuneMAMUPN: Bool { intuneMAMUPNConfigured == false }
    /// `CFBundleShortVersionString`, for conditional launch's app-version checks (`nil` =
    /// unknown: those checks are skipped).
    public var shortVersion: String?
    /// The Intune SDK version the app links (our scenario key `sdkVersion:`).
    public var sdkVersion: String?
    /// Whether a relaunched app resumes on the screens it showed, setting its windows'
    /// identities again through the SDK (RULES.md §5, "Relaunch").
    public var restoresState: Bool = true
    /// The developer team id (scenario `teamId:`): with the bundle id it names an extension in
    /// a ManagedApp configuration (`"<bundle id> (<team id>)"`). An extension has its
    /// container's.
    public var teamId: String?
    /// The MSAL client capabilities the app declares (`protapp` for app protection CA).
    public var clientCapabilities: [String] = []
    /// `IntuneMAMSettings.MAMTelemetryDisabled`: the SDK sends no telemetry.
    public var telemetryDisabled = false
    /// `IntuneMAMSettings` keys that decide the restart on a first policy (EnrollmentRules):
    /// `HooksAlwaysEnabled`, and `AutoEnrollOnLaunch` with `MAMPolicyRequired`.
    public var hooksAlwaysEnabled = false
    public var autoEnrollOnLaunch = false
    public var mamPolicyRequired = false
    /// Who publishes the app (scenario `publisher:`): `microsoft` puts it among the apps a
    /// policy's `appGroupType` of Microsoft's apps targets. `nil` = the bundle id decides.
    public var publisher: String?
    /// The domains whose universal links the app opens (`com.apple.developer.associated-domains`
    /// `applinks:` entries, without the prefix; `*.contoso.com` takes subdomains).
    public var associatedDomains: [String] = []

    /// Whether the app claims the universal link `url` by its associated domains.
    public func claimsUniversalLink(_ url: String) -> Bool {
        guard let start = url.firstRange(of: "://")?.upperBound else { return false }
        let host = url[start...].prefix { !"/:?#".contains($0) }.lowercased()
        guard !host.isEmpty else { return false }
        return associatedDomains.contains { entry in
            let d = entry.lowercased().split(separator: "?").first.map(String.init) ?? ""
            if d.hasPrefix("*.") { return host.hasSuffix(String(d.dropFirst(1))) || host == String(d.dropFirst(2)) }
            return host == d
        }
    }

    public init(
        bundleID: BundleID,
        kind: Kind = .app,
        sdkIntegrated: Bool = true,
        multiIdentity: Bool = false,
        urlSchemes: [String] = [],
        containingApp: BundleID? = nil,
        keychainAccessGroups: [String] = [],
        appGroups: [String] = [],
        openInActionExtension: Bool = false,
        mdmManaged: Bool = false
    ) {
        self.bundleID = bundleID
        self.kind = kind
        self.sdkIntegrated = sdkIntegrated
        self.multiIdentity = multiIdentity
        self.urlSchemes = urlSchemes
        self.schemeKeys = urlSchemes.map { $0.lowercased() }
        self.containingApp = containingApp
        self.keychainAccessGroups = keychainAccessGroups
        self.appGroups = appGroups
        self.openInActionExtension = openInActionExtension
        self.mdmManaged = mdmManaged
    }

    public var isExtension: Bool { kind != .app }
}
