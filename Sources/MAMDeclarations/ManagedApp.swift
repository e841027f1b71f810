import Crypto
import _CryptoExtras
public import Foundation
import SwiftASN1
public import MAMModel
public import X509

/// A private key the device holds for an identity. It never leaves the host: apps ask the
/// device to sign with it (RULES.md §9). Kept as its DER bytes (swift-crypto's key types are
/// not `Sendable` here); each use rebuilds the key.
public struct SigningKey: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case p256, p384, p521, rsa }
    public let kind: Kind
    /// The key as DER (PKCS #8 for EC, PKCS #1 or #8 for RSA), to store it sealed.
    public let derRepresentation: [UInt8]

    /// A PKCS #8 (or SEC1 / PKCS #1) DER private key; `nil` for a kind the device does not use.
    public init?(pkcs8 der: [UInt8]) {
        if let k = try? P256.Signing.PrivateKey(derRepresentation: der) { self.init(.p256, Array(k.derRepresentation)); return }
        if let k = try? P384.Signing.PrivateKey(derRepresentation: der) { self.init(.p384, Array(k.derRepresentation)); return }
        if let k = try? P521.Signing.PrivateKey(derRepresentation: der) { self.init(.p521, Array(k.derRepresentation)); return }
        if let k = try? _RSA.Signing.PrivateKey(derRepresentation: der) { self.init(.rsa, Array(k.derRepresentation)); return }
        return nil
    }

    init(_ kind: Kind, _ der: [UInt8]) {
        self.kind = kind
        derRepresentation = der
    }

    public var certificateKey: Certificate.PrivateKey {
        // The bytes were checked when the key was made: rebuilding cannot fail.
        switch kind {
        case .p256: Certificate.PrivateKey(try! P256.Signing.PrivateKey(derRepresentation: derRepresentation))
        case .p384: Certificate.PrivateKey(try! P384.Signing.PrivateKey(derRepresentation: derRepresentation))
        case .p521: Certificate.PrivateKey(try! P521.Signing.PrivateKey(derRepresentation: derRepresentation))
        case .rsa: Certificate.PrivateKey(try! _RSA.Signing.PrivateKey(derRepresentation: derRepresentation))
        }
    }

    /// Signs `data`: ECDSA with SHA-256/384/512 by curve (DER), RSA PKCS #1 v1.5 with SHA-256.
    public func sign(_ data: [UInt8]) throws -> [UInt8] {
        switch kind {
        case .p256: Array(try P256.Signing.PrivateKey(derRepresentation: derRepresentation).signature(for: data).derRepresentation)
        case .p384: Array(try P384.Signing.PrivateKey(derRepresentation: derRepresentation).signature(for: data).derRepresentation)
        case .p521: Array(try P521.Signing.PrivateKey(derRepresentation: derRepresentation).signature(for: data).derRepresentation)
        case .rsa: Array(try _RSA.Signing.PrivateKey(derRepresentation: derRepresentation).signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    /// Whether `signature` over `data` verifies with `certificate`'s public key (what a server
    /// doing mutual TLS with the identity would check).
    public static func verify(_ signature: [UInt8], over data: [UInt8], with certificate: Certificate) -> Bool {
        let key = certificate.publicKey
        if let p = P256.Signing.PublicKey(key), let s = try? P256.Signing.ECDSASignature(derRepresentation: signature) {
            return p.isValidSignature(s, for: data)
        }
        if let p = P384.Signing.PublicKey(key), let s = try? P384.Signing.ECDSASignature(derRepresentation: signature) {
            return p.isValidSignature(s, for: data)
        }
        if let p = P521.Signing.PublicKey(key), let s = try? P521.Signing.ECDSASignature(derRepresentation: signature) {
            return p.isValidSignature(s, for: data)
        }
        if let p = _RSA.Signing.PublicKey(key) {
            return p.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
        return false
    }

    /// A fresh key for an enrollment.
    public static func generate(for e: Credentials.Enrollment) throws -> SigningKey {
        if e.keyType == "ECSECPrimeRandom" {
            return e.keySize == 384 ? SigningKey(.p384, Array(P384.Signing.PrivateKey().derRepresentation))
                : SigningKey(.p256, Array(P256.Signing.PrivateKey().derRepresentation))
        }
        return SigningKey(.rsa, Array(try _RSA.Signing.PrivateKey(keySize: .init(bitCount: e.keySize)).derRepresentation))
    }
}

/// The certificate authority of the simulated device's organization: it signs the
/// certificates of SCEP and ACME enrollments (the device makes the key, the CA issues).
public struct SimulatedCA: Sendable {
    /// The CA's P-256 key as DER.
    public let keyDER: [UInt8]
    public let certificate: Certificate

    /// A CA for the key (`keyDER`, P-256), with a self-signed certificate.
    public init(keyDER: [UInt8], now: Date = Date()) throws {
        self.keyDER = keyDER
        let key = try P256.Signing.PrivateKey(derRepresentation: keyDER)
        let name = try DistinguishedName {
            CommonName("mamsim simulated CA")
            OrganizationName("mamsim")
        }
        certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) },
            issuerPrivateKey: .init(key))
    }

    static let attributeTypes: [String: ASN1ObjectIdentifier] = [
        "CN": .RDNAttributeType.commonName, "O": .RDNAttributeType.organizationName, "OU": .RDNAttributeType.organizationalUnitName,
        "C": .RDNAttributeType.countryName, "L": .RDNAttributeType.localityName, "ST": .RDNAttributeType.stateOrProvinceName,
    ]

    /// Issues a certificate for `key` with the enrollment's subject (`CN=device` when none).
    public func issue(_ e: Credentials.Enrollment, key: SigningKey, now: Date = Date()) throws -> Certificate {
        var rdns: [RelativeDistinguishedName] = []
        for rdn in e.subject {
            var attributes: [RelativeDistinguishedName.Attribute] = []
            for pair in rdn {
                let type = try Self.attributeTypes[pair[0].uppercased()] ?? ASN1ObjectIdentifier(dotRepresentation: pair[0])
                attributes.append(.init(type: type, utf8String: pair[1]))
            }
            rdns.append(RelativeDistinguishedName(attributes))
        }
        if rdns.isEmpty { rdns = [RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: "device"))] }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86_400),
            issuer: certificate.subject, subject: DistinguishedName(rdns), signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: .init(try P256.Signing.PrivateKey(derRepresentation: keyDER)))
    }
}

