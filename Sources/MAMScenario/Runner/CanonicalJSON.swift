import Foundation
import MAMDeclarations
import SwiftASN1
import X509

/// Property-list and YAML values compared as canonical JSON text (sorted keys), so a
/// `{config: {...}}` expectation matches a configuration whatever the key order.
enum CanonicalJSON {
    /// Never fails and never recurses back into itself: what JSON cannot hold (a non-finite
    /// number from `.nan` or `<real>nan</real>`, a date, data) is rendered as text first.
    static func text(_ object: Any) -> String {
        let clean = jsonSafe(object)
        guard JSONSerialization.isValidJSONObject(clean) || clean is String || clean is NSNumber,
              let data = try? JSONSerialization.data(withJSONObject: clean, options: [.sortedKeys, .fragmentsAllowed]) else {
            return "\(clean)"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Dates and data as text, non-finite numbers by name (as JavaScript writes them), the
    /// rest as JSON takes it.
    static func jsonSafe(_ object: Any) -> Any {
        switch object {
        case let d as [String: Any]: return d.mapValues(jsonSafe)
        case let a as [Any]: return a.map(jsonSafe)
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        case let data as Data: return data.base64EncodedString()
        case let n as Double where !n.isFinite: return nonFiniteName(n)
        default: return object
        }
    }

    static func nonFiniteName(_ n: Double) -> String {
        n.isNaN ? "NaN" : n > 0 ? "Infinity" : "-Infinity"
    }

    /// One value as configuration text: strings as they are, numbers and booleans as written
    /// in a scenario, collections as JSON.
    static func scalarText(_ value: Any) -> String {
        switch value {
        case let s as String: return s
        case let n as Double where !n.isFinite: return nonFiniteName(n)
        case let b as Bool: return b ? "true" : "false"
        case let n as NSNumber: return n.stringValue
        case let d as [String: Any]: return text(d)
        case let a as [Any]: return text(a)
        default: return "\(value)"
        }
    }
}

/// What a scenario checks of a certificate: its subject and SHA-256 fingerprint.
enum CertificateSummary {
    static func of(_ der: [UInt8]) -> (subject: String, sha256: String) {
        let subject = (try? Certificate(derEncoded: der))?.subject.description ?? "(not a certificate)"
        return (subject, sha256(der))
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256Digest.hex(bytes)
    }

    static func verify(_ signature: [UInt8], over data: [UInt8], certificate der: [UInt8]) -> Bool {
        guard let cert = try? Certificate(derEncoded: der) else { return false }
        return SigningKey.verify(signature, over: data, with: cert)
    }
}
