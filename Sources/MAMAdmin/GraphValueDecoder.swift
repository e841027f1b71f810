public import MAMPolicy

/// Decodes a `Decodable` model from a value the Graph reader parsed (one pass over the bytes,
/// no Foundation object tree): a merge reads millions of a diff's lines back, and each is read
/// as the model says, with no reader of its own.
public struct GraphValueDecoder {
    public init() {}

    /// `T` from one JSON text; `source` names it in an error.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], source: String) throws -> T {
        let value: GraphValue
        do { value = try GraphValue.parse(bytes, source: source) } catch { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(error)")) }
        return try T(from: Reader(value: value, codingPath: []))
    }

    struct Reader: Decoder {
        let value: GraphValue
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func mismatch(_ expected: String) -> DecodingError {
            .typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value)"))
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let fields) = value else { throw mismatch("an object") }
            return KeyedDecodingContainer(Keyed<Key>(fields: fields, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let items) = value else { throw mismatch("an array") }
            return Unkeyed(items: items, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(reader: self) }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: GraphValue]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { fields.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        func reader(_ key: Key) throws -> Reader {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\""))
            }
            // The path is the container's: a merge decodes millions of fields, and a path of
            // its own for each would be an array made per field.
            return Reader(value: value, codingPath: codingPath)
        }

        func decodeNil(forKey key: Key) throws -> Bool { if case .null? = fields[key.stringValue] { true } else { fields[key.stringValue] == nil } }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try Single(reader: reader(key)).decode(String.self) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Single(reader: reader(key)).decode(Bool.self) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Single(reader: reader(key)).decode(Int.self) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Single(reader: reader(key)).decode(Double.self) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try T(from: reader(key)) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try reader(key).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try reader(key).unkeyedContainer() }
        func superDecoder() throws -> any Decoder { Reader(value: .object(fields), codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { try reader(key) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [GraphValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        mutating func next() throws -> Reader {
            guard !isAtEnd else { throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "the array ends")) }
            defer { currentIndex += 1 }
            return Reader(value: items[currentIndex], codingPath: codingPath)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, case .null = items[currentIndex] else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode(_ type: String.Type) throws -> String { try Single(reader: next()).decode(String.self) }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try Single(reader: next()).decode(Bool.self) }
        mutating func decode(_ type: Int.Type) throws -> Int { try Single(reader: next()).decode(Int.self) }
        mutating func decode(_ type: Double.Type) throws -> Double { try Single(reader: next()).decode(Double.self) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next()) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    struct Single: SingleValueDecodingContainer {
        let reader: Reader
        var codingPath: [any CodingKey] { reader.codingPath }

        func decodeNil() -> Bool { if case .null = reader.value { true } else { false } }
        func decode(_ type: String.Type) throws -> String {
            guard case .string(let s) = reader.value else { throw reader.mismatch("a string") }
            return s
        }
        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .bool(let b) = reader.value else { throw reader.mismatch("true or false") }
            return b
        }
        func decode(_ type: Double.Type) throws -> Double {
            guard case .number(let n) = reader.value else { throw reader.mismatch("a number") }
            return n
        }
        func decode(_ type: Int.Type) throws -> Int {
            guard case .number(let n) = reader.value, n.rounded() == n, abs(n) < 9.0e15 else { throw reader.mismatch("a whole number") }
            return Int(n)
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: reader) }
    }
}
