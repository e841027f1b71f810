public import MAMBundle

/// One rule of `mamsim lint`: its id (what findings, config files and SARIF name), default
/// severity, what it checks, the documented source it comes from, and whether `--fix` repairs it.
public struct LintRule: Sendable, Hashable {
    public var id: String
    public var severity: LintFinding.Severity
    public var summary: String
    /// Where the requirement is written down.
    public var source: String
    public var fixable: Bool

    init(_ id: String, _ severity: LintFinding.Severity, _ summary: String, source: String, fixable: Bool = false) {
        self.id = id
        self.severity = severity
        self.summary = summary
        self.source = source
        self.fixable = fixable
    }
}

/// The catalogue, in docs/LINT.md's order (a test keeps the two equal).
public enum LintRules {
    static let sdkGuide = "https://learn.microsoft.com/mem/intune/developer/app-sdk-ios-phase3"
    static let sdkShare = "https://learn.microsoft.com/mem/intune/developer/app-sdk-ios-phase5"
    static let seedOpenIn = "seed 000, \"Copy to\" actions steps 1–7"
    static let xcode = "Xcode build settings reference"
    static let apple = "Apple, Information Property List / Entitlements reference"
    static let tuist = "Tuist, manifests (Project.swift is Swift Tuist compiles against ProjectDescription and runs)"

    /// The Intune App SDK's own requirements: checked only on a target that links the SDK.
    public static let intuneRules: Set<String> = Set(all.filter { [sdkGuide, sdkShare, seedOpenIn].contains($0.source) }.map(\.id))

