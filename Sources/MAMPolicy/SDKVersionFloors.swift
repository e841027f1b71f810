
/// The Intune App SDK for iOS versions Microsoft documents per setting and per date, as data:
/// a setting an app's SDK is too old for does not apply there (the scenario's `sdkVersion`), and
/// `lint` and the run say which dates and floors an SDK version is past. Each row names its
/// source; a setting without a row has no documented floor.
public enum SDKVersionFloors {
    /// One setting's floor: the Graph properties it covers, the minimum SDK (by release train
    /// where the train decides it), the source.
    public struct Row: Sendable, Hashable {
        public var settings: [String]
        public var minimum: String
        /// For a setting whose floor depends on the train: (first version of the train, floor).
        public var byTrain: [(train: String, minimum: String)]
        public var source: String

        public static func == (a: Row, b: Row) -> Bool { a.settings == b.settings && a.minimum == b.minimum && a.source == b.source }
        public func hash(into hasher: inout Hasher) { hasher.combine(settings) }

        /// The floor that holds for an SDK of `version`'s train.
        public func floor(for version: Version) -> Version {
            let trains = byTrain.compactMap { t in Version(t.train).map { ($0, t.minimum) } }.sorted { $0.0 > $1.0 }
            let floor = trains.first { version >= $0.0 }?.1 ?? minimum
            return Version(floor) ?? Version(minimum)!
        }
    }

    static let settingsPage = "Learn, iOS app protection policy settings (ref-settings-ios.md, 2025-11-18)"

    /// Learn's minimum SDK per setting, where it states one.
    public static let settings: [Row] = [
        Row(settings: ["maximumWipeOsVersion", "maximumRequiredOsVersion", "maximumWarningOsVersion"], minimum: "14.4.0", byTrain: [],
            source: "\(settingsPage), « Max OS version »: Intune SDK 14.4.0 or later"),
        Row(settings: ["minimumWipeOsVersion", "minimumRequiredOsVersion", "minimumWarningOsVersion",
                       "minimumWipeAppVersion", "minimumRequiredAppVersion", "minimumWarningAppVersion"], minimum: "7.0.1", byTrain: [],
            source: "\(settingsPage), « Min OS version », « Min app version »: Intune SDK 7.0.1 or later"),
        Row(settings: ["maximumAllowedDeviceThreatLevel"], minimum: "12.0.15", byTrain: [],
            source: "\(settingsPage), « Max allowed device threat level »: 12.0.15"),
        Row(settings: ["dialerRestrictionLevel", "customDialerAppProtocol"], minimum: "12.7.0", byTrain: [],
            source: "\(settingsPage), « Transfer telecommunication data to »: 12.7.0"),
        Row(settings: ["protectedMessagingRedirectAppType", "messagingRedirectAppUrlScheme"], minimum: "19.0.0", byTrain: [],
            source: "\(settingsPage), « Transfer messaging data to »: 19.0.0"),
        Row(settings: ["allowedOutboundClipboardSharingExceptionLength"], minimum: "9.0.14", byTrain: [],
            source: "\(settingsPage), « Cut and copy character limit for any app »: 9.0.14"),
        Row(settings: ["thirdPartyKeyboardsBlocked"], minimum: "12.0.16", byTrain: [],
            source: "\(settingsPage), « Third party keyboards »: 12.0.16 (8.0.14 to 12.0.15 apply it incorrectly in multi-identity apps)"),
        Row(settings: ["customBrowserProtocol", "managedBrowser"], minimum: "11.0.9", byTrain: [],
            source: "\(settingsPage), « Unmanaged browser »: 11.0.9"),
        Row(settings: ["genmojiConfigurationState", "writingToolsConfigurationState"], minimum: "19.7.12", byTrain: [("20.0.0", "20.4.0")],
            source: "\(settingsPage), « Genmoji », « Writing Tools »: v19.7.12 (Xcode 15), v20.4.0 (Xcode 16)"),
        Row(settings: ["pinCharacterSet"], minimum: "7.1.12", byTrain: [],
            source: "\(settingsPage), « Passcode PIN type »: 7.1.12"),
    ]

