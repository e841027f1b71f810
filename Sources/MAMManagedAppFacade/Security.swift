public import Foundation
import MAMKit
import MAMModel
import MAMWire

// The Security framework's names an app uses with the secrets ManagedApp gives it, where Linux
// has no Security framework: the types are opaque as Apple's are, and the calls are the ones
// apps make on them. Core Foundation's types are their Foundation twins (`as Data` works).

public typealias CFData = NSData
public typealias CFError = NSError
public typealias CFString = String
public typealias OSStatus = Int32

public let errSecSuccess: OSStatus = 0
/// A parameter was not valid (a null out-pointer, an algorithm the key does not do).
public let errSecParam: OSStatus = -50

/// A certificate: its DER bytes.
public final class SecCertificate: Hashable, Sendable {
    let der: [UInt8]

    init(der: [UInt8]) { self.der = der }

    public static func == (a: SecCertificate, b: SecCertificate) -> Bool { a.der == b.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }

    /// Whether its public key is an elliptic-curve one (the ecPublicKey OID in its key info);
    /// else RSA, the other kind the device provisions.
    var isEllipticCurve: Bool {
        let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        return der.indices.contains { i in der[i...].starts(with: ecPublicKey) }
    }
}

/// An identity: a certificate and its private key, which stays in the device.
public final class SecIdentity: Sendable {
    let id: String
    let certificate: SecCertificate
    let app: MAMApp

    init(id: String, certificate: SecCertificate, app: MAMApp) {
        self.id = id
        self.certificate = certificate
        self.app = app
    }
}

/// An identity's private key, as a reference: signing with it asks the device, which holds it.
public final class SecKey: Sendable {
    let identity: SecIdentity

    init(identity: SecIdentity) { self.identity = identity }
}

/// A signature algorithm, by the names apps pass.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable {
    public let rawValue: CFString
    public init(rawValue: CFString) { self.rawValue = rawValue }

    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA256")
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256")
}

/// The certificate's DER bytes.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    Data(certificate.der) as NSData
}

/// The identity's certificate, into `certificateRef`.
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// A reference to the identity's private key, into `privateKeyRef` (the key itself never
/// reaches the app).
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = SecKey(identity: identityRef)
    return errSecSuccess
}

/// Signs `dataToSign` with `key` by `algorithm`, which must be the key's kind (ECDSA for an
/// elliptic-curve key, RSA PKCS #1 v1.5 for an RSA one) over SHA-256: the device signs. `nil`,
/// with `error` set, when the algorithm is not the key's or the device refuses.
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    func fail(_ code: OSStatus, _ why: String) -> CFData? {
        error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: why]))
        return nil
    }
    guard SecKeyIsAlgorithmSupported(key, .sign, algorithm) else {
        return fail(errSecParam, "\(algorithm.rawValue) is not an algorithm this key signs with")
    }
    let reply: Reply<[UInt8]>
    do {
        reply = try key.identity.app.callBlocking(Service.SignWithIdentity(id: key.identity.id, data: [UInt8](dataToSign as Data)))
    } catch let e {
        return fail(-25293, "the device did not sign: \(e)")
    }
    guard let signature = reply.allowedAnswer else { return fail(-25300, reply.verdict.explanation) }
    return Data(signature) as NSData
}

/// Foundation's domain for OSStatus errors, where Linux's Foundation lacks it.
public let NSOSStatusErrorDomain = "NSOSStatusErrorDomain"

/// What a key is asked to do.
public enum SecKeyOperationType: Int, Sendable {
    case sign = 0
    case verify = 1
    case encrypt = 2
    case decrypt = 3
    case keyExchange = 4
}

/// Whether `key` does `operation` by `algorithm`: a device-held private key signs, by its kind's
/// algorithm only.
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    operation == .sign && algorithm == (key.identity.certificate.isEllipticCurve ? .ecdsaSignatureMessageX962SHA256 : .rsaSignatureMessagePKCS1v15SHA256)
}
