/// One shared item: what a share sheet hands an extension or an "Open in" hands an app.
///
/// Small payloads travel inline; large ones as a file in a container the host controls.
///
/// A value, held in one immutable box: an item passes through a dozen hands on its way from
/// one app to another (the share, its route, the delivery waiting for its acknowledgement,
/// the batch it leaves in, the audit record), and a copy of the box is one retain where a copy
/// of its fields was one per string, array and payload. Changing a field makes a new box.
public struct Item: Sendable, Hashable {
    public enum Payload: Sendable, Hashable {
        case inline([UInt8])
        /// A path the host resolved inside a container; never a path a child chose freely.
        case file(path: String)
    }

    @usableFromInline
    final class Fields: Sendable {
        @usableFromInline let id: String
        @usableFromInline let typeIdentifiers: [String]
        @usableFromInline let payload: Payload
        @usableFromInline let fileName: String
        @usableFromInline let ownership: Ownership?

        @usableFromInline
        init(id: String, typeIdentifiers: [String], payload: Payload, fileName: String, ownership: Ownership?) {
            self.id = id
            self.typeIdentifiers = typeIdentifiers
            self.payload = payload
            self.fileName = fileName
            self.ownership = ownership
        }
    }

    @usableFromInline
    var fields: Fields

    public init(id: String, typeIdentifiers: [String], payload: Payload, fileName: String = "", ownership: Ownership? = nil) {
        fields = Fields(id: id, typeIdentifiers: typeIdentifiers, payload: payload, fileName: fileName, ownership: ownership)
    }

    // Read in place (`_read`): a getter would retain what it returns, and most reads only
    // look (compare, measure, write to the wire).

    /// Unique per share; makes a retried delivery idempotent.
    @inlinable
    public var id: String {
        _read { yield fields.id }
        set { fields = Fields(id: newValue, typeIdentifiers: fields.typeIdentifiers, payload: fields.payload, fileName: fields.fileName, ownership: fields.ownership) }
    }

    /// Registered type identifiers, most specific first (e.g. `com.adobe.pdf`).
    @inlinable
    public var typeIdentifiers: [String] {
        _read { yield fields.typeIdentifiers }
        set { fields = Fields(id: fields.id, typeIdentifiers: newValue, payload: fields.payload, fileName: fields.fileName, ownership: fields.ownership) }
    }

    @inlinable
    public var payload: Payload {
        _read { yield fields.payload }
        set { fields = Fields(id: fields.id, typeIdentifiers: fields.typeIdentifiers, payload: newValue, fileName: fields.fileName, ownership: fields.ownership) }
    }

    @inlinable
    public var fileName: String {
        _read { yield fields.fileName }
        set { fields = Fields(id: fields.id, typeIdentifiers: fields.typeIdentifiers, payload: fields.payload, fileName: newValue, ownership: fields.ownership) }
    }

    /// Set by the host only.
    @inlinable
    public var ownership: Ownership? {
        _read { yield fields.ownership }
        set { fields = Fields(id: fields.id, typeIdentifiers: fields.typeIdentifiers, payload: fields.payload, fileName: fields.fileName, ownership: newValue) }
    }

    /// The text of an inline UTF-8 payload, for display.
    public var text: String? {
        if case .inline(let bytes) = payload { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    public static func == (a: Item, b: Item) -> Bool {
        a.fields === b.fields
            || (a.id == b.id && a.typeIdentifiers == b.typeIdentifiers && a.payload == b.payload && a.fileName == b.fileName && a.ownership == b.ownership)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(typeIdentifiers)
        hasher.combine(payload)
        hasher.combine(fileName)
        hasher.combine(ownership)
    }
}

extension Item: CustomDebugStringConvertible {
    /// The fields, as a struct of them would print (tests and `--verbose` show items).
    public var debugDescription: String {
        "Item(id: \(id.debugDescription), typeIdentifiers: \(typeIdentifiers), payload: \(payload), fileName: \(fileName.debugDescription), ownership: \(ownership.map { String(reflecting: $0) } ?? "nil"))"
    }
}
