// The Landmarks app of the WWDC25 ManagedApp talk (seed 004), written against MAMManagedApp the
// way the talk writes it against Apple's framework: a Decodable configuration with a managed
// collection and a resource URL, read as an async sequence that yields again on every update,
// and an identity for mutual TLS with the resource server, used by asking the device to sign a
// challenge (the key never reaches the app).
//
// What the app shows is written to Documents/ so a scenario can check it with readFile:
//   Documents/collection.txt  "Geography 101: 1001, 1003, 1011" or "no managed collection"
//   Documents/mtls.txt        "signed by CN=… (verified)" or "no identity: …"
//   Documents/identities.txt  one line per array the identities' id sequence yielded
//   Documents/resources.txt   "https://… (ManagedApp)", "https://… (legacy configuration)" or
//                             "no resource server": while the app moves off the legacy managed
//                             configuration, it reads both and gives ManagedApp's priority, as
//                             the talk advises.
import Foundation
import MAMKit
import MAMManagedApp
import MAMModel
import MAMWire

struct LandmarksManagedConfig: Decodable, Sendable {
    struct Collection: Decodable, Sendable {
        let title: String
        let landmarkIDs: [Int]
    }

    let managedCollection: Collection?
    let resourceURL: URL?

    // Custom validation, as the talk recommends: a collection needs a title and at least one
    // landmark; unknown keys are ignored (older configurations keep working).
    enum CodingKeys: String, CodingKey { case managedCollection, resourceURL }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        managedCollection = try c.decodeIfPresent(Collection.self, forKey: .managedCollection)
        // A property list holds the URL as text.
        let url = try c.decodeIfPresent(String.self, forKey: .resourceURL)
        resourceURL = url.flatMap(URL.init(string:))
        if url != nil, resourceURL == nil {
            throw DecodingError.dataCorruptedError(forKey: .resourceURL, in: c, debugDescription: "resourceURL is not a URL")
        }
        if let m = managedCollection, m.title.isEmpty || m.landmarkIDs.isEmpty {
            throw DecodingError.dataCorruptedError(forKey: .managedCollection, in: c, debugDescription: "a managed collection needs a title and landmarks")
        }
    }
}

/// The identities the app last wrote out, so an update is answered once they are shown.
actor IdentitiesShown {
    private var shown: [String]?
    private var waiting: [(ids: [String], resume: CheckedContinuation<Void, Never>)] = []

    func wrote(_ ids: [String]) {
        shown = ids
        let ready = waiting.filter { $0.ids == ids }
        waiting.removeAll { $0.ids == ids }
        for w in ready { w.resume.resume() }
    }

    /// Returns once `ids` are the ones shown.
    func wait(until ids: [String]) async {
        guard shown != ids else { return }
        await withCheckedContinuation { waiting.append((ids, $0)) }
    }
}

/// The legacy managed configuration this app's earlier versions read: the server as `ServerURL`.
struct LandmarksLegacyConfig: Decodable, Sendable {
    let ServerURL: String?
}

@main
struct LandmarksApp {
    static func main() async {
        let app: MAMApp
        do {
            // Launch completes when the collection is shown and the app has authenticated.
            app = try await MAMApp.connect(runtime: "ExampleLandmarksApp/1", finishesLaunching: true)
        } catch {
            FileHandle.standardError.write(Data("ExampleLandmarksApp: \(error)\n".utf8))
            exit(2)
        }
        let configuration = ManagedAppConfigurationProvider(app: app)
        let identitiesShown = IdentitiesShown()
        // Asked first, so the sequence's own observer of updates runs before the one below.
        let identities = ManagedAppProviders(app: app).identifiers(.identity)
        // What the app shows follows every update before the device hears back from the app:
        // the collection, and the identities once the id sequence has yielded what changed.
        app.observeNotifications { n in
            guard n.kind == .managedConfigChanged else { return }
            await show(await configuration.current(LandmarksManagedConfig.self), legacy: await configuration.legacy(LandmarksLegacyConfig.self), app: app)
            if let ids = await app.call(Service.ManagedSecretIds(kind: .identity)).answer { await identitiesShown.wait(until: ids) }
        }
        await show(await configuration.current(LandmarksManagedConfig.self), legacy: await configuration.legacy(LandmarksLegacyConfig.self), app: app)
        // The identities on offer, as the id sequence yields them, a line each.
        let yielded = Task {
            var lines: [String] = []
            for await ids in identities {
                lines.append(ids.isEmpty ? "(none)" : ids.joined(separator: ", "))
                _ = await app.writeFile("Documents/identities.txt", Array(lines.joined(separator: "\n").utf8))
                await identitiesShown.wrote(ids)
            }
        }
        if let ids = await app.call(Service.ManagedSecretIds(kind: .identity)).answer { await identitiesShown.wait(until: ids) }
        await authenticate(app)
        app.finishedLaunching()
        // Items and further notifications arrive until the device ends the app.
        for await _ in app.deliveries {}
        yielded.cancel()
        app.close()
    }

    static func show(_ config: LandmarksManagedConfig?, legacy: LandmarksLegacyConfig?, app: MAMApp) async {
        let resources = if let url = config?.resourceURL {
            "\(url.absoluteString) (ManagedApp)"
        } else if let url = legacy?.ServerURL {
            "\(url) (legacy configuration)"
        } else {
            "no resource server"
        }
        _ = await app.writeFile("Documents/resources.txt", Array(resources.utf8))
        let text: String
        if let c = config?.managedCollection {
            text = "\(c.title): \(c.landmarkIDs.map(String.init).joined(separator: ", "))"
        } else {
            text = "no managed collection"
        }
        _ = await app.writeFile("Documents/collection.txt", Array(text.utf8))
    }

    /// Mutual TLS, the part the talk shows: fetch the identity by its hard-coded id and sign the
    /// server's challenge with it; the server checks the signature with the certificate.
    static func authenticate(_ app: MAMApp) async {
        let providers = ManagedAppProviders(app: app)
        let text: String
        do {
            let identity = try await providers.identity(withIdentifier: "assets-client")
            let signature = try await identity.sign(Array("resource-server challenge".utf8))
            text = signature.isEmpty || identity.certificate.isEmpty
                ? "the device signed nothing" : "signed a challenge with the identity assets-client"
        } catch {
            text = "no identity: \(error)"
        }
        _ = await app.writeFile("Documents/mtls.txt", Array(text.utf8))
    }
}
