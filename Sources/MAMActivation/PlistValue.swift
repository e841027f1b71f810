public import Foundation

/// A property-list value as a Sendable Swift enum, so parsed Info.plist settings can be kept in
/// Sendable types (Foundation hands out `Any`).
public indirect enum PlistValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PlistValue])
    case dictionary([String: PlistValue])
    /// Something that is not a property-list type (cannot come out of PropertyListSerialization).
    case unsupported(String)

    /// Converts what `PropertyListSerialization` returns. `<true/>` and `<integer>1</integer>`
    /// stay apart (on Linux they come back as `Bool` and `Int`; on Darwin both as NSNumber, told
    /// apart by their CF type).
    public init(_ any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case let d as Data: self = .data(d)
        case let d as Date: self = .date(d)
        case let a as [Any]: self = .array(a.map(PlistValue.init))
        case let d as [String: Any]: self = .dictionary(d.mapValues(PlistValue.init))
        case let b as Bool where type(of: any) == Bool.self: self = .boolean(b)
        case let i as Int where type(of: any) == Int.self: self = .integer(i)
        case let d as Double where type(of: any) == Double.self: self = .real(d)
        case let n as NSNumber:
            #if canImport(Darwin)
            if CFGetTypeID(n) == CFBooleanGetTypeID() { self = .boolean(n.boolValue); return }
            #endif
            self = Double(n.int64Value) == n.doubleValue ? .integer(n.intValue) : .real(n.doubleValue)
        default:
            self = .unsupported(String(describing: type(of: any)))
        }
    }

    /// `a string`, `an <integer>` …, for error messages.
    public var kindDescription: String {
        switch self {
        case .string(let s): return "the string \"\(s)\""
        case .integer(let n): return "<integer>\(n)</integer>"
        case .real(let d): return "<real>\(d)</real>"
        case .boolean(let b): return b ? "<true/>" : "<false/>"
        case .date: return "a <date>"
        case .data: return "<data>"
        case .array: return "an <array>"
        case .dictionary: return "a <dict>"
        case .unsupported(let t): return "a value of type \(t)"
        }
    }

    public var string: String? { if case .string(let s) = self { return s }; return nil }

    /// `<true/>`, or `<integer>1</integer>` / the string `YES` as Xcode users write them.
    public var bool: Bool? {
        switch self {
        case .boolean(let b): return b
        case .integer(let n) where n == 0 || n == 1: return n == 1
        case .string(let s):
            switch s.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    public var stringArray: [String]? {
        if case .string(let s) = self { return [s] }
        guard case .array(let values) = self else { return nil }
        let strings = values.compactMap(\.string)
        return strings.count == values.count ? strings : nil
    }
}

/// A property-list problem a user can meet: which file, which key path, what was wrong.
public struct ExtensionPlistError: Error, Sendable, Hashable, CustomStringConvertible {
    public var source: String
    /// Dotted key path inside the plist, e.g. `NSExtension.NSExtensionAttributes.NSExtensionActivationRule`.
    public var keyPath: String
    public var message: String
    /// The 1-based line the parser stopped at, when it says (malformed XML).
    public var line: Int?

    public init(source: String, keyPath: String, message: String, line: Int? = nil) {
        self.source = source
        self.keyPath = keyPath
        self.message = message
        self.line = line
    }

    public var description: String {
        let place = line.map { "\(source):\($0)" } ?? source
        return keyPath.isEmpty ? "\(place): \(message)" : "\(place): \(keyPath): \(message)"
    }
}

package enum PropertyListIO {
    /// Parses a plist's data into a top-level dictionary.
    package static func dictionary(from data: Data, source: String) throws(ExtensionPlistError) -> [String: Any] {
        // Foundation's parsers recurse once per level: a hostile plist nesting thousands of
        // <array>s deep would overflow the stack. Measured first, in one pass over the bytes.
        if let (depth, line) = nestingBeyond(maximumNesting, in: data) {
            throw ExtensionPlistError(source: source, keyPath: "",
                message: "nests <dict>/<array> more than \(maximumNesting) deep (\(depth) at this line); an Info.plist or entitlements file needs a handful of levels",
                line: line)
        }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            // Foundation's localizedDescription is a generic sentence; the parser's own words
            // ("Close tag on line 9 does not match open tag array") are in NSDebugDescription.
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            throw ExtensionPlistError(source: source, keyPath: "",
                message: "is not a well-formed property list (\(detail)); check that every <dict>, <array> and <string> is closed",
                line: parserLine(in: detail))
        }
        guard let dict = object as? [String: Any] else {
            throw ExtensionPlistError(source: source, keyPath: "", message: "the top level must be a <dict>, found \(PlistValue(object).kindDescription)")
        }
        return dict
    }

    static let maximumNesting = 128

    /// The first depth beyond `limit` reached by `<dict>`/`<array>` open tags (and its line),
    /// or `nil`. Binary plists (`bplist`) are not XML and are left to Foundation.
    static func nestingBeyond(_ limit: Int, in data: Data) -> (Int, Int)? {
        guard !data.starts(with: Array("bplist".utf8)) else { return nil }
        var depth = 0
        var line = 1
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (Int, Int)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var i = 0
            let n = bytes.count
            func at(_ word: String, _ j: Int) -> Bool {
                let w = Array(word.utf8)
                guard j + w.count <= n else { return false }
                for k in 0..<w.count where bytes[j + k] != w[k] { return false }
                return true
            }
            while i < n {
                let b = bytes[i]
                if b == UInt8(ascii: "\n") {
                    line += 1
                } else if b == UInt8(ascii: "<") {
                    if at("<dict>", i) || at("<array>", i) {
                        depth += 1
                        if depth > limit { return (depth, line) }
                    } else if at("</dict>", i) || at("</array>", i) {
                        depth -= 1
                    }
                }
                i += 1
            }
            return nil
        }
    }

    /// The number after "line " in a parser message, if any.
    static func parserLine(in detail: String) -> Int? {
        guard let range = detail.range(of: "line ") else { return nil }
        let digits = detail[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    package static func xmlData(_ dict: [String: Any], source: String) throws(ExtensionPlistError) -> Data {
        do {
            return try PropertyListSerialization.data(fromPropertyList: dict, format: .xml, options: 0)
        } catch {
            throw ExtensionPlistError(source: source, keyPath: "", message: "cannot be written back as XML (\(error.localizedDescription))")
        }
    }
}
