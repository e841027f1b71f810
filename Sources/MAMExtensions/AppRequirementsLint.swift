import Foundation
import MAMActivation
import MAMBundle

/// The Intune App SDK's requirements for an app (seed 000, "Build the app with the SDK" and the
/// configurator's checks), for a linted folder that is an app rather than an extension. Each
/// finding names its rule, to be looked up in docs/LINT.md.
extension LintContext {
    /// `IntuneMAMSettings` keys the SDK reads, for "did you mean" on near misses.
    static let knownIntuneKeys = [
        "ADALAuthority", "ADALCacheKeychainGroupOverride", "ADALClientId", "ADALRedirectUri", "ADALRedirectScheme",
        "ADALLogOverrideDisabled", "ADALUseBroker", "AppGroupIdentifiers", "AutoEnrollOnLaunch", "AccentColor", "BackgroundColor",
        "ContainingAppBundleId", "DefaultFileProtectionLevel", "DocumentBrowserFileCachePath", "FilterOpenInToOnlyManagedApps",
        "FinishLaunchingAtStartup", "ForegroundColor", "MAMPolicyRequired", "MAMPolicyWarnAbsent", "MAMTelemetryDisabled",
        "MAMTelemetryUsePPE", "MaxFileProtectionLevel", "MultiIdentity", "OpenInActionExtension", "SafariViewControllerBlockedOverride",
        "SecondaryBackgroundColor", "SecondaryForegroundColor", "SplashDuration", "SplashIconFile", "SplashIconFile~ipad",
        "SplashImageFile", "SupportsDarkMode", "ValuesToScrubFromLogging", "VerboseLoggingEnabled", "WebViewHandledURLSchemes",
    ]
    static let booleanIntuneKeys = ["MultiIdentity", "AutoEnrollOnLaunch", "MAMPolicyRequired", "MAMPolicyWarnAbsent", "MAMTelemetryDisabled",
                                    "MAMTelemetryUsePPE", "FilterOpenInToOnlyManagedApps", "SafariViewControllerBlockedOverride",
                                    "OpenInActionExtension", "ADALLogOverrideDisabled", "SupportsDarkMode", "VerboseLoggingEnabled",
                                    "FinishLaunchingAtStartup"]

    /// Schemes the SDK and MSAL query themselves — the Company Portal, the broker, the mobile
    /// threat defense apps the SDK guide lists: listed as they are, without a twin.
    static let sdkQuerySchemes: Set<String> = [
        // `msauth` is ADAL's broker scheme, queried as MSAL's msauthv2/msauthv3 are.
        "companyportal", "msauth", "msauthv2", "msauthv3", "intunemam-mtd", "mvisionmobile", "scmx", "lookoutwork-ase", "lacoonsecurity", "zips",
        "skycure", "smsec", "smart-ns", "betteractiveshield", "wandera", "microsoft-edge-http", "microsoft-edge-https",
    ]
    /// Queried schemes every SDK app lists (the SDK guide, stage 3): the managed browser's
    /// twins and the mobile threat defense apps.
    static let requiredQuerySchemes = [
        "http-intunemam", "https-intunemam", "microsoft-edge-http-intunemam", "microsoft-edge-https-intunemam", "smart-ns", "zips",
        "lacoonsecurity", "wandera", "lookoutwork-ase", "skycure", "betteractiveshield", "smsec", "mvisionmobile", "scmx", "intunemam-mtd",
    ]
    /// What MSAL's brokered sign-in (Microsoft Authenticator) queries.
    static let brokerQuerySchemes = ["msauthv2", "msauthv3"]

    static let entraOverrides = ["aadClientIdOverride", "aadRedirectUriOverride", "aadAuthorityUriOverride",
                                 "setAadClientIdOverride", "setAadRedirectUriOverride", "setAadAuthorityUriOverride"]

    /// Where the app's code is looked for: beside its Info.plist, or — an Info.plist Xcode
    /// generates has no file — in its target's folder under the project's (`SRCROOT/TARGET_NAME`),
    /// whatever the Info.plist's kind.
    var codeProbe: URL? {
        if let info = plugin.infoFileURL { return info }
        guard let root = plugin.settings.variables["SRCROOT"], let target = plugin.settings.variables["TARGET_NAME"], !target.isEmpty else { return nil }
        return URL(fileURLWithPath: root).appendingPathComponent(target).appendingPathComponent("Info.plist")
    }

