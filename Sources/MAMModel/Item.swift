/// One shared item: what a share sheet hands an extension or an "Open in" hands an app.
///
/// Small payloads travel inline; large ones as a file in a container the host controls.
public struct Item: Sendable, Hashable {
    public enum Payload: Sendable, Hashable {
        case inline([UInt8])
        /// A path the host resolved inside a container; never a path a child chose freely.
        case file(path: String)
    }

    /// Unique per share; makes a retried delivery idempotent.
    public var id: String
    /// Registered type identifiers, most specific first (e.g. `com.adobe.pdf`).
    public var typeIdentifiers: [String]
    public var payload: Payload
    public var fileName: String
    /// Set by the host only.
    public var ownership: Ownership?

    public init(id: String, typeIdentifiers: [String], payload: Payload, fileName: String = "", ownership: Ownership? = nil) {
        self.id = id
        self.typeIdentifiers = typeIdentifiers
        self.payload = payload
        self.fileName = fileName
        self.ownership = ownership
    }

    /// The text of an inline UTF-8 payload, for display.
    public var text: String? {
        if case .inline(let bytes) = payload { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }
}
