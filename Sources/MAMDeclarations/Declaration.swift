import Foundation

/// A JSON value of a declaration, kept with its type so validation can name what it found.
public indirect enum DeclarationValue: Sendable, Hashable, Codable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([DeclarationValue])
    case object([String: DeclarationValue])
    case null

    var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .array: "an array"
        case .object: "a dictionary"
        case .null: "null"
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let n = try? c.decode(Double.self) { self = .number(n); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let a = try? c.decode([DeclarationValue].self) { self = .array(a); return }
        self = .object(try c.decode([String: DeclarationValue].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        case .bool(let b): try c.encode(b)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        case .null: try c.encodeNil()
        }
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var object: [String: DeclarationValue]? { if case .object(let o) = self { o } else { nil } }
    public var array: [DeclarationValue]? { if case .array(let a) = self { a } else { nil } }
}

/// One Declarative Device Management declaration as an MDM server sends it: `Type`,
/// `Identifier`, `ServerToken` and `Payload` (schema: apple/device-management,
/// `declarative/declarations/`).
public struct Declaration: Sendable, Hashable, Codable {
    public let type: String
    public let identifier: String
    public let serverToken: String
    public let payload: [String: DeclarationValue]
    /// The file it was read from (messages name it).
    public let source: String

    public init(type: String, identifier: String, serverToken: String, payload: [String: DeclarationValue], source: String) {
        self.type = type
        self.identifier = identifier
        self.serverToken = serverToken
        self.payload = payload
        self.source = source
    }

    public var isAsset: Bool { type.hasPrefix("com.apple.asset.") }
}

/// Why a declaration cannot be applied: the file, the key path and what to do. Nothing of a
/// batch is applied when one declaration of it is wrong.
public struct DeclarationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let file: String
    public let keyPath: String
    public let message: String

    public init(file: String, keyPath: String, _ message: String) {
        self.file = file
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String { keyPath.isEmpty ? "\(file): \(message)" : "\(file): \(keyPath): \(message)" }
}
