import Foundation
import MAMDeclarations
import Testing
import X509

/// The DDM fixtures live with the conformance scenarios that use them.
enum DDM {
    static var root: URL {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)  // DeclarationTests.swift, MAMDeclarationsTests, Tests
        return URL(fileURLWithPath: parts.joined(separator: "/") + "/scenarios/conformance/fixtures/ddm")
    }

    static func read(_ names: String...) throws -> [DeclarationSet.Entry] {
        try DeclarationSet.read(names.map { root.appendingPathComponent($0) }, displayBase: root).0
    }

    /// A copy of `landmarks/` in a temporary folder, for edits.
    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-ddm-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: root.appendingPathComponent("landmarks"), to: dir)
        return dir
    }
}

@Suite("Declarative Device Management declarations")
struct DeclarationTests {
    @Test func theLandmarksDeclarationsApplyAndResolve() throws {
        let (entries, notes) = try DeclarationSet.read([DDM.root.appendingPathComponent("landmarks")], displayBase: DDM.root)
        #expect(entries.count == 8)
        #expect(notes.isEmpty, "\(notes)")
        let set = try DeclarationSet().applying(entries)
        let app = try #require(set.content(forApp: "com.example.LANDMARKS"), "bundle ids compare without case")
        let config = try #require(app.configuration)
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(config), format: nil) as? [String: Any])
        #expect((plist["managedCollection"] as? [String: Any])?["title"] as? String == "Geography 101")
        #expect(app.passwords == ["api": "api-password"])
        #expect(app.identities == ["assets-client": "client-identity", "device": "device-acme"])
        #expect(app.certificates == ["contoso-root": "root-cert"])
        let ext = try #require(set.content(forExtension: "com.example.landmarks.share", team: "ABCDE12345", container: "com.example.landmarks"))
        #expect(ext.configuration != nil && ext.passwords.isEmpty, "an extension gets only its own entry")
        #expect(set.content(forExtension: "com.example.landmarks.share", team: "ZZZZZ99999", container: "com.example.landmarks") == nil)
        #expect(set.content(forApp: "com.example.other") == nil)
    }

    @Test func thePKCS12IdentityOpensWithItsPasswordAndSigns() throws {
        let set = try DeclarationSet().applying(DDM.read("landmarks"))
        let bytes = try #require(set.assetData["client-identity"])
        let identity = try Credentials.identity(bytes, file: "client-identity", path: "")
        #expect(identity.certificate.subject.description.contains("CN=landmarks-client"))
        let challenge = Array("challenge 42".utf8)
        let signature = try identity.privateKey.sign(challenge)
        #expect(SigningKey.verify(signature, over: challenge, with: identity.certificate))
        #expect(!SigningKey.verify(signature, over: Array("other".utf8), with: identity.certificate))
    }

    @Test func theSimulatedCAIssuesAnACMEIdentity() throws {
        let set = try DeclarationSet().applying(DDM.read("landmarks"))
        let e = try Credentials.enrollment(set.assetData["device-acme"]!, type: DeclarationType.acme, file: "device-acme", path: "")
        #expect(e.subject == [[["CN", "landmarks-device"]], [["O", "Contoso"]]] && e.keyType == "ECSECPrimeRandom" && e.keySize == 256)
        let ca = try SimulatedCA(keyDER: Array(P256Key.fresh()))
        let key = try SigningKey.generate(for: e)
        let cert = try ca.issue(e, key: key)
        #expect(cert.subject.description.contains("CN=landmarks-device"))
        #expect(cert.issuer == ca.certificate.subject)
        #expect(ca.certificate.publicKey.isValidSignature(cert.signature, for: cert))
        let data = Array("hello".utf8)
        #expect(SigningKey.verify(try key.sign(data), over: data, with: cert))
    }

    /// Each mistake names the file, the key path and the fix; nothing is applied.
    @Test(arguments: [
        ("wrong type", "landmarks-app.json", #""BundleID": "com.example.landmarks""#, #""BundleID": 42"#,
         "landmarks-app.json: Payload.BundleID: must be a string, but it is a number"),
        ("missing required", "api-password.json", #""ServerToken": "1","#, "",
         "api-password.json: ServerToken: is missing"),
        ("hash mismatch", "root-cert.json", #""Hash-SHA-256": ""#, #""Hash-SHA-256": "00"#,
         "root-cert.json: Payload.Reference.Hash-SHA-256: does not match contoso-root.pem"),
        ("no app id", "landmarks-app.json", #""BundleID": "com.example.landmarks","#, "",
         "landmarks-app.json: Payload: names no app; give BundleID"),
        ("bad extension key", "landmarks-app.json", "com.example.landmarks.share (ABCDE12345)", "com.example.landmarks.share",
         "landmarks-app.json: Payload.ExtensionConfigs.com.example.landmarks.share: keys are \"<extension bundle id> (<team id>)\""),
        ("allowed values", "client-identity.json", #""Accessible": "AfterFirstUnlock""#, #""Accessible": "Always""#,
         "client-identity.json: Payload.Accessible: is \"Always\"; it must be one of Default, AfterFirstUnlock"),
        // A number beyond any integer is refused, never converted (it trapped the process).
        ("size beyond any integer", "root-cert.json", #""Size": 639"#, #""Size": 1e300"#,
         "root-cert.json: Payload.Reference.Size: must be an integer"),
        ("key size beyond any integer", "device-acme.credential", #""KeySize": 256"#, #""KeySize": 1e300"#,
         "device-acme"),
    ])
    func aBadDeclarationNamesFileKeyPathAndFix(row: String, file: String, replacing: String, with: String, expected: String) throws {
        let dir = try DDM.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(file)
        var text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains(replacing), "\(row): the fixture changed")
        text = text.replacingOccurrences(of: replacing, with: with)
        try Data(text.utf8).write(to: url)
        do {
            _ = try DeclarationSet().applying(DeclarationSet.read([dir], displayBase: dir).0)
            Issue.record("\(row): must not apply")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(row): \(error)")
        }
    }

    @Test func aBrokenReferenceIsRefusedAndNothingIsApplied() throws {
        let before = try DeclarationSet().applying(DDM.read("landmarks"))
        do {
            _ = try before.removing("api-password")
            Issue.record("the app configuration still uses api-password")
        } catch {
            #expect(error.description == #"landmarks/landmarks-app.json: Payload.AppConfig.Passwords[0].AssetReference: names "api-password", which no declaration of this batch or of the device has; apply the asset declaration with it"#)
        }
        #expect(before.declarations["api-password"] != nil)
    }

    @Test func aLegacyPKCS12AndAWrongPasswordAreRefusedWithTheFix() throws {
        do {
            _ = try DDM.read("bad-legacy-p12")
            Issue.record("a legacy PKCS #12 must be refused")
        } catch {
            #expect("\(error)".contains("legacy PKCS #12 encryption"), "\(error)")
            #expect("\(error)".contains("openssl pkcs12 -export -keypbe AES-256-CBC"), "\(error)")
        }
        let dir = try DDM.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cred = dir.appendingPathComponent("client-identity.credential")
        let text = try String(contentsOf: cred, encoding: .utf8).replacingOccurrences(of: #""Password": "landmarks""#, with: #""Password": "wrong""#)
        try Data(text.utf8).write(to: cred)
        // The hash of the asset changed with it: update the declaration as a server would.
        let declURL = dir.appendingPathComponent("client-identity.json")
        var decl = try JSONSerialization.jsonObject(with: Data(contentsOf: declURL)) as! [String: Any]
        var payload = decl["Payload"] as! [String: Any]
        var reference = payload["Reference"] as! [String: Any]
        reference["Size"] = text.utf8.count
        reference["Hash-SHA-256"] = nil
        payload["Reference"] = reference
        decl["Payload"] = payload
        try JSONSerialization.data(withJSONObject: decl).write(to: declURL)
        do {
            _ = try DeclarationSet.read([declURL], displayBase: dir)
            Issue.record("a wrong password must be refused")
        } catch {
            #expect(error.description.contains("the password is wrong"), "\(error)")
        }
    }
}

