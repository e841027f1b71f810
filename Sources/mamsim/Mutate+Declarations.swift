import Foundation
import MAMActivation
import MAMDeclarations
import MAMScenario

/// The mutants of an app's managed configuration as Apple's declarative device management
/// delivers it (`com.apple.configuration.app.managed` → `AppConfig.DataAssetReference`, and each
/// extension's): each top-level key of the configuration's property list moved to the value
/// that differs most — a boolean to the other, a number to 0 (1 when it is 0), anything else
/// removed — or to each of a key's values (`--all-values`). The data asset is rewritten as the
/// MDM server would: the property list, and its declaration's `Size` and `Hash-SHA-256`.
enum DeclarationMutation {
    struct Mutant {
        var asset: String
        var key: String
        var written: String
        var entry: DeclarationSet.Entry
    }

    /// The data assets an app's or extension's managed configuration names.
    static func configurationAssets(_ entries: [DeclarationSet.Entry]) -> [String] {
        var names: [String] = []
        for e in entries where e.declaration.type == "com.apple.configuration.app.managed" {
            let payload = e.declaration.payload
            let configs = [payload["AppConfig"]?.object] + (payload["ExtensionConfigs"]?.object ?? [:]).keys.sorted().map { payload["ExtensionConfigs"]?.object?[$0]?.object }
            for config in configs.compactMap({ $0 }) {
                if let name = config["DataAssetReference"]?.string, !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    static func mutants(of entries: [DeclarationSet.Entry], allValues: Bool) -> [Mutant] {
        var out: [Mutant] = []
        for name in configurationAssets(entries) {
            guard let entry = entries.first(where: { $0.declaration.identifier == name && $0.declaration.type == "com.apple.asset.data" }),
                  let data = entry.assetData,
                  let plist = try? PropertyListSerialization.propertyList(from: Data(data), options: [], format: nil) as? [String: Any] else { continue }
            for key in plist.keys.sorted() {
                let values = candidates(plist[key] as Any)
                for value in allValues ? values : Array(values.prefix(1)) {
                    var changed = plist
                    changed[key] = value
                    guard let bytes = try? PropertyListSerialization.data(fromPropertyList: changed, format: .xml, options: 0) else { continue }
                    out.append(Mutant(asset: name, key: key, written: value.map(describe) ?? "(key removed)",
                                      entry: DeclarationSet.Entry(declaration: rehashed(entry.declaration, Array(bytes)), assetData: Array(bytes))))
                }
            }
        }
        return out
    }

    /// A key's values, the one that differs most first; nil removes the key.
    static func candidates(_ value: Any) -> [Any?] {
        // A property list's booleans read as Bool, its numbers as NSNumber.
        if let flag = value as? Bool, type(of: value) == Bool.self { return [!flag, nil] }
        if let number = value as? NSNumber {
            return (number.doubleValue == 0 ? [1, 0] : [0, 1]).filter { Double($0) != number.doubleValue }.map { $0 as Any? } + [-1, nil]
        }
        if let text = value as? String { return [nil, "", "mamsim-mutant"].filter { ($0 as String?) != text } }
        return [nil]
    }

    static func describe(_ value: Any) -> String {
        if let flag = value as? Bool, type(of: value) == Bool.self { return flag ? "true" : "false" }
        if let s = value as? String { return s.debugDescription }
        return "\(value)"
    }

    /// The asset's declaration with the `Size` and `Hash-SHA-256` of its new data.
    static func rehashed(_ d: Declaration, _ bytes: [UInt8]) -> Declaration {
        var payload = d.payload
        if var reference = payload["Reference"]?.object {
            reference["Size"] = .number(Double(bytes.count))
            reference["Hash-SHA-256"] = .string(SHA256Digest.hex(bytes))
            payload["Reference"] = .object(reference)
        }
        return Declaration(type: d.type, identifier: d.identifier, serverToken: d.serverToken, payload: payload, source: d.source)
    }

    /// Where a key is written: the asset's property list beside its declaration (`<key>K</key>`),
    /// else the declaration's file.
    static func place(of m: Mutant, in scenario: Scenario) -> SourcePlace? {
        let source = URL(fileURLWithPath: m.entry.declaration.source)
        guard FileManager.default.fileExists(atPath: source.path) else { return nil }
        var place = SourcePlace(scenarioLine: 1, file: source)
        if let url = m.entry.declaration.payload["Reference"]?.object?["DataURL"]?.string, let name = URL(string: url)?.lastPathComponent,
           let text = try? String(contentsOf: source.deletingLastPathComponent().appendingPathComponent(name), encoding: .utf8) {
            for (i, line) in TextLines.split(text).enumerated() where line.contains("<key>\(m.key)</key>") {
                place = SourcePlace(scenarioLine: 1, file: source.deletingLastPathComponent().appendingPathComponent(name), lines: [m.key: i + 1])
                break
            }
        }
        return place
    }
}
