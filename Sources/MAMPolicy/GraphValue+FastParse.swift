/// JSON to `GraphValue` in one pass over the bytes: a tenant's export is tens of megabytes, and
/// reading it through `Decodable` took longer than judging every persona against it. This
/// reader alone decides what a Graph document holds; a text it does not take (a syntax error,
/// nesting past `maximumDepth`, a key twice in one object) is refused, and `GraphValue.parse`
/// asks Foundation only for the words of a syntax error.
struct GraphJSONReader {
    private let bytes: [UInt8]
    private var i = 0
    private var depth = 0
    /// Far deeper than any Graph document.
    static let maximumDepth = 512

    /// Why a text was not taken, at a byte offset.
    enum Refusal: Error, Equatable {
        /// A key met twice in one object. RFC 8259 §4 leaves which one counts to the reader:
        /// Foundation keeps the first, Python's json (IntuneCD, most scripts) the last, so a
        /// document whose second value weakens a policy would pass a gate that read the first.
        case duplicateKey(String, offset: Int)
        case tooDeep(offset: Int)
        case syntax(offset: Int)
    }

    private var refusal: Refusal?

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func read(_ text: String) -> Result<GraphValue, Refusal> {
        var reader = GraphJSONReader(Array(text.utf8))
        guard let value = reader.value() else { return .failure(reader.refusal ?? .syntax(offset: reader.i)) }
        reader.skipSpace()
        return reader.i == reader.bytes.count ? .success(value) : .failure(.syntax(offset: reader.i))
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    private mutating func literal(_ word: StaticString, _ value: GraphValue) -> GraphValue? {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { return nil }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { return nil }
        i += n
        return value
    }

    private mutating func value() -> GraphValue? {
        skipSpace()
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(GraphValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func object() -> GraphValue? {
        guard depth < Self.maximumDepth else { refusal = .tooDeep(offset: i); return nil }
        depth += 1
        defer { depth -= 1 }
        i += 1
        var members: [String: GraphValue] = [:]
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipSpace()
            let keyAt = i
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard let v = value() else { return nil }
            guard members.updateValue(v, forKey: key) == nil else {
                refusal = .duplicateKey(key, offset: keyAt)
                return nil
            }
            skipSpace()
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            return nil
        }
    }

    private mutating func array() -> GraphValue? {
        guard depth < Self.maximumDepth else { refusal = .tooDeep(offset: i); return nil }
        depth += 1
        defer { depth -= 1 }
        i += 1
        var items: [GraphValue] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            guard let v = value() else { return nil }
            items.append(v)
            skipSpace()
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            return nil
        }
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= bytes.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = bytes[i + k]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            v = v << 4 | d
        }
        i += 4
        return v
    }

    private mutating func string() -> String? {
        i += 1
        let start = i
        // Most strings hold no escape: taken whole.
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 { i += 1 }
        guard i < bytes.count else { return nil }
        if bytes[i] == UInt8(ascii: "\"") {
            defer { i += 1 }
            return String(validating: bytes[start..<i], as: UTF8.self)
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(validating: out, as: UTF8.self)
            }
            guard c >= 0x20 else { return nil }
            guard c == UInt8(ascii: "\\") else { out.append(c); i += 1; continue }
            i += 1
            guard i < bytes.count else { return nil }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4() else { return nil }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 2 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { return nil }
                    i += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return nil
                }
                guard let u = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: return nil
            }
        }
        return nil
    }

    private mutating func number() -> GraphValue? {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digits = i
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
        guard i > digits, !(bytes[digits] == UInt8(ascii: "0") && i - digits > 1) else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fraction = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > fraction else { return nil }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let exponent = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > exponent else { return nil }
        }
        guard let text = String(validating: bytes[start..<i], as: UTF8.self), let d = Double(text) else { return nil }
        return .number(d)
    }
}
