import Crypto
import _CryptoExtras
import Foundation
import SwiftASN1
public import X509

/// A PKCS #12 identity (RFC 7292): the certificate and its private key, read from the bytes an
/// MDM server sends in a `com.apple.credential.identity` credential with its password.
///
/// Reads what current tools write: PBES2 with PBKDF2 (HMAC-SHA-1/256/384/512) and AES-128/192/256-CBC
/// for both the key bag and the certificate bag — OpenSSL 3's default, Apple's Keychain
/// export, Windows' AES export. The legacy RC2/3DES encryption (OpenSSL 1.x) is refused with
/// the command that re-exports it. Read as BER, so indefinite lengths pass too.
public struct PKCS12Identity: Sendable {
    public let certificate: Certificate
    public let privateKey: SigningKey

    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public let message: String
        init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// PBKDF2 iterations one file may ask for in all, over every bag: real exports use a few
    /// thousand per bag (OpenSSL 3: 2,048); sixty bags of ten million each took a minute.
    public static let iterationBudget = 2_000_000

    public init(bytes: [UInt8], password: String) throws(ReadError) {
        var budget = Self.iterationBudget
        let pfx: ASN1Node
        do { pfx = try BER.parse(bytes) } catch { throw ReadError("is not a PKCS #12 file (not ASN.1: \(error))") }
        let top = try Self.children(pfx, "PFX")
        guard top.count >= 2, top[0].identifier == .integer else { throw ReadError("is not a PKCS #12 file (no version and authSafe)") }
        let authSafe = try Self.contentInfo(top[1], "authSafe")
        guard authSafe.type == Self.oidData, let safeBytes = authSafe.data else {
            throw ReadError("uses a public-key protected authSafe (\(authSafe.type)); only password-protected PKCS #12 files are read")
        }
        let safes: ASN1Node
        do { safes = try BER.parse(safeBytes) } catch { throw ReadError("has an unreadable AuthenticatedSafe: \(error)") }
        var certificates: [Certificate] = []
        var keys: [[UInt8]] = []
        let passwordBytes = Array(password.utf8)
        for info in try Self.children(safes, "AuthenticatedSafe") {
            let content = try Self.contentInfo(info, "AuthenticatedSafe entry")
            let bagsBytes: [UInt8]
            switch content.type {
            case Self.oidData:
                guard let d = content.data else { throw ReadError("has an empty SafeContents") }
                bagsBytes = d
            case Self.oidEncryptedData:
                guard let node = content.node else { throw ReadError("has an empty EncryptedData") }
                // EncryptedData ::= SEQUENCE { version, EncryptedContentInfo }
                let parts = try Self.children(node, "EncryptedData")
                guard parts.count >= 2 else { throw ReadError("has a malformed EncryptedData") }
                let eci = try Self.children(parts[1], "EncryptedContentInfo")
                guard eci.count >= 3 else { throw ReadError("has encrypted certificates but no encrypted content") }
                bagsBytes = try Self.decrypt(algorithm: eci[1], ciphertext: Self.octets(eci[2]), password: passwordBytes, what: "the certificate bag", budget: &budget)
            default:
                throw ReadError("holds a SafeContents of type \(content.type), which is not data or password-encrypted data")
            }
            let bags: ASN1Node
            do { bags = try BER.parse(bagsBytes) } catch { throw ReadError("has unreadable SafeContents (a wrong password gives this too): \(error)") }
            for bag in try Self.children(bags, "SafeContents") {
                let fields = try Self.children(bag, "SafeBag")
                guard fields.count >= 2, fields[0].identifier == .objectIdentifier else { throw ReadError("has a malformed SafeBag") }
                let bagID = try Self.oid(fields[0])
                guard let value = try Self.children(fields[1], "bagValue").first else { continue }
                switch bagID {
                case Self.oidKeyBag:
                    keys.append(Array(value.encodedBytes))
                case Self.oidShroudedKeyBag:
                    let epki = try Self.children(value, "EncryptedPrivateKeyInfo")
                    guard epki.count >= 2 else { throw ReadError("has a malformed shrouded key bag") }
                    keys.append(try Self.decrypt(algorithm: epki[0], ciphertext: Self.octets(epki[1]), password: passwordBytes, what: "the private key", budget: &budget))
                case Self.oidCertBag:
                    let cert = try Self.children(value, "CertBag")
                    guard cert.count >= 2, try Self.oid(cert[0]) == Self.oidX509Certificate,
                          let inner = try Self.children(cert[1], "certValue").first else { continue }
                    do {
                        certificates.append(try Certificate(derEncoded: Self.octets(inner)))
                    } catch let e as ReadError {
                        throw e
                    } catch {
                        throw ReadError("holds a certificate that is not X.509 DER: \(error)")
                    }
                default:
                    continue
                }
            }
        }
        guard !keys.isEmpty else { throw ReadError("holds no private key; an identity needs the certificate and its key") }
        guard !certificates.isEmpty else { throw ReadError("holds no certificate; an identity needs the certificate and its key") }
        var parsedKeys: [SigningKey] = []
        for k in keys {
            guard let key = SigningKey(pkcs8: k) else {
                throw ReadError("holds a private key of a kind this device does not use; P-256, P-384, P-521 and RSA keys are read")
            }
            parsedKeys.append(key)
        }
        // The identity's certificate is the one whose public key matches a key (a chain may
        // carry CA certificates too).
        for key in parsedKeys {
            if let cert = certificates.first(where: { $0.publicKey == key.certificateKey.publicKey }) {
                certificate = cert
                privateKey = key
                return
            }
        }
        throw ReadError("holds no certificate matching its private key")
    }