    public static let all: [LintRule] = [
        // Reading
        LintRule("plist-malformed", .error, "an Info.plist or entitlements file is not a well-formed property list", source: apple),
        LintRule("info-plist-missing", .error, "the bundle's Info.plist is not where the project or folder says", source: xcode),
        LintRule("info-plist-preprocess", .warning, "a preprocessor directive in an INFOPLIST_PREPROCESS Info.plist cannot be followed", source: xcode),
        LintRule("info-plist-warning", .warning, "an Info.plist value mamsim reads is unusual (from the extension manifest reader)", source: apple),
        LintRule("file-unreadable", .error, "a named file cannot be read", source: xcode),
        LintRule("project-unreadable", .error, "an .xcodeproj cannot be read (not generated yet by XcodeGen or Tuist, or broken); the other projects are linted", source: xcode),
        LintRule("project-without-bundles", .note, "a project makes no app or app extension target (a library's, or a Tuist manifest whose run made none): nothing in it is linted", source: xcode),
        LintRule("intune-sdk-version", .warning, "the Intune App SDK a Package.resolved or Podfile.lock pins falls under a dated requirement of Microsoft's (a warning at launch, a launch block, a version no longer supported)", source: "Learn, What's new in Intune (notices); ms-intune-app-sdk-ios README"),
        LintRule("project-read-as-source", .note, "a Tuist manifest did not compile or run against mamsim's ProjectDescription (the compiler's first errors named): its Swift was read as source instead", source: tuist),
        LintRule("build-setting-unresolved", .note, "$(VAR)s that have no value in the project, its xcconfigs or --set (one note per bundle)", source: xcode),
        LintRule("xcconfig-line", .warning, "an xcconfig line is not NAME = VALUE", source: xcode),
        LintRule("xcconfig-include", .warning, "an xcconfig #include names a missing file, a cycle, or a file outside the project (not read)", source: xcode),
        LintRule("xcconfig-include-case", .warning, "an xcconfig #include names its file in another letter case: read as macOS reads it, a case-sensitive volume would not find it", source: xcode),
        LintRule("path-outside-project", .error, "INFOPLIST_FILE, CODE_SIGN_ENTITLEMENTS or INFOPLIST_PREFIX_HEADER names a file outside the linted folder (not read, not fixed)", source: xcode),
        LintRule("entitlements-multiple", .warning, "a plugin folder holds several .entitlements files", source: xcode),
        LintRule("activation-rule-syntax", .error, "NSExtensionActivationRule does not parse", source: apple),
        LintRule("sandbox-declaration", .error, "a plugin's sandbox declaration asks for what only the user may grant (/etc, the home folder's dot-folders, outside its project, a folder with secrets, a secret variable)", source: "mamsim plugin format (docs/GUIDE.md, Writing a plugin)"),
        LintRule("plugin-executable", .error, "a plugin's declared executable is missing, outside its folder or not executable", source: "mamsim plugin format (docs/GUIDE.md, Writing a plugin)"),
        LintRule("bundle-identifier", .error, "a bundle has no CFBundleIdentifier", source: apple),
        LintRule("extension-point", .error, "an extension point mamsim does not host", source: apple),
        LintRule("intune-sdk-absent", .note, "a target shows no sign of the Intune SDK: its Intune requirements are not checked (--sdk TARGET if it links it at build time)", source: "mamsim init's detection"),
        // Keychain
        LintRule("keychain-bundle-id-first", .warning, "the first keychain group (the default one) is not the bundle id", source: sdkGuide),
        LintRule("keychain-intune-group", .error, "keychain-access-groups lacks com.microsoft.intune.mam", source: sdkGuide),
        LintRule("keychain-intune-group-misspelled", .error, "a keychain group is a misspelling of com.microsoft.intune.mam", source: sdkGuide),
        LintRule("keychain-adal-cache", .warning, "keychain-access-groups lacks com.microsoft.adalcache", source: sdkGuide),
        // IntuneMAMSettings
        LintRule("intune-settings", .error, "an app has no IntuneMAMSettings dictionary (a note where its code sets the Entra settings, aadClientIdOverride and its siblings)", source: sdkGuide),
        LintRule("intune-settings-key", .error, "an IntuneMAMSettings key is a near miss of one the SDK reads", source: sdkGuide),
        LintRule("intune-settings-type", .error, "a Boolean IntuneMAMSettings key is not <true/> or <false/>", source: sdkGuide),
        LintRule("adal-client-id", .error, "ADALClientId is missing (a warning; a note where its code sets aadClientIdOverride) or not a GUID (a placeholder)", source: sdkGuide),
        LintRule("adal-redirect-uri", .error, "ADALRedirectUri is not msauth.<bundle id>://auth, is a placeholder, or (a warning) neither it nor ADALRedirectScheme is set", source: sdkGuide),
        LintRule("adal-redirect-scheme", .error, "the redirect URI's scheme (or ADALRedirectScheme) is not among the app's URL schemes", source: sdkGuide),
        // URL schemes
        LintRule("url-scheme-invalid", .error, "a CFBundleURLSchemes entry is not a URL scheme (a placeholder left in)", source: apple),
        LintRule("url-scheme-twin", .error, "a CFBundleURLSchemes entry has no -intunemam twin", source: sdkGuide, fixable: true),
        LintRule("query-scheme-twin", .error, "an LSApplicationQueriesSchemes entry has no -intunemam twin", source: sdkGuide, fixable: true),
        LintRule("query-schemes-intune", .warning, "LSApplicationQueriesSchemes lacks the schemes the SDK guide lists (the managed browser's twins, the threat defense apps) or MSAL's broker's (msauthv2, msauthv3)", source: sdkGuide),
        LintRule("msauth-scheme", .warning, "the app declares msauth. schemes but not msauth.<bundle id>, where MSAL returns (msauth.com.microsoft.intunemam never counts)", source: "Microsoft, MSAL for iOS: redirect URI"),
        LintRule("face-id-usage", .warning, "NSFaceIDUsageDescription is missing", source: sdkGuide),
        // Extensions and cross-target
        LintRule("extension-containing-app", .error, "IntuneMAMSettings.ContainingAppBundleId is missing or not the containing app's id", source: sdkShare),
        LintRule("extension-bundle-id", .error, "an extension's bundle id does not start with its containing app's", source: apple),
        LintRule("extension-intune-types", .warning, "the activation rule accepts no com.microsoft.intune.mam. type", source: sdkShare, fixable: true),
        LintRule("extension-container-missing", .warning, "no app target embeds the extension", source: xcode),
        LintRule("app-group-entitled", .error, "an app group in IntuneMAMSettings.AppGroupIdentifiers is not entitled", source: sdkGuide),
        LintRule("extension-keychain", .error, "an SDK extension's keychain-access-groups lacks com.microsoft.intune.mam (keychain sharing is enabled in each target)", source: sdkGuide),
        LintRule("app-group-shared", .error, "an SDK extension shares no app group with its containing app", source: sdkShare),
        // "Open in"
        LintRule("open-in-flag", .error, "OpenInActionExtension is not YES", source: seedOpenIn),
        LintRule("open-in-name", .warning, "the extension is not named \"Open in …\"", source: seedOpenIn),
        LintRule("open-in-non-ui", .warning, "the \"Open in\" stub is a UI extension", source: seedOpenIn),
        LintRule("open-in-container", .warning, "the containing app's files are not in container/", source: seedOpenIn),
        LintRule("open-in-app-group", .error, "the extension and its app share no app group", source: seedOpenIn),
        LintRule("open-in-keychain", .error, "the extension or its app lacks com.microsoft.intune.mam", source: seedOpenIn),
        LintRule("open-in-url-scheme", .error, "the containing app has no URL scheme with its -intunemam twin", source: seedOpenIn),
        LintRule("open-in-rule", .error, "the rule does not take exactly one managed file of Intune types only", source: seedOpenIn),
        LintRule("open-in-document-types", .warning, "the rule misses the Intune twin of a document type the app opens", source: seedOpenIn),
        // The team's Swift
        LintRule("delegate-drift", .warning, "a method of a type adopting an SDK delegate protocol has a requirement's name (or nearly) but none of its signatures: the SDK never calls it", source: "Intune App SDK for iOS 21.7.1 public headers"),
    ]

    public static func rule(_ id: String) -> LintRule? { all.first { $0.id == id } }
}
