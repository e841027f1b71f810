import Foundation
import MAMActivation
/// Xcode build settings used to expand `$(VAR)` / `${VAR}` references in an Info.plist or
/// entitlements file, as Xcode does when it processes them (`$(PRODUCT_BUNDLE_IDENTIFIER)`,
/// `$(PRODUCT_MODULE_NAME).ShareViewController`, `$(AppIdentifierPrefix)com.microsoft.intune.mam`).
///
/// Supported: `$(VAR)`, `${VAR}` and unbraced `$VAR`, nested references (`$(A_$(B))`), values
/// that themselves hold references, and the
/// modifiers `:lower`, `:upper`, `:identifier`, `:c99extidentifier`, `:rfc1034identifier` and
/// `:default=text`.
/// A reference that cannot be resolved is left as written and reported with its key path.
public struct BuildSettings: Sendable, Hashable {
    public var variables: [String: String]
    /// Settings code signing sets when it signs (the team's prefix), never unset in a build.
    /// Also what the build itself defines on the machine that builds — the user's login and
    /// home, the build's own folders — never unset, and never known here: kept as written.
    static let setBySigning: Set<String> = ["AppIdentifierPrefix", "TeamIdentifierPrefix",
        "USER", "HOME", "UID", "GROUP", "LOGNAME", "DERIVED_FILE_DIR", "DERIVED_SOURCES_DIR", "TARGET_TEMP_DIR", "TEMP_DIR",
        "PROJECT_TEMP_DIR", "OBJROOT", "SYMROOT", "BUILD_DIR", "BUILD_ROOT", "CONFIGURATION_BUILD_DIR", "CONFIGURATION_TEMP_DIR",
        "TARGET_BUILD_DIR", "DSTROOT", "SHARED_DERIVED_FILE_DIR"]

    /// Whether `text` names one of the build's own folders: a file there is written by the build.
    public static func namesABuildFolder(_ text: String) -> Bool {
        ["DERIVED_FILE_DIR", "DERIVED_SOURCES_DIR", "TARGET_TEMP_DIR", "TEMP_DIR", "PROJECT_TEMP_DIR", "OBJROOT", "SYMROOT", "BUILD_DIR",
         "CONFIGURATION_BUILD_DIR", "CONFIGURATION_TEMP_DIR", "TARGET_BUILD_DIR", "SHARED_DERIVED_FILE_DIR"]
            .contains { text.contains("$(\($0))") || text.contains("${\($0)}") }
    }

    /// - Parameter teamIdentifierPrefix: the team prefix with its dot (`ABCDE12345.`); sets
    ///   `AppIdentifierPrefix` and `TeamIdentifierPrefix` unless `variables` already does.
    public init(_ variables: [String: String] = [:], teamIdentifierPrefix: String? = nil) {
        self.variables = variables
        if let team = teamIdentifierPrefix {
            if self.variables["AppIdentifierPrefix"] == nil { self.variables["AppIdentifierPrefix"] = team }
            if self.variables["TeamIdentifierPrefix"] == nil { self.variables["TeamIdentifierPrefix"] = team }
        }
    }

    /// Expands one string; unresolved references are appended to `unresolved`.
    public func expand(_ text: String, keyPath: String, unresolved: inout [UnresolvedBuildSetting]) -> String {
        expand(text, keyPath: keyPath, depth: 0, unresolved: &unresolved)
    }

    /// Expands every string (not keys) in a property-list value.
    public func expand(plist value: Any, keyPath: String, unresolved: inout [UnresolvedBuildSetting]) -> Any {
        switch value {
        case let s as String:
            return expand(s, keyPath: keyPath, depth: 0, inPlist: true, unresolved: &unresolved)
        case let a as [Any]:
            return a.enumerated().map { expand(plist: $0.element, keyPath: "\(keyPath)[\($0.offset)]", unresolved: &unresolved) }
        case let d as [String: Any]:
            var out: [String: Any] = [:]
            for key in d.keys.sorted() {
                out[key] = expand(plist: d[key]!, keyPath: keyPath.isEmpty ? key : keyPath + "." + key, unresolved: &unresolved)
            }
            return out
        default:
            return value
        }
    }

