import Foundation
import MAMActivation
/// Build settings read from an Xcode configuration file (`.xcconfig`), so a plugin folder can
/// carry the values its Info.plist and entitlements refer to (`PRODUCT_BUNDLE_IDENTIFIER`,
/// `DEVELOPMENT_TEAM`) the way an Xcode project does, and lint or load without `--set`.
///
/// Read: `NAME = value` lines, `//` comments, conditional settings (`NAME[sdk=iphoneos*] = …`,
/// kept under their plain name), later lines winning. `#include` is not followed: a plugin
/// folder is meant to be self-contained, so an include is reported in `ignoredLines`.
public struct XCConfig: Sendable, Hashable {
    public var settings: [String: String] = [:]
    /// Lines that were not understood or not followed (`#include`).
    public var ignoredLines: [IgnoredLine] = []

    public struct IgnoredLine: Sendable, Hashable {
        /// 1-based.
        public var line: Int
        public var text: String

        public init(line: Int, text: String) {
            self.line = line
            self.text = text
        }
    }

    public init(text: String) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty { continue }
            // The `=` after a condition's closing bracket (`NAME[sdk=iphoneos*] = value`).
            let searchFrom = trimmed.firstIndex(of: "[").flatMap { open in
                trimmed.firstIndex(of: "=").map { $0 > open } == true ? trimmed[open...].firstIndex(of: "]") : nil
            } ?? trimmed.startIndex
            guard !trimmed.hasPrefix("#"), let equals = trimmed[searchFrom...].firstIndex(of: "=") else {
                ignoredLines.append(IgnoredLine(line: index + 1, text: trimmed))
                continue
            }
            var name = trimmed[..<equals].trimmingWhitespace
            if let bracket = name.firstIndex(of: "[") { name = String(name[..<bracket]) }
            let value = trimmed[trimmed.index(after: equals)...].trimmingWhitespace
            guard !name.isEmpty, !name.contains(" ") else {
                ignoredLines.append(IgnoredLine(line: index + 1, text: trimmed))
                continue
            }
            settings[name] = value
        }
    }
}

extension BuildSettings {
    /// These settings with `overrides` on top (command-line `--set` values win over a folder's
    /// `.xcconfig`, as with `xcodebuild NAME=VALUE`). When neither sets `AppIdentifierPrefix` /
    /// `TeamIdentifierPrefix` but `DEVELOPMENT_TEAM` is known, they are derived from it (`TEAM.`),
    /// as Xcode does when it signs.
    public func overlaid(with overrides: BuildSettings) -> BuildSettings {
        var merged = variables.merging(overrides.variables) { _, new in new }
        if let team = merged["DEVELOPMENT_TEAM"], !team.isEmpty, !team.contains("$") {
            if merged["AppIdentifierPrefix"] == nil { merged["AppIdentifierPrefix"] = team + "." }
            if merged["TeamIdentifierPrefix"] == nil { merged["TeamIdentifierPrefix"] = team + "." }
        }
        return BuildSettings(merged)
    }
}
