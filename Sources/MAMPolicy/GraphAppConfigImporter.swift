import MAMModel

/// What importing Graph app configuration documents gave: the configurations, warnings and
/// the objects of a collection that were something else.
public struct AppConfigImportResult: Sendable {
    public var configurations: [AppConfigPolicy]
    public var warnings: [PolicyImportWarning]
    public var skipped: [SkippedPolicyObject]
}

/// Imports Microsoft Graph `targetedManagedAppConfiguration` documents (RULES.md §9), as the
/// admin center or Graph exports them: UTF-8 or UTF-16 with a BOM, `@odata` annotations,
/// navigation links, a `{"value": [...]}` collection that may mix in protection policies (those
/// are skipped and reported). `customSettings` is a list of `{name, value}` pairs whose values
/// are strings; `apps` the expanded `managedMobileApp` objects or bundle ids. A property of the
/// wrong type is an error naming its key path; an unknown property is a warning.
public enum GraphAppConfigImporter {
    public static func importConfigurations(_ bytes: [UInt8], source: String) throws(PolicyImportError) -> AppConfigImportResult {
        let root = try GraphValue.parse(bytes, source: source)
        return try importConfigurations(root, source: source)
    }

    public static func importConfigurations(_ root: GraphValue, source: String) throws(PolicyImportError) -> AppConfigImportResult {
        var result = AppConfigImportResult(configurations: [], warnings: [], skipped: [])
        let (objects, isCollection) = try collection(root, source: source)
        for (index, object) in objects.enumerated() {
            guard case .object(let dict) = object else {
                throw PolicyImportError(source: source, property: nil, value: object.description,
                                        message: "\(source): item \(index) of the collection must be an app configuration object, but it is \(object.description)")
            }
            var name = ""
            if case .string(let n)? = dict["displayName"] { name = n }
            if let type = GraphPolicyImporter.odataType(dict), !isAppConfiguration(type) {
                result.skipped.append(SkippedPolicyObject(index: index, odataType: type, displayName: name))
                continue
            }
            let place = isCollection ? "\(source), object \(index)\(name.isEmpty ? "" : " (\"\(name)\")")" : source
            var context = GraphPolicyImporter.Context(place: place, source: source)
            result.configurations.append(try importConfiguration(dict, context: &context))
            result.warnings += context.warnings
        }
        return result
    }

    static func collection(_ root: GraphValue, source: String) throws(PolicyImportError) -> ([GraphValue], Bool) {
        switch root {
        case .array(let items): return (items, true)
        case .object(let dict):
            if let wrapped = dict["value"], dict.keys.allSatisfy({ $0 == "value" || $0.hasPrefix("@odata.") }) {
                if case .array(let items) = wrapped { return (items, true) }
                if case .object = wrapped { return ([wrapped], false) }
                throw PolicyImportError(source: source, property: "value", value: wrapped.description,
                                        message: "\(source): \"value\" must hold an app configuration object or an array of them, but it is \(wrapped.description)")
            }
            return ([root], false)
        default:
            throw PolicyImportError(source: source, property: nil, value: root.description,
                                    message: "\(source) must hold a targetedManagedAppConfiguration object, an array of them or {\"value\": [...]}, but it holds \(root.kindName)")
        }
    }

    static func isAppConfiguration(_ type: String) -> Bool {
        var t = Substring(type)
        if t.hasPrefix("#") { t = t.dropFirst() }
        return t.lowercased() == "microsoft.graph.targetedmanagedappconfiguration"
    }

    /// Properties of the entity that say nothing about what the app receives.
    static let descriptive: Set<String> = ["id", "description", "version", "deployedAppCount", "isAssigned", "createdDateTime",
                                           "lastModifiedDateTime", "roleScopeTagIds", "targetedAppManagementLevels", "appGroupType",
                                           "deploymentSummary"]

    static func importConfiguration(_ dict: [String: GraphValue], context: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> AppConfigPolicy {
        var config = AppConfigPolicy(name: "")
        for key in dict.keys.sorted() {
            let value = dict[key]!
            if key.contains("@") || descriptive.contains(key) { continue }
            if case .null = value { continue }
            switch key {
            case "displayName":
                guard case .string(let s) = value else { throw context.error(key, value, "a string") }
                config.displayName = s
            case "customSettings":
                config.settings = try settings(value, context: &context)
            case "apps":
                config.apps = try apps(value, context: &context)
            case "assignments":
                config.assignments = try PolicyAssignment.parse(value, key, &context)
            case "settings":
                // The beta settings-catalog form; the SDK reads customSettings.
                if case .array(let items) = value, !items.isEmpty {
                    context.warn(key, "\"settings\" (\(items.count) settings-catalog entries) is not delivered to apps through the SDK; put the app's keys in customSettings")
                }
            default:
                context.warn(key, "unknown property \"\(key)\" ignored (value \(value.description)); check its spelling against Graph's targetedManagedAppConfiguration")
            }
        }
        config.name = config.displayName
        return config
    }

    static func settings(_ value: GraphValue, context: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> [KeyValuePair] {
        let expected = "an array of {\"name\": ..., \"value\": ...} pairs with string values"
        guard case .array(let items) = value else { throw context.error("customSettings", value, expected) }
        var pairs: [KeyValuePair] = []
        for (i, item) in items.enumerated() {
            let path = "customSettings[\(i)]"
            guard case .object(let o) = item else { throw context.error(path, item, "a {\"name\": ..., \"value\": ...} object") }
            guard case .string(let name)? = o["name"], !name.isEmpty else {
                throw context.error("\(path).name", o["name"] ?? .null, "a non-empty string (the key the app reads)")
            }
            let text: String
            switch o["value"] ?? .null {
            case .string(let s): text = s
            case .null: text = ""
            case let other:
                // Graph stores every value as a string; a number or boolean here was typed by
                // hand and would reach the app as text anyway.
                throw context.error("\(path).value", other, "a string (Graph keeps every custom setting as text, e.g. \"\(other.description)\" in quotes)")
            }
            if pairs.contains(where: { $0.name == name }) {
                context.warn(path, "key \"\(name)\" appears twice in customSettings; the app receives the last value")
            }
            pairs.append(KeyValuePair(name: name, value: text))
        }
        return pairs
    }

    static func apps(_ value: GraphValue, context: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> [BundleID] {
        var policy = IosManagedAppProtection()
        do {
            try GraphPolicyImporter.apps.1(&policy, value, &context)
        } catch let e as PolicyImportError {
            throw e
        } catch {
            throw context.error("apps", value, "an array of bundle ids or of managedMobileApp objects")
        }
        return policy.apps
    }
}
