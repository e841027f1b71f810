/// What mamsim does with each property of Graph's `iosManagedAppProtection` (beta) that the
/// importer reads, navigation properties included (RULES.md §7: every key is enforced, answered by a query, or declared out of
/// scope with why). `docs/GRAPH-COVERAGE.md` is generated from this table
/// (`mamsim schema --graph-coverage`); a test fails when the importer reads a key the table
/// does not place, or the document is stale.
public enum GraphPolicyCoverage {
    public enum Treatment: String, Sendable, CaseIterable {
        /// A decision of the enforcer follows it.
        case enforced
        /// An app's query (`policyQuery`, `useSurface`, the façade's getters) answers it.
        case answered
        /// It describes the policy object, its targeting or its assignment.
        case metadata
        /// Read and kept, not simulated: the reason says why.
        case outOfScope = "out of scope"
    }

    public struct Entry: Sendable, Hashable {
        public let key: String
        public let treatment: Treatment
        /// Where it acts, or why not.
        public let note: String
    }

    static func e(_ key: String, _ t: Treatment, _ note: String) -> Entry { Entry(key: key, treatment: t, note: note) }

    public static let entries: [Entry] = [
        // The policy object and its targeting.
        e("id", .metadata, "the policy's id, kept for reports"),
        e("displayName", .metadata, "names the policy in every explanation"),
        e("description", .metadata, "kept"),
        e("version", .metadata, "kept"),
        e("createdDateTime", .metadata, "kept"),
        e("lastModifiedDateTime", .metadata, "kept"),
        e("roleScopeTagIds", .metadata, "administration scope in the admin center; no effect on a device"),
        e("isAssigned", .metadata, "assignment is the scenario's accounts[].policy and setPolicy"),
        e("deployedAppCount", .metadata, "a service-side count"),
        e("assignments", .metadata, "a navigation property (the groups the policy is assigned to): in a scenario, accounts[].policy and setPolicy; ignored when an export expands it"),
        e("deploymentSummary", .metadata, "a navigation property (the service's deployment counts); ignored when an export expands it"),
        e("apps", .enforced, "the targeted apps: an account is unmanaged in an app its policy does not target (RULES §1); [] targets none, no key every SDK app with a warning"),
        e("appGroupType", .enforced, "selectedPublicApps, allCoreMicrosoftApps, allMicrosoftApps, allApps (RULES §1)"),
        e("targetedAppManagementLevels", .enforced, "targeting by device type: unmanaged reaches apps on a device not MDM-enrolled (device.mdmEnrolled) that MDM does not manage (apps[].mdmManaged), mdm the others, unspecified all"),
        // Data transfer (RULES §2, §3).
        e("allowedInboundDataTransferSources", .enforced, "share, open-in, import, receive: the inbound table (RULES §2)"),
        e("allowedOutboundDataTransferDestinations", .enforced, "share, open-in, URL launches: the outbound table (RULES §2); also Siri/App Intents, Spotlight, app sharing (policyQuery)"),
        e("allowedOutboundClipboardSharingLevel", .enforced, "copy and paste (RULES §3)"),
        e("allowedOutboundClipboardSharingExceptionLength", .enforced, "characters that may be pasted anywhere (RULES §3)"),
        e("filterOpenInToOnlyManagedApps", .enforced, "share sheet filtering (shareTargets, RULES §2)"),
        e("disableProtectionOfManagedOutboundOpenInData", .enforced, "\"with OS sharing\": Apple managed open-in on an MDM-enrolled device (RULES §2)"),
        e("protectInboundDataFromUnknownSources", .enforced, "\"All apps with incoming Org data\": unmanaged data re-owned on arrival, MDM-enrolled devices only (RULES §2)"),
        e("exemptedAppProtocols", .enforced, "URL schemes org data may still launch, beating the dialer and messaging settings (RULES §2)"),
        e("managedUniversalLinks", .enforced, "open in the policy-managed app that claims them, else the required browser (RULES §2)"),
        e("exemptedUniversalLinks", .enforced, "open in their own app whatever the browser setting (RULES §2)"),
        e("dialerRestrictionLevel", .enforced, "tel/telprompt links (openURL); CallKit calls (useSurface callKit)"),
        e("customDialerAppProtocol", .enforced, "the dialer app phone links go to under customApp"),
        e("protectedMessagingRedirectAppType", .enforced, "sms/mms links (openURL)"),
        e("messagingRedirectAppUrlScheme", .enforced, "the messaging app links go to under specificApps"),
        e("managedBrowserToOpenLinksRequired", .enforced, "web links only in the managed browser (openURL); a text view's link menu (useSurface textViewLink)"),
        e("managedBrowser", .enforced, "Microsoft Edge or the custom browser"),
        e("customBrowserProtocol", .enforced, "the custom browser's scheme"),
        // Save and open (RULES §4).
        e("saveAsBlocked", .enforced, "save copies of org data (save, RULES §4); document picker exports (policyQuery)"),
        e("allowedDataStorageLocations", .enforced, "where org data may be saved (save, RULES §4)"),
        e("blockDataIngestionIntoOrganizationDocuments", .enforced, "open data into org documents (open, RULES §4)"),
        e("allowedDataIngestionLocations", .enforced, "where org documents may be opened from (open, RULES §4)"),
        // Other switches (RULES §7).
        e("printBlocked", .enforced, "print"),
        e("notificationRestriction", .enforced, "notify: what a notification of org data may show"),
        e("dataBackupBlocked", .answered, "policyQuery backup (isDataBackupBlocked)"),
        e("contactSyncBlocked", .answered, "policyQuery contactSync (isContactSyncAllowed)"),
        e("thirdPartyKeyboardsBlocked", .answered, "policyQuery thirdPartyKeyboards, for every account of an app holding a managed one (RULES §7)"),
        e("allowWidgetContentSync", .answered, "policyQuery widgets (isWidgetContentSyncAllowed)"),
        e("appDataEncryptionType", .enforced, "org files are encrypted at rest (writeFile, expectState.encrypted); it chooses when, which the simulated device does not model"),
        e("organizationalCredentialsRequired", .outOfScope, "the admin center marks it not used on iOS"),
        e("screenCaptureConfigurationState", .enforced, "screenCapture and useSurface askSiri, screenRecording, by one rule (notBlocked, blocked; it governs from SDK 20.4.0, else restricted sending does); useSurface pictureInPicture (capturing its content)"),
        e("genmojiConfigurationState", .enforced, "useSurface genmoji (notBlocked, blocked); Image Playground is no app protection key's: the device's allowImagePlayground"),
        e("writingToolsConfigurationState", .enforced, "useSurface writingTools (notBlocked, blocked)"),
        e("purviewContentEvaluationRequired", .outOfScope, "Microsoft Purview evaluates the content in the service; nothing on the device decides differently, so mamsim reads it and reports nothing"),
        // Access requirements: the PIN (RULES §8).
        e("pinRequired", .enforced, "the app PIN at a switch, launch or resume outside the recheck window (one per publisher)"),
        e("minimumPinLength", .enforced, "PIN rules"),
        e("pinCharacterSet", .enforced, "numeric or passcode"),
        e("simplePinBlocked", .enforced, "no 3-character repeats or runs"),
        e("maximumPinRetries", .enforced, "wrong entries in a row before its action"),
        e("appActionIfMaximumPinRetriesExceeded", .enforced, "block (reset the PIN) or wipe"),
        e("periodBeforePinReset", .enforced, "the PIN expires and is replaced at the next prompt"),
        e("previousPinBlockCount", .outOfScope, "PIN history is an Android setting (memdocs); ignored on iOS"),
        e("pinRequiredInsteadOfBiometricTimeout", .outOfScope, "the SDK on the device enforces it at the PIN prompt; its input, whether the user unlocks with Face ID or Touch ID, is not simulated, so the PIN is always what the user enters"),
        e("fingerprintBlocked", .outOfScope, "the SDK on the device enforces it at the PIN prompt (Touch ID instead of the PIN); its input, the device's biometrics, is not simulated"),
        e("faceIdBlocked", .outOfScope, "the SDK on the device enforces it at the PIN prompt (Face ID instead of the PIN); its input, the device's biometrics, is not simulated"),
        e("disableAppPinIfDevicePinIsSet", .outOfScope, "the SDK on the device enforces it (no app PIN when the device has a passcode, on MDM-enrolled devices); its input, whether the device has a passcode, is not simulated"),
        // Conditional launch (RULES §8).
        e("periodOnlineBeforeAccessCheck", .enforced, "the PIN's recheck window after inactivity"),
        e("periodOfflineBeforeAccessCheck", .enforced, "blocks access after that long without a check-in"),
        e("periodOfflineBeforeWipeIsEnforced", .enforced, "wipes after that long without a check-in"),
        e("gracePeriodToBlockAppsDuringOffClockHours", .outOfScope, "working-time (off-clock) access needs a workforce-management connector the device does not simulate"),
        e("appActionIfAccountIsClockedOut", .outOfScope, "as gracePeriodToBlockAppsDuringOffClockHours"),
        e("deviceComplianceRequired", .enforced, "jailbroken device check"),
        e("appActionIfDeviceComplianceRequired", .enforced, "its action"),
        e("appActionIfUnableToAuthenticateUser", .enforced, "disabled account (setAccountDisabled)"),
        e("minimumRequiredOsVersion", .enforced, "blocks below"),
        e("minimumWarningOsVersion", .enforced, "warns below"),
        e("minimumWipeOsVersion", .enforced, "wipes at or below"),
        e("maximumRequiredOsVersion", .enforced, "blocks above"),
        e("maximumWarningOsVersion", .enforced, "warns above"),
        e("maximumWipeOsVersion", .enforced, "wipes above"),
        e("minimumRequiredAppVersion", .enforced, "blocks below (the app's version)"),
        e("minimumWarningAppVersion", .enforced, "warns below"),
        e("minimumWipeAppVersion", .enforced, "wipes at or below"),
        e("minimumRequiredSdkVersion", .enforced, "blocks below (the app's sdkVersion)"),
        e("minimumWarningSdkVersion", .enforced, "warns below"),
        e("minimumWipeSdkVersion", .enforced, "wipes at or below"),
        e("allowedIosDeviceModels", .enforced, "device model check"),
        e("appActionIfIosDeviceModelNotAllowed", .enforced, "its action"),
        e("maximumAllowedDeviceThreatLevel", .outOfScope, "the SDK on the device enforces it at conditional launch; its input, the device threat level a Mobile Threat Defense partner reports, is not simulated"),
        e("mobileThreatDefenseRemediationAction", .outOfScope, "the SDK on the device takes the action (block or wipe) when the threat level is exceeded; its input, the partner's threat level, is not simulated"),
        e("mobileThreatDefensePartnerPriority", .outOfScope, "the SDK on the device picks which partner's threat level counts; its input, the partners' reports, is not simulated"),
    ]

    public static func entry(_ key: String) -> Entry? { entries.first { $0.key == key } }

    /// `docs/GRAPH-COVERAGE.md`.
    public static func markdown() -> String {
        var out = """
            <!-- Generated by `mamsim schema --graph-coverage` from MAMPolicy/GraphPolicyCoverage.swift; do not edit. -->
            # Graph `iosManagedAppProtection`: what mamsim does with each property

            Every property the policy importer reads, and whether a decision follows it
            (**enforced**), an app's query answers it (**answered**), it describes the policy object
            (**metadata**), or it is read and not simulated (**out of scope**, with why). A property
            the importer does not know is a load warning naming it. RULES.md §7.


            """
        for t in Treatment.allCases {
            let rows = entries.filter { $0.treatment == t }
            out += "| \(t.rawValue) (\(rows.count)) | |\n|---|---|\n"
            for r in rows { out += "| `\(r.key)` | \(r.note) |\n" }
            out += "\n"
        }
        return out
    }
}
