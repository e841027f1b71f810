import Foundation

/// A JSON value as a Graph document holds it; also what a host builds from an inline YAML
/// policy so both go through the same property checks.
public enum GraphValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([GraphValue])
    case object([String: GraphValue])

    /// The value as it would appear in JSON, shortened for messages.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
            return String(n)
        case .string(let s): return "\"\(s)\""
        case .array(let items):
            let inner = items.prefix(3).map(\.description).joined(separator: ", ")
            return items.count > 3 ? "[\(inner), …]" : "[\(inner)]"
        case .object(let dict):
            let inner = dict.keys.sorted().prefix(3).map { "\"\($0)\": \(dict[$0]!)" }.joined(separator: ", ")
            return dict.count > 3 ? "{\(inner), …}" : "{\(inner)}"
        }
    }

    /// A word for the JSON type, for messages ("a string", "a number").
    package var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension GraphValue: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let n = try? c.decode(Double.self) { self = .number(n); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let a = try? c.decode([GraphValue].self) { self = .array(a); return }
        self = .object(try c.decode([String: GraphValue].self))
    }
}

extension GraphValue {
    /// Decodes JSON text given as bytes in UTF-8 or UTF-16 (LE/BE, with or without a BOM).
    /// Real Intune exports come UTF-16LE with a BOM and CRLF line ends.
    package static func parse(_ bytes: [UInt8], source: String) throws(PolicyImportError) -> GraphValue {
        let text = try decodeText(bytes, source: source)
        let refusal: GraphJSONReader.Refusal
        switch GraphJSONReader.read(text) {
        case .success(let value): return value
        case .failure(let r): refusal = r
        }
        switch refusal {
        case .duplicateKey(let key, let offset):
            let (line, column) = place(ofByte: offset, in: text)
            throw PolicyImportError(source: source, property: key, value: nil,
                                    message: "\(source):\(line):\(column): the key \"\(key)\" is written twice in one object; JSON leaves which one counts to the reader "
                                        + "(Python's json and IntuneCD take the last, others the first), so mamsim reads neither: keep the one you mean and remove the other")
        case .tooDeep(let offset):
            let (line, column) = place(ofByte: offset, in: text)
            throw PolicyImportError(source: source, property: nil, value: nil,
                                    message: "\(source):\(line):\(column): objects and arrays nest deeper than \(GraphJSONReader.maximumDepth) levels, which no Graph document does; check that it is the export you meant")
        case .syntax(let offset):
            var detail = "unexpected text"
            do {
                _ = try JSONDecoder().decode(GraphValue.self, from: Data(text.utf8))
            } catch {
                if case DecodingError.dataCorrupted(let ctx) = error {
                    detail = (ctx.underlyingError.map { "\($0)" }) ?? ctx.debugDescription
                } else {
                    detail = "\(error)"
                }
            }
            let (line, column) = syntaxErrorPlace(text) ?? place(ofByte: offset, in: text)
            throw PolicyImportError(source: source, property: nil, value: nil,
                                    message: "\(source):\(line):\(column) is not valid JSON (\(detail)); export the policy again from Graph or fix the syntax")
        }
    }

    /// The 1-based line and column of the byte at `offset` of `text`'s UTF-8.
    static func place(ofByte offset: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for (i, byte) in text.utf8.enumerated() {
            guard i < offset else { break }
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    /// Where JSON `text` first breaks, as a 1-based line and column: Foundation's JSON parser
    /// says "around character N" (a byte offset), which a reader cannot find in a 20 MB export.
    static func syntaxErrorPlace(_ text: String) -> (line: Int, column: Int)? {
        let data = Data(text.utf8)
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let said = "\((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? "")"
            guard let range = said.range(of: #"character \d+"#, options: .regularExpression),
                  let offset = Int(said[range].dropFirst("character ".count)) else { return nil }
            return place(ofByte: offset, in: text)
        }
    }

    static func decodeText(_ bytes: [UInt8], source: String) throws(PolicyImportError) -> String {
        var body = bytes[...]
        enum Encoding { case utf8, utf16le, utf16be }
        var encoding = Encoding.utf8
        if body.starts(with: [0xEF, 0xBB, 0xBF]) {
            body = body.dropFirst(3)
        } else if body.starts(with: [0xFF, 0xFE]) {
            encoding = .utf16le; body = body.dropFirst(2)
        } else if body.starts(with: [0xFE, 0xFF]) {
            encoding = .utf16be; body = body.dropFirst(2)
        } else if body.count >= 2 {
            // JSON starts with an ASCII character, so a zero byte beside it gives UTF-16 away.
            let a = body[body.startIndex], b = body[body.startIndex + 1]
            if a == 0, b != 0 { encoding = .utf16be } else if a != 0, b == 0 { encoding = .utf16le }
        }
        switch encoding {
        case .utf8:
            guard let s = String(validating: body, as: UTF8.self) else {
                throw PolicyImportError(source: source, property: nil, value: nil,
                                        message: "\(source) is neither UTF-8 nor UTF-16 text; save it as UTF-8")
            }
            return s
        case .utf16le, .utf16be:
            guard body.count % 2 == 0 else {
                throw PolicyImportError(source: source, property: nil, value: nil,
                                        message: "\(source) looks like UTF-16 but has an odd number of bytes; it is truncated or damaged")
            }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var i = body.startIndex
            while i < body.endIndex {
                let lo = UInt16(body[i]), hi = UInt16(body[i + 1])
                units.append(encoding == .utf16le ? (hi << 8 | lo) : (lo << 8 | hi))
                i += 2
            }
            guard let s = String(validating: units, as: UTF16.self) else {
                throw PolicyImportError(source: source, property: nil, value: nil,
                                        message: "\(source) holds invalid UTF-16 text; save it again as UTF-8 or UTF-16")
            }
            return s
        }
    }
}