    /// `inPlist`: an unbraced `$name` no setting defines is a property list's own text, kept
    /// and never reported — an activation rule's predicate variables (`$attachment`,
    /// `$fileproviderItem`) are written so, and Xcode builds them unchanged.
    private func expand(_ text: String, keyPath: String, depth: Int, inPlist: Bool = false, unresolved: inout [UnresolvedBuildSetting]) -> String {
        let chars = Array(text)
        var out = ""
        var i = 0
        while i < chars.count {
            // `$NAME`, unbraced, as Xcode also reads it: the longest run of letters, digits and `_`.
            if chars[i] == "$", i + 1 < chars.count, Self.startsName(chars[i + 1]) {
                var j = i + 1
                while j < chars.count, Self.continuesName(chars[j]) { j += 1 }
                let name = String(chars[(i + 1)..<j])
                if depth < 8, let value = variables[name] {
                    out += expand(value, keyPath: keyPath, depth: depth + 1, unresolved: &unresolved)
                } else if Self.setBySigning.contains(name) || inPlist && variables[name] == nil {
                    out += "$" + name
                } else {
                    unresolved.append(UnresolvedBuildSetting(name: name, keyPath: keyPath,
                        problem: depth < 8 ? "is not set" : "refers to itself (expansion deeper than 8 levels)"))
                    out += "$" + name
                }
                i = j
                continue
            }
            guard chars[i] == "$", i + 1 < chars.count, chars[i + 1] == "(" || chars[i + 1] == "{" else {
                out.append(chars[i]); i += 1; continue
            }
            let open = chars[i + 1], close: Character = open == "(" ? ")" : "}"
            var level = 1, j = i + 2
            while j < chars.count, level > 0 {
                if chars[j] == open { level += 1 } else if chars[j] == close { level -= 1 }
                if level > 0 { j += 1 }
            }
            guard j < chars.count else {
                unresolved.append(UnresolvedBuildSetting(name: String(chars[(i + 2)...]), keyPath: keyPath, problem: "has no closing '\(close)'"))
                out += String(chars[i...]); break
            }
            let written = String(chars[i...j])
            let inner = expand(String(chars[(i + 2)..<j]), keyPath: keyPath, depth: depth, unresolved: &unresolved)
            var parts = inner.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = parts.removeFirst()
            // `$(VAR:default=text)`: the text when VAR is unset or empty; it may hold colons.
            var fallback: String?
            if let d = parts.firstIndex(where: { $0.hasPrefix("default=") }) {
                fallback = String(parts[d...].joined(separator: ":").dropFirst("default=".count))
                parts.removeSubrange(d...)
            }
            let set = variables[name]
            if depth < 8, let value = fallback.map({ set?.isEmpty == false ? set! : $0 }) ?? set {
                var expanded = expand(value, keyPath: keyPath, depth: depth + 1, unresolved: &unresolved)
                var ok = true
                for modifier in parts {
                    guard let applied = Self.apply(modifier, to: expanded) else {
                        unresolved.append(UnresolvedBuildSetting(name: name, keyPath: keyPath, problem: "uses the unknown modifier ':\(modifier)'"))
                        ok = false; break
                    }
                    expanded = applied
                }
                out += ok ? expanded : written
            } else if Self.setBySigning.contains(name), fallback == nil {
                // Code signing sets these (the team's prefix): never "unset", kept as written.
                out += written
            } else {
                unresolved.append(UnresolvedBuildSetting(name: name, keyPath: keyPath,
                    problem: depth < 8 ? "is not set" : "refers to itself (expansion deeper than 8 levels)"))
                out += written
            }
            i = j + 1
        }
        return out
    }

    /// Whether `text` still holds a build setting reference (`$(…)`, `${…}` or `$NAME`).
    public static func hasReference(_ text: String) -> Bool {
        let chars = Array(text)
        for (i, c) in chars.enumerated() where c == "$" && i + 1 < chars.count {
            if chars[i + 1] == "(" || chars[i + 1] == "{" || startsName(chars[i + 1]) { return true }
        }
        return false
    }

    static func startsName(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c == "_") }
    static func continuesName(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || c == "_") }

    private static func apply(_ modifier: String, to value: String) -> String? {
        switch modifier {
        case "lower": return value.lowercased()
        case "upper": return value.uppercased()
        case "rfc1034identifier": return String(value.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") ? $0 : "-" })
        case "c99extidentifier", "identifier":
            return String(value.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
        default: return nil
        }
    }
}

/// A `$(VAR)` reference that could not be expanded: which variable, where.
public struct UnresolvedBuildSetting: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    /// Dotted key path with array indexes, e.g. `keychain-access-groups[1]`.
    public var keyPath: String
    public var problem: String

    public init(name: String, keyPath: String, problem: String = "is not set") {
        self.name = name
        self.keyPath = keyPath
        self.problem = problem
    }

    public var description: String {
        "build setting $(\(name)) in \(keyPath) \(problem); pass it as a variable or replace it in the plist"
    }
}

extension BuildSettings {
    /// A list-valued setting split as Xcode splits it: on spaces, double or single quotes
    /// keeping a word whole (`FOO=1 "NAME=two words"`).
    public static func words(_ value: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for c in value {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c == " " || c == "\t" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(c)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}

extension String {
    /// The path as a POSIX shell reads it back: bare when it is plain, else in single quotes
    /// (`'My App/Info.plist'`), so a suggested command can be pasted as is.
    package var shellQuoted: String {
        let plain = !isEmpty && allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:@%,=".contains($0)) }
        return plain ? self : "'" + replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
