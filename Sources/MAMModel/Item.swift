/// One shared item: what a share sheet hands an extension or an "Open in" hands an app.
///
/// Small payloads travel inline; large ones as a file in a container the host controls.
///
/// A value whose fields are held in one immutable box, and its owner (a box too) beside them:
/// an item passes through a dozen hands on its way from one app to another (the share, its
/// route, the delivery waiting for its acknowledgement, the batch it leaves in), and a copy is
/// two retains where a copy of its fields was one per string, array and payload. Changing a
/// field other than the owner makes a new box.
public struct Item: Sendable, Hashable {
    public enum Payload: Sendable, Hashable {
        case inline([UInt8])
        /// A path the host resolved inside a container; never a path a child chose freely.
        case file(path: String)
    }

    /// Where a payload lies: bytes of its own, bytes left in the buffer they were read into,
    /// or a file.
    @usableFromInline
    enum Stored: Sendable {
        case inline([UInt8])
        /// An inline payload left where it was read (see `init(id:typeIdentifiers:received:…)`).
        case received(ReceivedBytes)
        case file(path: String)
    }

    /// Everything but the owner, which the host stamps on each delivery: stamping sets a
    /// reference, and the rest stays in the box the share arrived in.
    @usableFromInline
    final class Fields: Sendable {
        @usableFromInline let id: String
        @usableFromInline let typeIdentifiers: [String]
        @usableFromInline let payload: Stored
        @usableFromInline let fileName: String

        @usableFromInline
        init(id: String, typeIdentifiers: [String], payload: Stored, fileName: String) {
            self.id = id
            self.typeIdentifiers = typeIdentifiers
            self.payload = payload
            self.fileName = fileName
        }

        /// These fields with some changed.
        @usableFromInline
        func with(id: String? = nil, typeIdentifiers: [String]? = nil, payload: Stored? = nil, fileName: String? = nil) -> Fields {
            Fields(id: id ?? self.id, typeIdentifiers: typeIdentifiers ?? self.typeIdentifiers, payload: payload ?? self.payload,
                   fileName: fileName ?? self.fileName)
        }
    }

    @usableFromInline
    var fields: Fields

    /// Set by the host only.
    public var ownership: Ownership?

    public init(id: String, typeIdentifiers: [String], payload: Payload, fileName: String = "", ownership: Ownership? = nil) {
        fields = Fields(id: id, typeIdentifiers: typeIdentifiers, payload: Stored(payload), fileName: fileName)
        self.ownership = ownership
    }

    /// An item whose inline payload stays in the buffer it was read into, which it keeps
    /// alive: the host forwards a share's bytes from where they arrived instead of copying
    /// them per item. Reading `payload` copies them out; `withInlineBytes` does not.
    public init(id: String, typeIdentifiers: [String], received: ReceivedBytes, fileName: String = "", ownership: Ownership? = nil) {
        fields = Fields(id: id, typeIdentifiers: typeIdentifiers, payload: .received(received), fileName: fileName)
        self.ownership = ownership
    }

    // Read in place (`_read`): a getter would retain what it returns, and most reads only
    // look (compare, measure, write to the wire).

    /// Unique per share; makes a retried delivery idempotent.
    @inlinable
    public var id: String {
        _read { yield fields.id }
        set { fields = fields.with(id: newValue) }
    }

    /// The id's `hashValue` (what `Hasher` makes of it alone), read where it lies: through
    /// `id`, a copy of the string was retained for the call.
    @inlinable
    public var idHashValue: Int {
        var hasher = Hasher()
        hasher.combine(fields.id)
        return hasher.finalize()
    }

    /// Registered type identifiers, most specific first (e.g. `com.adobe.pdf`).
    @inlinable
    public var typeIdentifiers: [String] {
        _read { yield fields.typeIdentifiers }
        set { fields = fields.with(typeIdentifiers: newValue) }
    }

    /// The payload; an inline one left where it was read is copied out (`withInlineBytes`,
    /// `inlineByteCount` and `filePath` look without copying).
    @inlinable
    public var payload: Payload {
        get {
            switch fields.payload {
            case .inline(let bytes): .inline(bytes)
            case .received(let bytes): .inline(bytes.array)
            case .file(let path): .file(path: path)
            }
        }
        set { fields = fields.with(payload: Stored(newValue)) }
    }

    @inlinable
    public var fileName: String {
        _read { yield fields.fileName }
        set { fields = fields.with(fileName: newValue) }
    }

    /// The path of a file payload; `nil` for an inline one.
    @inlinable
    public var filePath: String? {
        if case .file(let path) = fields.payload { return path }
        return nil
    }

    @inlinable
    public var isInline: Bool {
        if case .file = fields.payload { return false }
        return true
    }

    /// Whether the payload lies in a buffer it was read into, keeping that buffer alive.
    @inlinable
    public var isInReadBuffer: Bool {
        if case .received = fields.payload { return true }
        return false
    }

    /// The same item with a payload of its own: the read buffer it lay in is no longer kept.
    public func detached() -> Item {
        guard case .received(let bytes) = fields.payload else { return self }
        var copy = self
        copy.fields = fields.with(payload: .inline(bytes.array))
        return copy
    }

    /// The size of an inline payload (0 for a file).
    @inlinable
    public var inlineByteCount: Int {
        switch fields.payload {
        case .inline(let bytes): bytes.count
        case .received(let bytes): bytes.count
        case .file: 0
        }
    }

    /// Runs `body` on an inline payload's bytes where they lie; `nil` for a file.
    @inlinable
    public func withInlineBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        switch fields.payload {
        case .inline(let bytes): try bytes.withUnsafeBytes(body)
        case .received(let bytes): try bytes.withUnsafeBytes(body)
        case .file: nil
        }
    }

    /// The text of an inline UTF-8 payload, for display.
    public var text: String? {
        withInlineBytes { String(decoding: $0, as: UTF8.self) }
    }

    public static func == (a: Item, b: Item) -> Bool {
        a.ownership == b.ownership
            && (a.fields === b.fields || (a.id == b.id && a.typeIdentifiers == b.typeIdentifiers && a.fileName == b.fileName && a.samePayload(as: b)))
    }

    /// Whether both payloads are the same file or the same bytes, wherever the bytes lie.
    private func samePayload(as other: Item) -> Bool {
        if let path = filePath { return other.filePath == path }
        guard other.isInline else { return false }
        return withInlineBytes { a in other.withInlineBytes { b in a.elementsEqual(b) } ?? false } ?? false
    }

    /// Hashes an inline payload's bytes where they lie, the same wherever they lie.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(typeIdentifiers)
        if let path = filePath {
            hasher.combine(true)
            hasher.combine(path)
        } else {
            hasher.combine(false)
            withInlineBytes { hasher.combine(bytes: $0) }
        }
        hasher.combine(fileName)
        hasher.combine(ownership)
    }
}

extension Item.Stored {
    @usableFromInline
    init(_ payload: Item.Payload) {
        switch payload {
        case .inline(let bytes): self = .inline(bytes)
        case .file(let path): self = .file(path: path)
        }
    }
}

extension Item: CustomDebugStringConvertible {
    /// The fields, as a struct of them would print (tests and `--verbose` show items).
    public var debugDescription: String {
        "Item(id: \(id.debugDescription), typeIdentifiers: \(typeIdentifiers), payload: \(payload), fileName: \(fileName.debugDescription), ownership: \(ownership.map { String(reflecting: $0) } ?? "nil"))"
    }
}
