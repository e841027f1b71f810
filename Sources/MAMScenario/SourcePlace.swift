public import Foundation

/// Where a policy or an app configuration is written, so a report can point at it (the SARIF
/// of `mamsim mutate`): the scenario line that declares it, and each setting's line in the
/// file that holds the settings — the scenario itself for inline settings, the Graph document
/// for `file:`.
public struct SourcePlace: Sendable, Equatable {
    /// The line of the scenario where it is declared (1-based).
    public var scenarioLine: Int
    /// The file that holds its settings.
    public var file: URL
    /// Each setting's line in `file` (1-based).
    public var lines: [String: Int]

    public init(scenarioLine: Int, file: URL, lines: [String: Int] = [:]) {
        self.scenarioLine = scenarioLine
        self.file = file
        self.lines = lines
    }

    /// The line of `setting` in `file`, else where the declaration starts in it: the
    /// scenario's line when the settings are the scenario's, the document's first line.
    public func line(of setting: String, scenario: URL) -> Int {
        lines[setting] ?? (file.standardizedFileURL == scenario.standardizedFileURL ? scenarioLine : 1)
    }

    /// The first line each quoted JSON member name is written on (`"name" :`), in a Graph
    /// document. A document names its settings once at the top level; a name met again deeper
    /// (an app's `id`) keeps its first line.
    static func memberLines(_ bytes: [UInt8]) -> [String: Int] {
        var out: [String: Int] = [:]
        var line = 1, i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\n") { line += 1 }
            guard b == UInt8(ascii: "\"") else { i += 1; continue }
            // A string: its end, then whether a colon follows (a member name).
            var j = i + 1
            while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
                if bytes[j] == UInt8(ascii: "\\") { j += 1 }
                j += 1
            }
            guard j < bytes.count else { break }
            let name = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
            var k = j + 1
            while k < bytes.count, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n")].contains(bytes[k]) { k += 1 }
            if k < bytes.count, bytes[k] == UInt8(ascii: ":"), out[name] == nil { out[name] = line }
            for c in bytes[i...j] where c == UInt8(ascii: "\n") { line += 1 }
            i = j + 1
        }
        return out
    }

    /// The line each `"name": "KEY"` pair is written on: where a Graph app configuration
    /// document (`customSettings`) names its keys.
    static func namedLines(_ bytes: [UInt8]) -> [String: Int] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let regex = try? NSRegularExpression(pattern: #""name"\s*:\s*"((?:[^"\\]|\\.)*)""#) else { return [:] }
        var out: [String: Int] = [:]
        let ns = text as NSString
        for m in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let name = ns.substring(with: m.range(at: 1))
            guard out[name] == nil else { continue }
            out[name] = 1 + ns.substring(to: m.range.location).reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
        }
        return out
    }
}
