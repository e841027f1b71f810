import Crypto
import _CryptoExtras
import Foundation
import SwiftASN1
public import X509

/// The credential documents assets carry (`com.apple.credential.*` in Apple's schema), read and
/// checked, and the secrets they give an app.
public enum Credentials {
    /// `com.apple.credential.usernameandpassword`: `UserName`, `Password`.
    public struct UserPassword: Sendable, Hashable {
        public let userName: String
        public let password: String
    }

    /// An identity enrollment (`com.apple.credential.scep` / `.acme`): what the device asks the
    /// CA for. The device makes the key; the simulated CA signs the certificate.
    public struct Enrollment: Sendable, Hashable {
        /// Relative distinguished names as the schema writes them: `[[["CN", "name"]], [["O", "org"]]]`.
        public let subject: [[[String]]]
        /// `RSA` or `ECSECPrimeRandom`.
        public let keyType: String
        public let keySize: Int
    }

    static func json(_ bytes: [UInt8], credential: String, file: String, path: String) throws(DeclarationError) -> [String: DeclarationValue] {
        guard let v = try? JSONDecoder().decode(DeclarationValue.self, from: Data(bytes)), case .object(let o) = v else {
            throw DeclarationError(file: file, keyPath: path, "the asset's data must be a JSON \(credential) credential (application/json)")
        }
        return o
    }

    static func string(_ o: [String: DeclarationValue], _ key: String, required: Bool, credential: String, file: String, path: String) throws(DeclarationError) -> String? {
        guard let v = o[key] else {
            if required { throw DeclarationError(file: file, keyPath: path, "the \(credential) credential has no \(key); it is required") }
            return nil
        }
        guard case .string(let s) = v else { throw DeclarationError(file: file, keyPath: path, "\(key) of the \(credential) credential must be a string, but it is \(v.kind)") }
        return s
    }

    public static func userPassword(_ bytes: [UInt8], file: String, path: String) throws(DeclarationError) -> UserPassword {
        let c = "com.apple.credential.usernameandpassword"
        let o = try json(bytes, credential: c, file: file, path: path)
        let user = try string(o, "UserName", required: true, credential: c, file: file, path: path)!
        let password = try string(o, "Password", required: false, credential: c, file: file, path: path) ?? ""
        return UserPassword(userName: user, password: password)
    }

    /// A certificate in DER (`application/pkcs1`) or PEM (`application/pem`).
    public static func certificate(_ bytes: [UInt8], file: String, path: String) throws(DeclarationError) -> Certificate {
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        do {
            if text.contains("-----BEGIN") { return try Certificate(pemEncoded: String(decoding: bytes, as: UTF8.self)) }
            return try Certificate(derEncoded: bytes)
        } catch {
            throw DeclarationError(file: file, keyPath: path, "the asset's data is not an X.509 certificate in DER or PEM (\(error))")
        }
    }

    /// `com.apple.credential.identity`: a PKCS #12 file (`Identity`, base64) and its `Password`.
    public static func identity(_ bytes: [UInt8], file: String, path: String) throws(DeclarationError) -> PKCS12Identity {
        let c = "com.apple.credential.identity"
        let o = try json(bytes, credential: c, file: file, path: path)
        let password = try string(o, "Password", required: true, credential: c, file: file, path: path)!
        let encoded = try string(o, "Identity", required: true, credential: c, file: file, path: path)!
        guard let p12 = Data(base64Encoded: encoded.filter { !$0.isWhitespace }) else {
            throw DeclarationError(file: file, keyPath: path, "Identity of the \(c) credential must be the PKCS #12 file in base64")
        }
        do {
            return try PKCS12Identity(bytes: Array(p12), password: password)
        } catch {
            throw DeclarationError(file: file, keyPath: path, "the PKCS #12 identity \(error.message)")
        }
    }

    public static func enrollment(_ bytes: [UInt8], type: String, file: String, path: String) throws(DeclarationError) -> Enrollment {
        let acme = type == DeclarationType.acme
        let c = acme ? "com.apple.credential.acme" : "com.apple.credential.scep"
        let o = try json(bytes, credential: c, file: file, path: path)
        for key in acme ? ["DirectoryURL", "ClientIdentifier"] : ["URL"] {
            _ = try string(o, key, required: true, credential: c, file: file, path: path)
        }
        let keyTypeKey = acme ? "KeyType" : "Key Type"
        let keyType = try string(o, keyTypeKey, required: acme, credential: c, file: file, path: path) ?? "RSA"
        guard ["RSA", "ECSECPrimeRandom"].contains(keyType), acme || keyType == "RSA" else {
            throw DeclarationError(file: file, keyPath: path, "\(keyTypeKey) of the \(c) credential is \"\(keyType)\"; it must be \(acme ? "RSA or ECSECPrimeRandom" : "RSA")")
        }
        let sizeKey = acme ? "KeySize" : "Keysize"
        var size = keyType == "RSA" ? 2048 : 256
        if let v = o[sizeKey] {
            guard case .number(let n) = v, let whole = Int(exactly: n) else {
                throw DeclarationError(file: file, keyPath: path, "\(sizeKey) of the \(c) credential must be an integer")
            }
            size = whole
        } else if acme {
            throw DeclarationError(file: file, keyPath: path, "the \(c) credential has no KeySize; it is required")
        }
        let allowed = keyType == "RSA" ? [1024, 2048, 4096] : [256, 384]
        guard allowed.contains(size) else {
            throw DeclarationError(file: file, keyPath: path, "\(sizeKey) \(size) is not a \(keyType) size the device makes; use \(allowed.map(String.init).joined(separator: ", "))")
        }
        var subject: [[[String]]] = []
        if let v = o["Subject"] {
            guard let outer = v.array else { throw DeclarationError(file: file, keyPath: path, "Subject of the \(c) credential must be an array of arrays of [OID or name, value] pairs") }
            for rdn in outer {
                var pairs: [[String]] = []
                for pair in rdn.array ?? [] {
                    let parts = (pair.array ?? []).compactMap(\.string)
                    guard parts.count == 2 else {
                        throw DeclarationError(file: file, keyPath: path, "each Subject entry of the \(c) credential is a [name, value] pair, e.g. [\"CN\", \"device\"]")
                    }
                    pairs.append(parts)
                }
                subject.append(pairs)
            }
        } else if acme {
            throw DeclarationError(file: file, keyPath: path, "the \(c) credential has no Subject; it is required")
        }
        if acme, o["HardwareBound"] == nil {
            throw DeclarationError(file: file, keyPath: path, "the \(c) credential has no HardwareBound; it is required")
        }
        return Enrollment(subject: subject, keyType: keyType, keySize: max(size, keyType == "RSA" ? 2048 : size))
    }
}
