/// Encodes a report's `Encodable` model as JSON in one pass through `WhatIfReport.JSONWriter`:
/// keys in the order the model encodes them, every string escaped as the writer escapes an
/// untrusted text (bidirectional marks, line separators and controls as `\u` escapes, which
/// Foundation's encoder writes raw). A ten-thousand-persona report is hundreds of megabytes:
/// nothing is built but its bytes.
public struct ReportJSONEncoder {
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// A number as JSON writes it: whole numbers without a fraction, no NaN or infinity.
    static func number(_ d: Double) -> String {
        d.isFinite ? (d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)) : "null"
    }

    /// `value`'s JSON appended to `writer`.
    public func encode<T: Encodable>(_ value: T, into writer: inout WhatIfReport.JSONWriter) throws {
        let sink = Sink(writer: writer, userInfo: userInfo)
        writer = WhatIfReport.JSONWriter()
        defer { writer = sink.writer }
        try sink.value(value)
    }

    /// `value` as JSON text.
    public func encode<T: Encodable>(_ value: T) throws -> String {
        var writer = WhatIfReport.JSONWriter()
        try encode(value, into: &writer)
        return writer.out
    }

    /// The bytes written and the containers open, innermost last; an element is written into
    /// the container it belongs to after every container opened inside that one is closed.
    final class Sink: Encoder {
        // One sink per encoding, used by one thread: the run-time exclusivity check of a class's
        // property, at every byte written, cost a tenth of a report's encoding.
        @exclusivity(unchecked) var writer: WhatIfReport.JSONWriter
        /// Each open container: whether it is an object, and how many elements it holds.
        @exclusivity(unchecked) var open: [(object: Bool, count: Int)] = []
        let userInfoValues: [CodingUserInfoKey: any Sendable]
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { userInfoValues }
        /// Whether the value being encoded wrote anything.
        @exclusivity(unchecked) var started = false

        init(writer: WhatIfReport.JSONWriter, userInfo: [CodingUserInfoKey: any Sendable]) {
            self.writer = writer
            self.userInfoValues = userInfo
        }

        /// Everything opened deeper than `depth` closed.
        func close(to depth: Int) {
            while open.count > depth {
                writer.raw(open.removeLast().object ? "}" : "]")
            }
        }

        /// Ready to write the next element of the container at `depth`.
        func element(of depth: Int) {
            close(to: depth + 1)
            if open[depth].count > 0 { writer.comma() }
            open[depth].count += 1
        }

        func begin(object: Bool) -> Int {
            started = true
            writer.raw(object ? "{" : "[")
            open.append((object, 0))
            return open.count - 1
        }

        /// `v` written where the writer stands, every container it opened closed.
        func value<T: Encodable>(_ v: T) throws {
            let depth = open.count
            started = false
            try v.encode(to: self)
            if !started { writer.raw("{}") }
            close(to: depth)
            started = true
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed<Key>(sink: self, depth: begin(object: true)))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(sink: self, depth: begin(object: false)) }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(sink: self) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: Sink
        let depth: Int
        var codingPath: [any CodingKey] { [] }

        func key(_ key: Key) {
            sink.element(of: depth)
            sink.writer.key(key.stringValue)
        }

        mutating func encodeNil(forKey key: Key) throws { self.key(key); sink.writer.raw("null") }
        mutating func encode(_ value: Bool, forKey key: Key) throws { self.key(key); sink.writer.raw(value ? "true" : "false") }
        mutating func encode(_ value: String, forKey key: Key) throws { self.key(key); sink.writer.string(value) }
        mutating func encode(_ value: Int, forKey key: Key) throws { self.key(key); sink.writer.raw(String(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { self.key(key); sink.writer.raw(ReportJSONEncoder.number(value)) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            self.key(key)
            try sink.value(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            self.key(key)
            return KeyedEncodingContainer(Keyed<NestedKey>(sink: sink, depth: sink.begin(object: true)))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            self.key(key)
            return Unkeyed(sink: sink, depth: sink.begin(object: false))
        }

        mutating func superEncoder() -> any Encoder { sink }
        mutating func superEncoder(forKey key: Key) -> any Encoder { sink }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let sink: Sink
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        var count: Int { sink.open.count > depth ? sink.open[depth].count : 0 }

        mutating func encodeNil() throws { sink.element(of: depth); sink.writer.raw("null") }
        mutating func encode(_ value: Bool) throws { sink.element(of: depth); sink.writer.raw(value ? "true" : "false") }
        mutating func encode(_ value: String) throws { sink.element(of: depth); sink.writer.string(value) }
        mutating func encode(_ value: Int) throws { sink.element(of: depth); sink.writer.raw(String(value)) }
        mutating func encode(_ value: Double) throws { sink.element(of: depth); sink.writer.raw(ReportJSONEncoder.number(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            sink.element(of: depth)
            try sink.value(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            sink.element(of: depth)
            return KeyedEncodingContainer(Keyed<NestedKey>(sink: sink, depth: sink.begin(object: true)))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            sink.element(of: depth)
            return Unkeyed(sink: sink, depth: sink.begin(object: false))
        }

        mutating func superEncoder() -> any Encoder { sink }
    }

    struct Single: SingleValueEncodingContainer {
        let sink: Sink
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { sink.started = true; sink.writer.raw("null") }
        mutating func encode(_ value: Bool) throws { sink.started = true; sink.writer.raw(value ? "true" : "false") }
        mutating func encode(_ value: String) throws { sink.started = true; sink.writer.string(value) }
        mutating func encode(_ value: Int) throws { sink.started = true; sink.writer.raw(String(value)) }
        mutating func encode(_ value: Double) throws { sink.started = true; sink.writer.raw(ReportJSONEncoder.number(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { try sink.value(value) }
    }

    /// A key by its name, for a mapping whose keys are data (an app configuration's).
    public struct AnyKey: CodingKey {
        public let stringValue: String
        public var intValue: Int? { nil }
        public init(_ name: String) { stringValue = name }
        public init?(stringValue: String) { self.stringValue = stringValue }
        public init?(intValue: Int) { nil }
    }
}