    /// The first floor `setting` has that `sdkVersion` is below, with its row: the setting does
    /// not apply in that app. `nil` when the version is unknown (a scenario without
    /// `sdkVersion`: the SDK as it ships) or at or past the floor.
    public static func unmet(_ setting: String, sdkVersion: String?) -> (floor: Version, row: Row)? {
        guard let written = sdkVersion, let version = Version(written) else { return nil }
        guard let row = settings.first(where: { $0.settings.contains(setting) }) else { return nil }
        let floor = row.floor(for: version)
        return version < floor ? (floor, row) : nil
    }

    /// From this release on the SDK reads the values of the app configuration keys it enforces
    /// without the whitespace around them (22.2.0 release notes: « Ignore leading/trailing
    /// whitespace when evaluating SDK-enforced app config values »).
    public static let trimsAppConfigValues = Version("22.2.0")!

    /// The app configuration key 22.2.0 added (« an on-demand app biometric setup shortcut,
    /// controlled by the com.microsoft.intune.mam.BiometricSetupShortcut app config »): read,
    /// and said not simulated (mamsim has no biometric setup).
    public static let biometricSetupShortcutKey = "com.microsoft.intune.mam.BiometricSetupShortcut"

    /// A dated requirement an SDK version is judged against.
    public struct Notice: Sendable, Hashable {
        /// Versions below this one are concerned (on the train `train`, when set).
        public var below: String
        public var train: String?
        public var since: String
        public var says: String
        public var source: String
    }

    static let notices = "Learn, What's new in Intune, notices (intune-notices.md)"

    /// Microsoft's dated requirements on the SDK an app links, newest first.
    public static let dated: [Notice] = [
        Notice(below: "20.8.0", train: nil, since: "from late June 2026",
               says: "users opening the app see a warning that it is built with an Intune SDK older than 20.8.0 (non-blocking)",
               source: "\(notices): « Starting in late June 2026, users opening iOS apps built with an Intune MAM SDK version earlier than 20.8.0 will see a warning message »"),
        Notice(below: "21.1.0", train: "21.0.0", since: "from January 19, 2026",
               says: "apps built with Xcode 26 need SDK 21.1.0 or later, or users are blocked from launching them",
               source: "\(notices): « If you don't update to the latest versions, users will be blocked from launching your app » (21.1.0+ for Xcode 26)"),
        Notice(below: "20.8.0", train: "20.0.0", since: "from January 19, 2026",
               says: "apps built with Xcode 16 need SDK 20.8.0 or later, or users are blocked from launching them",
               source: "\(notices): (same notice) 20.8.0+ for Xcode 16"),
        Notice(below: "20.0.0", train: nil, since: "as the 21.x README says",
               says: "Microsoft supports Intune App SDK 20.0.0 and later only",
               source: "ms-intune-app-sdk-ios README (21.7.1): « We only support Intune App SDK version 20.0.0+ »"),
    ]

    /// The notices `sdkVersion` falls under.
    public static func notices(for sdkVersion: String) -> [Notice] {
        guard let version = Version(sdkVersion) else { return [] }
        return dated.filter { n in
            guard let below = Version(n.below), version < below else { return false }
            guard let train = n.train.flatMap(Version.init) else { return true }
            // A notice for a train concerns that train's versions only.
            return version >= train && version.components.first == train.components.first
        }
    }

    /// The lowest iOS each train runs on, with its source.
    public static let minimumOS: [(train: String, os: String, source: String)] = [
        ("21.0.0", "17.0", "ms-intune-app-sdk-ios README: « 21.0.0+ | 17+ | 26 »; 21.1.0 release notes: « Minimum supported iOS version is now iOS 17.0 »"),
        ("20.1.0", "16.0", "20.1.0 release notes: « iOS/iPadOS 16.0 is now the minimum supported OS version »"),
    ]

    /// The lowest iOS an SDK of `sdkVersion` runs on, with the source; `nil` when no row says.
    public static func minimumOS(for sdkVersion: String) -> (os: Version, source: String)? {
        guard let version = Version(sdkVersion) else { return nil }
        for row in minimumOS {
            if let train = Version(row.train), version >= train, let os = Version(row.os) { return (os, row.source) }
        }
        return nil
    }
}