    /// `File.swift:12`, where Swift or Objective-C source beside the app's Info.plist (its folder,
    /// a bounded walk) assigns one of the Entra overrides.
    static func entraSettingsSetInCode(_ info: URL) -> String? {
        // The app's sources: the Info.plist's folder, or the one above a folder of support files.
        let folder = info.deletingLastPathComponent()
        let support = ["supporting files", "supportingfiles", "support", "resources", "config", "configuration", "configs", "plists"]
        let base = support.contains(folder.lastPathComponent.lowercased()) ? folder.deletingLastPathComponent() : folder
        var queue = [base], visited = 0
        while let folder = queue.first, visited < 2_000 {
            queue.removeFirst()
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() where !name.hasPrefix(".") {
                visited += 1
                let url = folder.appendingPathComponent(name)
                if ["swift", "m", "mm"].contains(url.pathExtension) {
                    guard let data = (try? InputFile.contents(of: url)), data.count < 2 << 20 else { continue }
                    let text = String(decoding: data, as: UTF8.self)
                    guard entraOverrides.contains(where: text.contains) else { continue }
                    for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                        let code = line.split(separator: "//", maxSplits: 1).first ?? ""
                        // `….aadClientIdOverride = x`, or ObjC's setter: the property assigned, not read.
                        let assigns = entraOverrides.prefix(3).contains { name in
                            guard let r = code.range(of: name) else { return false }
                            let rest = code[r.upperBound...].drop { $0 == " " }
                            return rest.hasPrefix("=") && !rest.hasPrefix("==")
                        } || entraOverrides.suffix(3).contains { code.contains($0 + ":") }
                        if assigns { return "\(ProjectRoot.printable(ProjectLinter.relative(url, to: base), limit: 200)):\(n + 1)" }
                    }
                } else {
                    var isDirectory: ObjCBool = false
                    // Folders of sources, not bundles (`.xcodeproj`, `.xcassets`) nor dependencies.
                    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue, url.pathExtension.isEmpty,
                       !["Pods", "Carthage", "node_modules", "build", "DerivedData"].contains(name) {
                        queue.append(url)
                    }
                }
            }
        }
        return nil
    }

    /// RFC 3986: a letter, then letters, digits, `+`, `-`, `.`.
    static func isURLScheme(_ s: String) -> Bool {
        guard let first = s.first, first.isASCII, first.isLetter else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    var isApp: Bool {
        guard let manifest = plugin.manifest else { return false }
        if case .other(let point) = manifest.kind { return point.isEmpty }
        return false
    }

    mutating func checkAppRequirements() {
        guard isApp, let info = plugin.info else { return }
        let bundleId = plugin.bundleIdentifier.flatMap { Self.isResolved($0) ? $0 : nil }
        checkIntuneSettings(info, bundleId: bundleId)
        for scheme in plugin.urlSchemes where Self.isResolved(scheme) && !Self.isURLScheme(scheme) {
            report(.error, "url-scheme-invalid", plugin, "CFBundleURLTypes",
                   "declares \"\(scheme)\", which is not a URL scheme (a placeholder left in?); iOS ignores it",
                   fix: "write the scheme: letters, digits, +, - and . (e.g. msauth.\(bundleId ?? "com.example.app"))")
        }
        checkAppKeychain()
        // MSAL's redirect scheme brings a sign-in back, not data: it has no twin.
        checkTwins(plugin.urlSchemes.filter { !$0.lowercased().hasPrefix("msauth.") && Self.isURLScheme($0) }, keyPath: "CFBundleURLTypes", rule: "url-scheme-twin",
                   what: "URL scheme", fix: { "add <string>\($0)-intunemam</string> to the same CFBundleURLSchemes (the configurator does)" })
        let queries = PlistValue(info["LSApplicationQueriesSchemes"] ?? [Any]()).stringArray ?? []
        checkTwins(queries.filter { !Self.sdkQuerySchemes.contains($0.lowercased()) }, keyPath: "LSApplicationQueriesSchemes", rule: "query-scheme-twin",
                   what: "queried scheme", fix: { "add <string>\($0)-intunemam</string> to LSApplicationQueriesSchemes" })
        let listed = Set(queries.map { $0.lowercased() })
        let usesMSAL = plugin.urlSchemes.contains { $0.lowercased().hasPrefix("msauth.") }
            || ((info["IntuneMAMSettings"] as? [String: Any])?["ADALRedirectUri"] != nil)
        let missing = (Self.requiredQuerySchemes + (usesMSAL ? Self.brokerQuerySchemes : [])).filter { !listed.contains($0) }
        if !missing.isEmpty {
            report(.warning, "query-schemes-intune", plugin, "LSApplicationQueriesSchemes",
                   "lacks \(missing.joined(separator: ", ")), which the Intune SDK\(usesMSAL ? " and MSAL's brokered sign-in" : "") query",
                   fix: "add " + missing.map { "<string>\($0)</string>" }.joined())
        }
        // MSAL returns a sign-in to msauth.<bundle id>; other msauth schemes beside it are the
        // app's own business (shipping Intune apps register msauth.com.microsoft.intunemam too),
        // so only an app that lacks its own is told, to add it: nothing a sign-in uses is replaced.
        if let bundleId {
            let own = "msauth.\(bundleId)".lowercased()
            let schemes = plugin.urlSchemes.filter { Self.isResolved($0) }.map { $0.lowercased() }
            let others = schemes.filter { $0.hasPrefix("msauth.") && !$0.hasSuffix("-intunemam") && $0 != own && $0 != "msauth.com.microsoft.intunemam" }
            if !others.isEmpty, !schemes.contains(own) {
                report(.warning, "msauth-scheme", plugin, "CFBundleURLTypes",
                       "declares \(others.joined(separator: ", ")) but not msauth.\(bundleId): MSAL returns a sign-in only to msauth.<bundle id>",
                       fix: "add <string>msauth.\(bundleId)</string> to CFBundleURLSchemes (keep the others)")
            }
        }
        if info["NSFaceIDUsageDescription"] == nil {
            report(.warning, "face-id-usage", plugin, "NSFaceIDUsageDescription",
                   "is missing; the Intune SDK asks for Face ID when the app PIN allows it, and iOS ends an app that asks without a usage description",
                   fix: "add <key>NSFaceIDUsageDescription</key><string>Face ID unlocks your organization's data.</string>")
        }
    }

    /// The sign-in's way back: ADALRedirectUri (msauth.<bundle id>://auth, its scheme
    /// declared) or ADALRedirectScheme (declared), one of them given.
    mutating func checkRedirect(_ dict: [String: Any], bundleId: String?) {
        if let redirect = dict["ADALRedirectUri"] as? String, Self.isResolved(redirect), !redirect.contains("://") || !Self.isURLScheme(redirect.components(separatedBy: "://")[0]) {
            report(.error, "adal-redirect-uri", plugin, "IntuneMAMSettings.ADALRedirectUri",
                   "is \"\(redirect)\", not a redirect URI (a placeholder left in?)",
                   fix: "set it to msauth.\(bundleId ?? "<bundle id>")://auth and register it in Entra")
        } else if let redirect = dict["ADALRedirectUri"] as? String, Self.isResolved(redirect) {
            let scheme = redirect.components(separatedBy: "://").first ?? ""
            if let bundleId, scheme.lowercased() != "msauth.\(bundleId)".lowercased() {
                report(.error, "adal-redirect-uri", plugin, "IntuneMAMSettings.ADALRedirectUri",
                       "is \"\(redirect)\"; for \(bundleId) MSAL expects msauth.\(bundleId)://auth",
                       fix: "set it to msauth.\(bundleId)://auth and register it in Entra")
            }
            if !scheme.isEmpty, !plugin.urlSchemes.contains(where: { $0.lowercased() == scheme.lowercased() }) {
                report(.error, "adal-redirect-scheme", plugin, "CFBundleURLTypes",
                       "does not declare \(scheme), the scheme of ADALRedirectUri, so the sign-in never comes back to the app",
                       fix: "add <string>\(scheme)</string> to a CFBundleURLSchemes array")
            }
        } else if let scheme = dict["ADALRedirectScheme"] as? String, Self.isResolved(scheme) {
            // The other way to give the redirect: the scheme alone (`scheme://bundle id`).
            if !plugin.urlSchemes.contains(where: { $0.lowercased() == scheme.lowercased() }) {
                report(.error, "adal-redirect-scheme", plugin, "CFBundleURLTypes",
                       "does not declare \(scheme), the ADALRedirectScheme, so the sign-in never comes back to the app",
                       fix: "add <string>\(scheme)</string> to a CFBundleURLSchemes array")
            }
        } else if dict["ADALRedirectUri"] == nil, dict["ADALRedirectScheme"] == nil {
            report(.warning, "adal-redirect-uri", plugin, "IntuneMAMSettings.ADALRedirectUri",
                   "is missing, and so is ADALRedirectScheme; the SDK's sign-in needs one of them",
                   fix: "add <key>ADALRedirectUri</key><string>msauth.\(bundleId ?? "<bundle id>")://auth</string>")
        }
    }

    mutating func checkIntuneSettings(_ info: [String: Any], bundleId: String?) {
        guard let settings = info["IntuneMAMSettings"] else {
            // Microsoft Learn (app-sdk-ios): apps may set the Entra settings at run time instead,
            // `aadClientIdOverride`, `aadRedirectUriOverride`, `aadAuthorityUriOverride` — then
            // the dictionary's absence is a note, naming where the code sets them.
            if let place = codeProbe.flatMap(Self.entraSettingsSetInCode) {
                report(.note, "intune-settings", plugin, "IntuneMAMSettings",
                       "is missing, and \(place) sets the Entra settings in code (IntuneMAMSettings' aad…Override properties), which the SDK takes instead; the other keys (MultiIdentity, the app groups…) come only from this dictionary",
                       fix: "keep the overrides; add <key>IntuneMAMSettings</key><dict>…</dict> for the keys no override sets")
                return
            }
            report(.error, "intune-settings", plugin, "IntuneMAMSettings",
                   "is missing; an app built with the Intune App SDK carries its settings (ADALClientId, ADALRedirectUri, MultiIdentity…) in this dictionary",
                   fix: "add <key>IntuneMAMSettings</key><dict>…</dict> (run IntuneMAMConfigurator, or see docs/LINT.md)")
            return
        }
        guard let dict = settings as? [String: Any] else {
            report(.error, "intune-settings", plugin, "IntuneMAMSettings", "must be a dictionary", fix: "make it <dict>…</dict>")
            return
        }
        for key in dict.keys.sorted() where !Self.knownIntuneKeys.contains(key) {
            guard let near = Self.knownIntuneKeys.first(where: { Self.editDistance($0.lowercased(), key.lowercased(), limit: 2) <= 2 }) else { continue }
            report(.error, "intune-settings-key", plugin, "IntuneMAMSettings.\(key)", "is not a key the Intune SDK reads; did you mean \(near)?",
                   fix: "rename it to \(near)")
        }
        for key in Self.booleanIntuneKeys where dict[key] != nil {
            if case .boolean = PlistValue(dict[key]!) { continue }
            report(.error, "intune-settings-type", plugin, "IntuneMAMSettings.\(key)", "must be a boolean (<true/> or <false/>), but it is \(PlistValue(dict[key]!).kindWord)",
                   fix: "write <true/> or <false/>")
        }
        let clientId = dict["ADALClientId"] as? String
        if let clientId, Self.isResolved(clientId), !Self.isGUID(clientId) {
            report(.error, "adal-client-id", plugin, "IntuneMAMSettings.ADALClientId",
                   "is \"\(clientId)\", not an Entra application (client) id; the SDK cannot sign the user in",
                   fix: "set it to the app registration's Application (client) ID, a GUID")
        } else if clientId == nil, let place = codeProbe.flatMap(Self.entraSettingsSetInCode) {
            // Microsoft Learn (app-sdk-ios): the client id may be set at run time instead.
            report(.note, "adal-client-id", plugin, "IntuneMAMSettings.ADALClientId",
                   "is missing, and \(place) sets the Entra settings in code (IntuneMAMSettings.aadClientIdOverride and its siblings), which the SDK takes instead",
                   fix: "keep the override; or add <key>ADALClientId</key> to the dictionary")
        } else if clientId == nil {
            report(.warning, "adal-client-id", plugin, "IntuneMAMSettings.ADALClientId",
                   "is missing; unless the app signs in with MSAL itself and passes the account, the SDK needs the app's Entra client id",
                   fix: "add <key>ADALClientId</key><string>(the app registration's client id)</string>")
        }
        checkRedirect(dict, bundleId: bundleId)
    }

    mutating func checkAppKeychain() {
        guard plugin.entitlements != nil || plugin.entitlementsFile == nil else { return }  // malformed: reported
        // Unresolved prefixes are reported on their own; the group behind them still counts.
        let groups = (plugin.entitlements?.keychainAccessGroups ?? []).map(plugin.bareKeychainGroup)
        if !groups.contains(Linter.intuneKeychainGroup), !groups.contains(where: Self.isMisspelledIntuneGroup) {
            report(.error, "keychain-intune-group", plugin, .entitlements, "keychain-access-groups",
                   plugin.entitlementsFile == nil
                       ? "no entitlements file: the Intune SDK needs the com.microsoft.intune.mam keychain group (-34018 on enrollment otherwise)"
                       : "does not include com.microsoft.intune.mam; a managed account cannot enroll (-34018 on a device)",
                   fix: "add <string>\(Self.teamPrefixVariable)com.microsoft.intune.mam</string> after the bundle id's group")
        }
        // ADALCacheKeychainGroupOverride names the group that replaces com.microsoft.adalcache.
        let cacheGroup = ((plugin.info?["IntuneMAMSettings"] as? [String: Any])?["ADALCacheKeychainGroupOverride"] as? String) ?? "com.microsoft.adalcache"
        if !groups.contains(cacheGroup) {
            report(.warning, "keychain-adal-cache", plugin, .entitlements, "keychain-access-groups",
                   "does not include \(cacheGroup), the token cache the Intune SDK's sign-in shares",
                   fix: "add <string>\(Self.teamPrefixVariable)\(cacheGroup)</string>")
        }
    }

    /// An extension built with the SDK (it has `IntuneMAMSettings`): an app group shared with
    /// its containing app, where the SDK keeps what both read.
    mutating func checkExtensionRequirements() {
        guard isExtension, !isOpenInActionExtension, plugin.info?["IntuneMAMSettings"] != nil else { return }
        checkExtensionKeychain()
        guard let container, container.manifest != nil, plugin.entitlements != nil || plugin.entitlementsFile == nil,
              container.entitlements != nil || container.entitlementsFile == nil else { return }
        let own = Set((plugin.entitlements?.applicationGroups ?? []).filter(Self.isResolved))
        let app = Set((container.entitlements?.applicationGroups ?? []).filter(Self.isResolved))
        if own.isDisjoint(with: app) {
            let example = app.sorted().first ?? container.bundleIdentifier.map { "group." + $0 } ?? "group.com.example.app"
            report(.error, "app-group-shared", plugin, .entitlements, "com.apple.security.application-groups",
                   own.isEmpty ? "lists no app group; the Intune SDK in an extension shares its state with the containing app through one"
                               : "shares no app group with the containing app (\(app.sorted().joined(separator: ", ")))",
                   fix: "add <string>\(example)</string> (the App Groups capability) to both targets")
        }
    }

    /// The SDK guide enables keychain sharing in each target that links the SDK, the
    /// extension's included: the SDK in the extension reads the account and the policy the
    /// app stored under com.microsoft.intune.mam, and finds nothing without the group.
    /// Judged only beside a containing app that carries the SDK's settings: an extension
    /// linted alone, or one of an app without the SDK, has no app's keychain items to read.
    mutating func checkExtensionKeychain() {
        guard container?.info?["IntuneMAMSettings"] != nil else { return }
        guard plugin.entitlements != nil || plugin.entitlementsFile == nil else { return }  // malformed: reported
        let groups = (plugin.entitlements?.keychainAccessGroups ?? []).map(plugin.bareKeychainGroup)
        guard !groups.contains(Linter.intuneKeychainGroup), !groups.contains(where: Self.isMisspelledIntuneGroup) else { return }
        report(.error, "extension-keychain", plugin, .entitlements, "keychain-access-groups",
               plugin.entitlementsFile == nil
                   ? "no entitlements file: the Intune SDK in the extension reads the app's account and policy from the com.microsoft.intune.mam keychain group"
                   : "does not include com.microsoft.intune.mam; the Intune SDK in the extension cannot read the account and policy its containing app stored there",
               fix: "add <string>\(Self.teamPrefixVariable)com.microsoft.intune.mam</string> (the Keychain Sharing capability) to the extension's entitlements")
    }

    /// Every scheme needs its `-intunemam` twin: the SDK rewrites app-to-app URLs with them.
    mutating func checkTwins(_ schemes: [String], keyPath: String, rule: String, what: String, fix: (String) -> String) {
        let set = Set(schemes.map { $0.lowercased() })
        for scheme in schemes where Self.isResolved(scheme) && !scheme.lowercased().hasSuffix("-intunemam") {
            guard !set.contains(scheme.lowercased() + "-intunemam") else { continue }
            report(.error, rule, plugin, keyPath, "the \(what) \(scheme) has no \(scheme)-intunemam twin; Intune routes managed links through the twin",
                   fix: fix(scheme))
        }
    }

    static func isGUID(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12] && s.allSatisfy { $0 == "-" || $0.isHexDigit }
    }
}

extension PlistValue {
    /// "a string", "an integer"… for messages.
    var kindWord: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a number"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .unsupported: "an unsupported value"
        }
    }
}
