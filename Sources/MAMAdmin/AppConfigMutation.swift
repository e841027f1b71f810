import Foundation
public import MAMPolicy

/// The mutants of an Intune app configuration (`mamsim mutate`, docs/MUTATE.md): each key of
/// its `customSettings` moved to the value that differs most from what it carries — a boolean
/// to the other one, a number to 0 (1 when it is 0), any other text removed (the app finds no
/// such key) — or to each of a key's values with `--all-values`.
public enum AppConfigMutation {
    public struct Mutant: Sendable {
        /// The key of `customSettings`.
        public var key: String
        /// The value it was moved to, or nil: the key removed.
        public var value: String?
        public var config: AppConfigPolicy

        /// The value as a report writes it.
        public var written: String { value.map { $0.debugDescription } ?? "(key removed)" }
    }

    /// The values a key of `value` is moved to, the one that differs most first.
    public static func values(for value: String) -> [String?] {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "true": return ["false", nil, ""]
        case "false": return ["true", nil, ""]
        default: break
        }
        if let number = Double(trimmed), !trimmed.isEmpty {
            return (number == 0 ? ["1", "0"] : ["0", "1"]).filter { $0 != trimmed } + ["-1", nil]
        }
        return [nil, "", "mamsim-mutant"].filter { $0 != value }
    }

    /// `config`'s mutants, a key at a time in the configuration's order: the value that
    /// differs most, or each value (`allValues`).
    public static func mutants(of config: AppConfigPolicy, allValues: Bool = false) -> [Mutant] {
        config.settings.flatMap { pair in
            let values = values(for: pair.value)
            return (allValues ? values : Array(values.prefix(1))).map { value in
                var c = config
                if let value {
                    c.settings = c.settings.map { $0.name == pair.name ? KeyValuePair(name: $0.name, value: value) : $0 }
                } else {
                    c.settings.removeAll { $0.name == pair.name }
                }
                return Mutant(key: pair.name, value: value, config: c)
            }
        }
    }
}
