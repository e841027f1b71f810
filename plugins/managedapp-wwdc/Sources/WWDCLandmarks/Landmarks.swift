// The Landmarks app of the WWDC25 talk "Get to know the ManagedApp framework" (seed 004), in
// the shape the talk gives it, written against Apple's ManagedApp and Security names only: a
// Decodable configuration that validates itself and says what is wrong in the framework's
// decoding error, the administrator's password for its API, and an identity whose key signs
// the resource server's challenge.
import Foundation
import ManagedApp
import Security

/// What the administrator configures: a managed collection of landmarks and the server.
struct LandmarksConfiguration: Decodable {
    struct Collection: Decodable {
        var title: String
        var landmarkIDs: [Int]
    }

    /// Why the app refuses a configuration: the device reports it to the administrator.
    struct Invalid: ManagedAppConfigurationDecodingError {
        var code: ManagedAppConfigurationDecodingErrorCode
        var message: String
    }

    var managedCollection: Collection?
    var resourceURL: URL?

    enum CodingKeys: String, CodingKey { case managedCollection, resourceURL }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        managedCollection = try c.decodeIfPresent(Collection.self, forKey: .managedCollection)
        resourceURL = try c.decodeIfPresent(String.self, forKey: .resourceURL).flatMap(URL.init(string:))
        if let m = managedCollection, m.title.isEmpty || m.landmarkIDs.isEmpty {
            throw Invalid(code: ManagedAppConfigurationDecodingErrorCode(rawValue: 1)!, message: "a managed collection needs a title and at least one landmark")
        }
    }
}

enum Landmarks {
    static func launch() async {
        // Shown before launch ends: the first value of each sequence is the current one.
        let first = Gate(count: 3)
        Task { await followConfiguration(first) }
        Task { await followPasswords(first) }
        Task { await signChallenge(first) }
        await first.wait()
    }

    static func followConfiguration(_ first: Gate) async {
        let provider = ManagedAppConfigurationProvider()
        var opened = false
        for await configuration in await provider.configurations(LandmarksConfiguration.self) {
            if let c = configuration?.managedCollection {
                Screen.show("collection", "\(c.title): " + c.landmarkIDs.map(String.init).joined(separator: ", "))
            } else {
                Screen.show("collection", "no managed collection")
            }
            if !opened { opened = true; await first.open() }
        }
    }

    /// The talk's advice: follow the identifiers, and look each password up when they change
    /// (a rotation yields the same list again). The identifiers of the list before are looked
    /// up too, as code that listed earlier would: one withdrawn since throws.
    static func followPasswords(_ first: Gate) async {
        let provider = ManagedAppPasswordsProvider()
        var opened = false
        var yields = 0
        var before: [String] = []
        for await ids in await provider.identifiers {
            yields += 1
            var lines = ["yield \(yields): \(ids.joined(separator: ", "))"]
            for id in ids + before.filter({ !ids.contains($0) }) {
                do {
                    lines.append("\(id) = \(try await provider.password(withIdentifier: id))")
                } catch {
                    lines.append("\(id): \(error)")
                }
            }
            before = ids
            Screen.show("passwords", lines.joined(separator: "\n"))
            if !opened { opened = true; await first.open() }
        }
    }

    static func signChallenge(_ first: Gate) async {
        defer { Task { await first.open() } }
        do {
            let identity = try await ManagedAppIdentitiesProvider().identity(withIdentifier: "assets-client")
            var certificate: SecCertificate?
            var key: SecKey?
            guard SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess, let certificate,
                  SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess, let key else {
                return Screen.show("mtls", "the identity has no certificate or key")
            }
            let der = SecCertificateCopyData(certificate) as Data
            let algorithm: SecKeyAlgorithm = SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA256)
                ? .ecdsaSignatureMessageX962SHA256 : .rsaSignatureMessagePKCS1v15SHA256
            var error: Unmanaged<CFError>?
            guard let signature = SecKeyCreateSignature(key, algorithm, Data("resource-server challenge".utf8) as CFData, &error) as Data? else {
                return Screen.show("mtls", "not signed: \(error!.takeRetainedValue().localizedDescription)")
            }
            Screen.show("mtls", "signed a challenge with assets-client (\(der.isEmpty ? "no" : "a") certificate, \(signature.isEmpty ? "no" : "a") signature)")
        } catch {
            Screen.show("mtls", "no identity: \(error)")
        }
    }
}

/// Opens once `count` parts have shown their first screen.
actor Gate {
    private var left: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    init(count: Int) { left = count }

    func open() {
        left -= 1
        if left == 0 { waiting.forEach { $0.resume() }; waiting = [] }
    }

    func wait() async {
        if left <= 0 { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}
