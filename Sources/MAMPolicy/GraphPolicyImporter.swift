import MAMModel

/// Imports Microsoft Graph `iosManagedAppProtection` documents into `IosManagedAppProtection`
/// values.
///
/// Takes what real exports contain: UTF-8 or UTF-16 with a BOM, CRLF, `"<prop>@odata.type"`
/// annotations, `@odata.*` and navigation-link keys, `null` for unset values, `""` for unset
/// strings, a missing top-level `@odata.type`, a `{"value": …}` wrapper and collections that
/// mix iOS, Android and app-configuration objects (only iOS protection policies are kept; the
/// rest are reported as skipped). An unknown property is a warning, because Graph grows new
/// ones; a known property with a value of the wrong type is an error, because guessing would
/// silently enforce a different rule.
public enum GraphPolicyImporter {
    /// Imports every iOS app protection policy in `bytes`; `source` names the document in
    /// messages (a path or "inline policy strict").
    public static func importPolicies(_ bytes: [UInt8], source: String) throws(PolicyImportError) -> PolicyImportResult {
        let root = try GraphValue.parse(bytes, source: source)
        return try importPolicies(root, source: source, keyLines: keyLines(bytes))
    }

    /// The line of each property name's first `"name":` in a JSON document, so that an error
    /// names the line to fix.
    static func keyLines(_ bytes: [UInt8]) -> [String: Int] {
        var lines: [String: Int] = [:]
        var line = 1
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\n") { line += 1; i += 1; continue }
            guard b == UInt8(ascii: "\"") else { i += 1; continue }
            // A string: its end, skipping escapes; a key when a colon follows.
            var j = i + 1
            while j < bytes.count, bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
            guard j < bytes.count else { break }
            var k = j + 1
            while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x09 || bytes[k] == 0x0D { k += 1 }
            if k < bytes.count, bytes[k] == UInt8(ascii: ":") {
                let key = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
                if lines[key] == nil { lines[key] = line }
            }
            line += bytes[(i + 1)..<j].filter { $0 == UInt8(ascii: "\n") }.count
            i = j + 1
        }
        return lines
    }

    /// Imports from an already parsed value (e.g. an inline policy of a YAML scenario).
    public static func importPolicies(_ root: GraphValue, source: String, keyLines: [String: Int] = [:]) throws(PolicyImportError) -> PolicyImportResult {
        var result = PolicyImportResult(policies: [], warnings: [], skipped: [])
        let objects: [GraphValue]
        var isCollection = false
        switch root {
        case .array(let items):
            objects = items; isCollection = true
        case .object(let dict):
            if let wrapped = dict["value"], dict.keys.allSatisfy({ $0 == "value" || $0.hasPrefix("@odata.") }) {
                switch wrapped {
                case .array(let items): objects = items; isCollection = true
                case .object: objects = [wrapped]
                default:
                    throw PolicyImportError(source: source, property: "value", value: wrapped.description,
                                            message: "\(source): \"value\" must hold a policy object or an array of them, but it is \(wrapped.description)")
                }
            } else {
                objects = [root]
            }
        default:
            throw PolicyImportError(source: source, property: nil, value: root.description,
                                    message: "\(source) must hold a policy object, an array of them or {\"value\": [...]}, but it holds \(root.kindName)")
        }
        for (index, object) in objects.enumerated() {
            guard case .object(let dict) = object else {
                throw PolicyImportError(source: source, property: nil, value: object.description,
                                        message: "\(source): item \(index) of the collection must be a policy object, but it is \(object.description)")
            }
            let type = odataType(dict)
            let name: String
            if case .string(let n)? = dict["displayName"] { name = n } else { name = "" }
            if let type, !isIOSProtection(type) {
                result.skipped.append(SkippedPolicyObject(index: index, odataType: type, displayName: name))
                continue
            }
            let place = isCollection ? "\(source), object \(index)\(name.isEmpty ? "" : " (\"\(name)\")")" : source
            // Lines name a property only in a document of one policy (a collection repeats them).
            var context = Context(place: place, source: source, keyLines: isCollection ? [:] : keyLines)
            let policy = try importPolicy(dict, context: &context)
            result.policies.append(policy)
            result.warnings += context.warnings
        }
        return result
    }

    package static func odataType(_ dict: [String: GraphValue]) -> String? {
        if case .string(let t)? = dict["@odata.type"], !t.isEmpty { return t }
        return nil
    }

    /// An `@odata.type` without its `#microsoft.graph.` prefix, lowercased
    /// (`iosmanagedappprotection`, `groupassignmenttarget`).
    package static func bareTypeName(_ type: String) -> String {
        var t = Substring(type.lowercased())
        if t.hasPrefix("#") { t = t.dropFirst() }
        if t.hasPrefix("microsoft.graph.") { t = t.dropFirst("microsoft.graph.".count) }
        return String(t)
    }

    static func isIOSProtection(_ type: String) -> Bool {
        var t = Substring(type)
        if t.hasPrefix("#") { t = t.dropFirst() }
        return t.lowercased() == "microsoft.graph.iosmanagedappprotection"
    }

    package struct Context {
        let place: String
        let source: String
        var keyLines: [String: Int] = [:]
        var warnings: [PolicyImportWarning] = []

        package init(place: String, source: String, keyLines: [String: Int] = [:]) {
            self.place = place
            self.source = source
            self.keyLines = keyLines
        }

        func error(_ property: String, _ value: GraphValue, _ expected: String) -> PolicyImportError {
            let at = keyLines[property].map { ", line \($0)" } ?? ""
            return PolicyImportError(source: source, property: property, value: value.description,
                                     message: "\(place)\(at): property \"\(property)\" must be \(expected), but its value is \(value.description) (\(value.kindName)); fix the value or remove the property")
        }

        mutating func warn(_ property: String, _ message: String, kind: PolicyImportWarning.Kind = .remark) {
            warnings.append(PolicyImportWarning(source: source, property: property, message: "\(place): \(message)", kind: kind))
        }
    }

    static func importPolicy(_ dict: [String: GraphValue], context: inout Context) throws(PolicyImportError) -> IosManagedAppProtection {
        var policy = IosManagedAppProtection()
        // Every bad property is named at once, not one per attempt.
        var errors: [PolicyImportError] = []
        for key in dict.keys.sorted() {
            let value = dict[key]!
            // Annotations (`@odata.type`, `prop@odata.type`, `apps@odata.navigationLink`)
            // describe the document, not the policy.
            if key.contains("@") { continue }
            if key == "assignments", value != .null {
                do throws(PolicyImportError) { policy.assignments = try PolicyAssignment.parse(value, key, &context) } catch { errors.append(error) }
                continue
            }
            if navigationProperties.contains(key) && key != "apps" { continue }
            guard let setter = properties[key] else {
                context.warn(key, "unknown property \"\(key)\" ignored (value \(value.description)); check its spelling against Graph's iosManagedAppProtection")
                continue
            }
            if case .null = value { continue }  // unset: keep Intune's default
            do {
                try setter(&policy, value, &context)
            } catch let e as PolicyImportError {
                errors.append(e)
            } catch {
                errors.append(context.error(key, value, "valid"))
            }
        }
        if let first = errors.first {
            guard errors.count > 1 else { throw first }
            throw PolicyImportError(source: first.source, property: first.property, value: first.value,
                                    message: "\(errors.count) properties are not valid: " + errors.map(\.message).joined(separator: "; and "))
        }
        return policy
    }

    /// Navigation properties of the entity: ignored when expanded in an export.
    static let navigationProperties: Set<String> = ["apps", "assignments", "deploymentSummary"]

    package typealias Setter = @Sendable (inout IosManagedAppProtection, GraphValue, inout Context) throws -> Void

    package static let properties: [String: Setter] = {
        let list: [(String, Setter)] = [
            optString(\.id, "id"),
            string(\.displayName, "displayName"),
            string(\.description, "description"),
            optString(\.version, "version"),
            optString(\.createdDateTime, "createdDateTime"),
            optString(\.lastModifiedDateTime, "lastModifiedDateTime"),
            strings(\.roleScopeTagIds, "roleScopeTagIds"),
            bool(\.isAssigned, "isAssigned"),
            int(\.deployedAppCount, "deployedAppCount"),
            apps,
            enumeration(\.appGroupType, "appGroupType"),
            string(\.targetedAppManagementLevels, "targetedAppManagementLevels"),

            enumeration(\.allowedInboundDataTransferSources, "allowedInboundDataTransferSources"),
            enumeration(\.allowedOutboundDataTransferDestinations, "allowedOutboundDataTransferDestinations"),
            enumeration(\.allowedOutboundClipboardSharingLevel, "allowedOutboundClipboardSharingLevel"),
            int(\.allowedOutboundClipboardSharingExceptionLength, "allowedOutboundClipboardSharingExceptionLength"),
            bool(\.filterOpenInToOnlyManagedApps, "filterOpenInToOnlyManagedApps"),
            bool(\.disableProtectionOfManagedOutboundOpenInData, "disableProtectionOfManagedOutboundOpenInData"),
            bool(\.protectInboundDataFromUnknownSources, "protectInboundDataFromUnknownSources"),
            exemptedAppProtocols,
            strings(\.managedUniversalLinks, "managedUniversalLinks"),
            strings(\.exemptedUniversalLinks, "exemptedUniversalLinks"),
            enumeration(\.dialerRestrictionLevel, "dialerRestrictionLevel"),
            optString(\.customDialerAppProtocol, "customDialerAppProtocol"),
            enumeration(\.protectedMessagingRedirectAppType, "protectedMessagingRedirectAppType"),
            optString(\.messagingRedirectAppUrlScheme, "messagingRedirectAppUrlScheme"),
            bool(\.managedBrowserToOpenLinksRequired, "managedBrowserToOpenLinksRequired"),
            enumeration(\.managedBrowser, "managedBrowser"),
            optString(\.customBrowserProtocol, "customBrowserProtocol"),

            bool(\.saveAsBlocked, "saveAsBlocked"),
            enumList(\.allowedDataStorageLocations, "allowedDataStorageLocations"),
            bool(\.blockDataIngestionIntoOrganizationDocuments, "blockDataIngestionIntoOrganizationDocuments"),
            enumList(\.allowedDataIngestionLocations, "allowedDataIngestionLocations"),

            bool(\.printBlocked, "printBlocked"),
            enumeration(\.notificationRestriction, "notificationRestriction"),
            bool(\.dataBackupBlocked, "dataBackupBlocked"),
            bool(\.contactSyncBlocked, "contactSyncBlocked"),
            bool(\.thirdPartyKeyboardsBlocked, "thirdPartyKeyboardsBlocked"),
            bool(\.allowWidgetContentSync, "allowWidgetContentSync"),
            enumeration(\.appDataEncryptionType, "appDataEncryptionType"),
            bool(\.organizationalCredentialsRequired, "organizationalCredentialsRequired"),
            enumeration(\.screenCaptureConfigurationState, "screenCaptureConfigurationState"),
            enumeration(\.genmojiConfigurationState, "genmojiConfigurationState"),
            enumeration(\.writingToolsConfigurationState, "writingToolsConfigurationState"),
            bool(\.purviewContentEvaluationRequired, "purviewContentEvaluationRequired"),

            bool(\.pinRequired, "pinRequired"),
            int(\.minimumPinLength, "minimumPinLength"),
            enumeration(\.pinCharacterSet, "pinCharacterSet"),
            bool(\.simplePinBlocked, "simplePinBlocked"),
            int(\.maximumPinRetries, "maximumPinRetries"),
            enumeration(\.appActionIfMaximumPinRetriesExceeded, "appActionIfMaximumPinRetriesExceeded"),
            duration(\.periodBeforePinReset, "periodBeforePinReset"),
            int(\.previousPinBlockCount, "previousPinBlockCount"),
            duration(\.pinRequiredInsteadOfBiometricTimeout, "pinRequiredInsteadOfBiometricTimeout"),
            bool(\.fingerprintBlocked, "fingerprintBlocked"),
            bool(\.faceIdBlocked, "faceIdBlocked"),
            bool(\.disableAppPinIfDevicePinIsSet, "disableAppPinIfDevicePinIsSet"),

            duration(\.periodOfflineBeforeAccessCheck, "periodOfflineBeforeAccessCheck"),
            duration(\.periodOnlineBeforeAccessCheck, "periodOnlineBeforeAccessCheck"),
            duration(\.periodOfflineBeforeWipeIsEnforced, "periodOfflineBeforeWipeIsEnforced"),
            optDuration(\.gracePeriodToBlockAppsDuringOffClockHours, "gracePeriodToBlockAppsDuringOffClockHours"),
            bool(\.deviceComplianceRequired, "deviceComplianceRequired"),
            enumeration(\.appActionIfDeviceComplianceRequired, "appActionIfDeviceComplianceRequired"),
            enumeration(\.appActionIfUnableToAuthenticateUser, "appActionIfUnableToAuthenticateUser"),
            optEnumeration(\.appActionIfAccountIsClockedOut, "appActionIfAccountIsClockedOut"),
            version(\.minimumRequiredOsVersion, "minimumRequiredOsVersion"),
            version(\.minimumWarningOsVersion, "minimumWarningOsVersion"),
            version(\.minimumWipeOsVersion, "minimumWipeOsVersion"),
            version(\.maximumRequiredOsVersion, "maximumRequiredOsVersion"),
            version(\.maximumWarningOsVersion, "maximumWarningOsVersion"),
            version(\.maximumWipeOsVersion, "maximumWipeOsVersion"),
            version(\.minimumRequiredAppVersion, "minimumRequiredAppVersion"),
            version(\.minimumWarningAppVersion, "minimumWarningAppVersion"),
            version(\.minimumWipeAppVersion, "minimumWipeAppVersion"),
            version(\.minimumRequiredSdkVersion, "minimumRequiredSdkVersion"),
            version(\.minimumWarningSdkVersion, "minimumWarningSdkVersion"),
            version(\.minimumWipeSdkVersion, "minimumWipeSdkVersion"),
            optString(\.allowedIosDeviceModels, "allowedIosDeviceModels"),
            enumeration(\.appActionIfIosDeviceModelNotAllowed, "appActionIfIosDeviceModelNotAllowed"),
            enumeration(\.maximumAllowedDeviceThreatLevel, "maximumAllowedDeviceThreatLevel"),
            enumeration(\.mobileThreatDefenseRemediationAction, "mobileThreatDefenseRemediationAction"),
            optEnumeration(\.mobileThreatDefensePartnerPriority, "mobileThreatDefensePartnerPriority"),
        ]
        var table: [String: Setter] = [:]
        for (name, setter) in list { table[name] = setter }
        return table
    }()

    /// Every Graph property name the importer knows.
    public static var knownProperties: [String] { properties.keys.sorted() }
}