/// What the ManagedApp framework has for one app or extension: its configuration (a property
/// list) and the asset identifiers of its secrets by the ids the app asks for.
public struct ManagedAppContent: Sendable, Hashable {
    public let configuration: [UInt8]?
    public let passwords: [String: String]
    public let certificates: [String: String]
    public let identities: [String: String]

    public typealias SecretKind = ManagedSecretKind

    public func assets(of kind: SecretKind) -> [String: String] {
        switch kind {
        case .password: passwords
        case .certificate: certificates
        case .identity: identities
        }
    }
}

extension DeclarationSet {
    /// The `com.apple.configuration.app.managed` declaration that manages `bundle`, if any.
    public func appDeclaration(forBundle bundle: String) -> Declaration? {
        declarations.values.filter { $0.type == DeclarationType.appManaged }
            .sorted { $0.identifier < $1.identifier }
            .first { ($0.payload["BundleID"]?.string ?? "").lowercased() == bundle.lowercased() }
    }

    /// The content for the app `bundle`; `nil` when no declaration manages it.
    public func content(forApp bundle: String) -> ManagedAppContent? {
        guard let d = appDeclaration(forBundle: bundle) else { return nil }
        return content(d.payload["AppConfig"]?.object ?? [:])
    }

    /// The content for an extension: its own `ExtensionConfigs` entry of its containing app's
    /// declaration, keyed `"<bundle id> (<team id>)"`; `nil` without one.
    public func content(forExtension bundle: String, team: String, container: String) -> ManagedAppContent? {
        guard let d = appDeclaration(forBundle: container), let configs = d.payload["ExtensionConfigs"]?.object else { return nil }
        let key = "\(bundle) (\(team))".lowercased()
        guard let entry = configs.first(where: { $0.key.lowercased() == key })?.value.object else { return nil }
        return content(entry)
    }

    func content(_ config: [String: DeclarationValue]) -> ManagedAppContent {
        func refs(_ key: String) -> [String: String] {
            var out: [String: String] = [:]
            for item in config[key]?.array ?? [] {
                if let o = item.object, let id = o["Identifier"]?.string, let asset = o["AssetReference"]?.string { out[id] = asset }
            }
            return out
        }
        let data = config["DataAssetReference"]?.string.flatMap { assetData[$0] }
        return ManagedAppContent(configuration: data, passwords: refs("Passwords"), certificates: refs("Certificates"), identities: refs("Identities"))
    }
}