    // MARK: ASN.1 helpers

    static let oidData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let oidEncryptedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 6]
    static let oidKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 1]
    static let oidShroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 2]
    static let oidCertBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 3]
    static let oidX509Certificate: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 22, 1]
    static let oidPBES2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 13]
    static let oidPBKDF2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 12]
    static let prfs: [ASN1ObjectIdentifier: KDF.Insecure.PBKDF2.HashFunction] = [
        [1, 2, 840, 113549, 2, 7]: .insecureSHA1, [1, 2, 840, 113549, 2, 9]: .sha256,
        [1, 2, 840, 113549, 2, 10]: .sha384, [1, 2, 840, 113549, 2, 11]: .sha512,
    ]
    static let aesCBC: [ASN1ObjectIdentifier: Int] = [
        [2, 16, 840, 1, 101, 3, 4, 1, 2]: 16, [2, 16, 840, 1, 101, 3, 4, 1, 22]: 24, [2, 16, 840, 1, 101, 3, 4, 1, 42]: 32,
    ]

    static func oid(_ node: ASN1Node) throws(ReadError) -> ASN1ObjectIdentifier {
        do { return try ASN1ObjectIdentifier(berEncoded: node) } catch { throw ReadError("has a malformed object identifier: \(error)") }
    }

    static func children(_ node: ASN1Node, _ what: String) throws(ReadError) -> [ASN1Node] {
        guard case .constructed(let c) = node.content else { throw ReadError("has a malformed \(what) (expected a constructed value)") }
        return Array(c)
    }

    /// An OCTET STRING, primitive or (BER) constructed of chunks.
    static func octets(_ node: ASN1Node) throws(ReadError) -> [UInt8] {
        switch node.content {
        case .primitive(let bytes): return Array(bytes)
        case .constructed(let parts):
            var out: [UInt8] = []
            for p in parts { out += try octets(p) }
            return out
        }
    }

    struct ContentInfo {
        var type: ASN1ObjectIdentifier
        /// The `[0]` content's single node.
        var node: ASN1Node?
        /// The content as bytes when it is an OCTET STRING (`data`).
        var data: [UInt8]?
    }

    static func contentInfo(_ node: ASN1Node, _ what: String) throws(ReadError) -> ContentInfo {
        let parts = try children(node, what)
        guard let first = parts.first, first.identifier == .objectIdentifier else { throw ReadError("has a malformed \(what)") }
        let type: ASN1ObjectIdentifier
        do { type = try ASN1ObjectIdentifier(berEncoded: first) } catch { throw ReadError("has a malformed \(what): \(error)") }
        guard parts.count > 1, let inner = try children(parts[1], "\(what) content").first else { return ContentInfo(type: type) }
        let data = inner.identifier == .octetString ? try octets(inner) : nil
        return ContentInfo(type: type, node: inner, data: data)
    }

    /// PBES2 (PBKDF2 + AES-CBC) decryption of a bag; its iterations come out of the file's
    /// `budget`, checked before any work is done.
    static func decrypt(algorithm: ASN1Node, ciphertext: [UInt8], password: [UInt8], what: String, budget: inout Int) throws(ReadError) -> [UInt8] {
        let alg = try children(algorithm, "AlgorithmIdentifier")
        guard let oidNode = alg.first, let oid = try? ASN1ObjectIdentifier(berEncoded: oidNode) else { throw ReadError("has a malformed algorithm for \(what)") }
        guard oid == oidPBES2, alg.count > 1 else {
            throw ReadError("encrypts \(what) with \(oid), the legacy PKCS #12 encryption (RC2/3DES); re-export it with AES, e.g. `openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256`")
        }
        let params = try children(alg[1], "PBES2-params")
        guard params.count == 2 else { throw ReadError("has malformed PBES2 parameters for \(what)") }
        let kdf = try children(params[0], "keyDerivationFunc")
        guard let first = kdf.first, let kdfOID = try? ASN1ObjectIdentifier(berEncoded: first), kdfOID == oidPBKDF2, kdf.count > 1 else {
            throw ReadError("derives the key for \(what) with something other than PBKDF2")
        }
        let kp = try children(kdf[1], "PBKDF2-params")
        guard kp.count >= 2, kp[0].identifier == .octetString else { throw ReadError("has malformed PBKDF2 parameters for \(what)") }
        let salt = try octets(kp[0])
        let rounds: Int
        do { rounds = try Int(berEncoded: kp[1]) } catch { throw ReadError("has a malformed PBKDF2 iteration count: \(error)") }
        guard rounds > 0 else { throw ReadError("asks for \(rounds) PBKDF2 iterations for \(what); at least 1 is needed") }
        guard rounds <= budget else {
            throw ReadError("asks for more PBKDF2 iterations than a file may (\(rounds) for \(what), \(iterationBudget - budget) before it; \(iterationBudget) in all); re-export it with the default count, e.g. `openssl pkcs12 -export -iter 2048`")
        }
        budget -= rounds
        var prf: KDF.Insecure.PBKDF2.HashFunction = .insecureSHA1
        for extra in kp.dropFirst(2) where extra.identifier == .sequence {
            let p = try children(extra, "prf")
            guard let first = p.first, let prfOID = try? ASN1ObjectIdentifier(berEncoded: first), let f = prfs[prfOID] else {
                throw ReadError("uses a PBKDF2 pseudo-random function this device does not know for \(what)")
            }
            prf = f
        }
        let scheme = try children(params[1], "encryptionScheme")
        guard let first = scheme.first, let schemeOID = try? ASN1ObjectIdentifier(berEncoded: first), let keyLength = aesCBC[schemeOID], scheme.count > 1 else {
            throw ReadError("encrypts \(what) with a cipher other than AES-CBC")
        }
        let iv = try octets(scheme[1])
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(from: password, salt: salt, using: prf, outputByteCount: keyLength, unsafeUncheckedRounds: rounds)
            return Array(try AES._CBC.decrypt(ciphertext, using: key, iv: AES._CBC.IV(ivBytes: iv)))
        } catch {
            throw ReadError("cannot decrypt \(what): the password is wrong, or the file is damaged")
        }
    }
}