/// A damaged PKCS #12 file is an error, never a crash (a fuzzer found an empty PBKDF2
/// pseudo-random-function sequence indexed without a check).
@Suite("PKCS #12 reader robustness")
struct PKCS12RobustnessTests {
    @Test func everyTruncationAndByteFlipIsAnErrorOrAnIdentity() throws {
        let set = try DeclarationSet().applying(DDM.read("landmarks"))
        let cred = try #require(try JSONSerialization.jsonObject(with: Data(set.assetData["client-identity"]!)) as? [String: String])
        let p12 = Array(try #require(Data(base64Encoded: cred["Identity"]!)))
        for cut in stride(from: 0, to: p12.count, by: 7) { _ = try? PKCS12Identity(bytes: Array(p12.prefix(cut)), password: "landmarks") }
        for i in stride(from: 0, to: p12.count, by: 5) {
            var bytes = p12
            bytes[i] ^= 0xFF
            _ = try? PKCS12Identity(bytes: bytes, password: "landmarks")
        }
        // An empty SEQUENCE where the PBKDF2 pseudo-random function belongs.
        #expect(throws: PKCS12Identity.ReadError.self) { try PKCS12Identity(bytes: [0x30, 0x00], password: "") }
    }
}

/// A PKCS #12 file's PBKDF2 work is bounded per file, not per bag: bags that each ask for an
/// accepted count but together too many are refused before the work of the one too many.
@Suite struct PKCS12BudgetTests {
    static var fixture: URL {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(2)
        return URL(fileURLWithPath: parts.joined(separator: "/") + "/Fixtures/pkcs12/costly-iterations.p12")
    }

    @Test func bagsThatTogetherAskForTooManyIterationsAreRefused() throws {
        let bytes = Array(try Data(contentsOf: Self.fixture))
        do {
            _ = try PKCS12Identity(bytes: bytes, password: "costly")
            Issue.record("2,200,000 iterations in all must be refused")
        } catch {
            #expect(error.description.contains("more PBKDF2 iterations than a file may"), "\(error)")
            #expect(error.description.contains("1100000 before it"), "\(error)")
        }
    }
}

/// A userpassword credential's data is JSON: kept as `.json` beside its declaration in a
/// folder, it is the asset's data (its declaration's DataURL names it), not a declaration.
@Suite struct AssetDataFileTests {
    @Test func aJSONAssetDataFileInAFolderIsDataNotADeclaration() throws {
        let dir = try DDM.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try DeclarationSet.read([dir]).0.count
        try FileManager.default.moveItem(at: dir.appendingPathComponent("api-password.credential"), to: dir.appendingPathComponent("api-password-data.json"))
        let declaration = dir.appendingPathComponent("api-password.json")
        let text = try String(contentsOf: declaration, encoding: .utf8)
        #expect(text.contains("assets/api-password.credential"), "the fixture changed")
        try Data(text.replacingOccurrences(of: "assets/api-password.credential", with: "assets/api-password-data.json").utf8).write(to: declaration)
        let entries = try DeclarationSet.read([dir]).0
        #expect(entries.count == before, "\(entries.map(\.declaration.identifier))")
        #expect(entries.contains { $0.declaration.identifier == "api-password" && $0.assetData != nil })
    }
}
