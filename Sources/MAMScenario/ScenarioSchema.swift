import Foundation
import MAMModel

/// The JSON Schema of scenario files (`schemas/scenario.schema.json`, `mamsim schema`), made
/// from the loader's own tables: the top-level keys, the keys of an app, an extension, an
/// account, the device, and every verb with its required and optional arguments. An editor
/// that reads `# yaml-language-server: $schema=…` completes and checks them; the loader still
/// checks the values (types, names, outcomes) and says where and what to do.
public enum ScenarioSchema {
    /// The schema as JSON text (keys sorted, so the committed file is stable).
    public static func json() -> String {
        let data = (try? JSONSerialization.data(withJSONObject: document(), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// An object of `keys` (any value, unless `shaped` gives one's schema).
    static func object(_ keys: [String], required: [String] = [], open: Bool = false, shaped: [String: [String: Any]] = [:]) -> [String: Any] {
        var o: [String: Any] = ["type": "object", "properties": Dictionary(uniqueKeysWithValues: keys.map { ($0, shaped[$0] ?? [String: Any]()) })]
        if !required.isEmpty { o["required"] = required }
        if !open { o["additionalProperties"] = false }
        return o
    }

    static func list(of item: [String: Any]) -> [String: Any] { ["type": "array", "items": item] }

    /// One argument's schema: its JSON type (text also takes a number or boolean, as YAML reads
    /// `text: 42`), the words of a choice, and what it means.
    static func schema(of argument: VerbArgument) -> [String: Any] {
        var types: [String]
        var o: [String: Any] = ["description": argument.about]
        switch argument.kind {
        case .app, .account, .duration: types = ["string"]
        case .text: types = ["string", "number", "boolean"]
        case .bool: types = ["boolean"]
        case .choice(let words): types = ["string"]; o["enum"] = words + (argument.nullable ? [NSNull()] : [])
        case .item: types = ["object"]
            o["properties"] = Dictionary(uniqueKeysWithValues: ["type", "text", "data", "file"].map { ($0, [String: Any]()) })
            o["additionalProperties"] = false
        case .list: types = ["array"]
        case .mapping: types = ["object"]
        }
        if argument.nullable { types.append("null") }
        o["type"] = types.count == 1 ? types[0] as Any : types as Any
        return o
    }

    /// `docs/SCENARIOS.md`'s verb reference: one row per verb of the registry.
    public static func verbTable() -> String {
        var rows = ["| verb | since | arguments (`?` optional) | outcomes | what it does |", "|---|---|---|---|---|"]
        for verb in Verb.allCases {
            let t = verb.type
            let arguments = t.arguments.map { "`\($0.key)\($0.required ? "" : "?")`" }.joined(separator: ", ")
            let outcomes = t.outcomes.map { "`\($0.rawValue)`" }.joined(separator: ", ").replacingOccurrences(of: "|", with: "\\|")
            rows.append("| `\(t.name)` | \(t.since) | \(arguments) | \(outcomes) | \(t.summary); e.g. `\(t.example)` |")
        }
        return rows.joined(separator: "\n") + "\n"
    }

    /// A step: one verb with its arguments (each verb's own object), a name and `expect`.
    static func stepSchema() -> [String: Any] {
        let verbs = Verb.allCases.map(\.rawValue)
        var stepProperties: [String: Any] = [
            "name": ["type": "string", "description": "what the step shows (its line in reports)"],
            "expect": ["description": "the outcome the step must have (docs/SCENARIOS.md, Outcomes); without it the outcome is recorded"],
        ]
        for verb in Verb.allCases {
            let arguments = verb.type.arguments
            var properties: [String: Any] = [:]
            for argument in arguments { properties[argument.key] = schema(of: argument) }
            var o: [String: Any] = ["type": "object", "properties": properties, "additionalProperties": false,
                                    "description": "\(verb.type.summary) (\(verb.type.since)). Example: \(verb.type.example)"]
            let required = arguments.filter(\.required).map(\.key)
            if !required.isEmpty { o["required"] = required }
            stepProperties[verb.rawValue] = o
        }
        return [
            "type": "object",
            "description": "one verb with its arguments, an optional name and expect",
            "properties": stepProperties,
            "additionalProperties": false,
            "oneOf": verbs.map { ["required": [$0]] },
        ]
    }

    static func document() -> [String: Any] {
        let step = stepSchema()
        let sandbox = ["sandbox": object(["read", "environment"])]
        let app = object(Loading.appKeys, required: ["id"], shaped: sandbox)
        let ext = object(Loading.extensionKeys, required: ["id"], shaped: sandbox)
        let properties: [String: Any] = [
            "name": ["type": "string"],
            "device": object(Loading.deviceKeys),
            "accounts": list(of: object(Loading.accountKeys, required: ["upn"])),
            // Inline Graph iosManagedAppProtection properties, or {file, apps}: the importer checks them.
            "policies": ["type": "object", "additionalProperties": ["type": "object"]],
            "allowedAccounts": ["type": ["array", "null"], "items": ["type": "string"]],
            "apps": list(of: app),
            "extensions": list(of: ext),
            "steps": list(of: ["$ref": "#/$defs/step"]),
            "appConfigs": list(of: object(Loading.appConfigKeys)),
            "declarations": ["type": "array"],
            "conditionalAccess": list(of: object(Loading.conditionalAccessKeys, open: true)),
            // Strict Mode (v1.5, docs/STRICT.md): true, or whether and which findings a team accepted.
            "strict": ["oneOf": [["type": "boolean"], object(["enabled", "suppress"], shaped: [
                "enabled": ["type": "boolean"],
                "suppress": list(of: object(["check", "file", "reason"], required: ["check", "reason"], shaped: [
                    "check": ["enum": StrictCheck.allCases.map(\.rawValue)]])),
            ])]],
        ]
        precondition(Set(properties.keys) == Set(Loading.topLevelKeys), "every top-level key of the loader is in the schema")
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/mamsim/mamsim/schemas/scenario.schema.json",
            "title": "mamsim scenario file (docs/SCENARIOS.md: v1, v1.1, v1.2)",
            "description": "Generated by `mamsim schema` from the loader's tables; the loader checks values. Put `# yaml-language-server: $schema=<path to this file>` at the top of a scenario for completion in editors.",
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
            "$defs": ["step": step],
        ]
    }
}
