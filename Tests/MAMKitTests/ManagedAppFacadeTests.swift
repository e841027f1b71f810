import Foundation
@testable import MAMManagedAppFacade
import Testing

/// The ManagedApp-named façade's own parts (docs/MANAGEDAPP.md); the whole, against a device,
/// is scripts/managedapp-first-run (CI).
@Suite struct ManagedAppFacadeTests {
    struct Refused: ManagedAppConfigurationDecodingError {
        var code: ManagedAppConfigurationDecodingErrorCode
        var message: String
    }

    struct Config: Decodable {
        var title: String
        var count: Int
    }

    /// The app's own error keeps its code and message; a decoder failure gets its kind's
    /// reserved code, at or past `firstReserved`.
    @Test func decodingErrorsReachTheAdministratorWithTheirCodes() throws {
        let own = ManagedAppConfigurationProvider.report(Refused(code: ManagedAppConfigurationDecodingErrorCode(rawValue: 7)!, message: "no title"))
        #expect(own.code == 7 && own.message == "no title")
        let plist = { (dict: [String: Any]) in try PropertyListSerialization.data(fromPropertyList: dict, format: .xml, options: 0) }
        func failure(_ dict: [String: Any]) throws -> (code: Int, message: String) {
            let data = try plist(dict)
            switch Result(catching: { try PropertyListDecoder().decode(Config.self, from: data) }) {
            case .success: Issue.record("decoded"); return (0, "")
            case .failure(let error): return ManagedAppConfigurationProvider.report(error)
            }
        }
        let missing = try failure(["title": "x"])
        #expect(missing.code == ManagedAppConfigurationDecodingErrorCode.keyNotFound && missing.message.contains("count"), "\(missing)")
        let mismatch = try failure(["title": "x", "count": "many"])
        #expect(mismatch.code == ManagedAppConfigurationDecodingErrorCode.typeMismatch && mismatch.message.contains("count"), "\(mismatch)")
        typealias Code = ManagedAppConfigurationDecodingErrorCode
        let codes = [Code.generic, Code.dataCorrupted, Code.keyNotFound, Code.typeMismatch, Code.valueNotFound]
        #expect(Set(codes).count == codes.count && codes.allSatisfy { $0 >= ManagedAppConfigurationDecodingErrorCode.firstReserved })
        #expect(ManagedAppConfigurationDecodingErrorCode(rawValue: -1) == nil)
        // An app's error travels as its code's number (Codable through the raw value).
        let encoded = try JSONEncoder().encode(Refused(code: Code(rawValue: 7)!, message: "no title"))
        #expect(String(decoding: encoded, as: UTF8.self).contains("\"code\":7"))
        #expect(try JSONDecoder().decode(Refused.self, from: encoded).code.rawValue == 7)
    }

    /// A value sent is handled when the loop comes back for the next one: `send` returns only
    /// then; a loop that ends releases its senders.
    @Test func aSentValueIsHandledWhenTheLoopAsksForTheNext() async {
        // Patience no load on the machine outlasts: what is tested is that `send` waits for the
        // loop, not how long it gives up after (5 s by default, which a loaded CI machine once
        // outlasted while the loop slept its 30 ms).
        let channel = Rendezvous<Int>(patience: .seconds(60))
        channel.preload(0)
        let handled = HandledLog()
        let loop = Task {
            for await n in channel {
                try? await Task.sleep(for: .milliseconds(30))
                await handled.add(n)
                if n == 2 { break }
            }
        }
        await channel.send(1)
        #expect(await handled.values == [0, 1], "send(1) returned once the loop had handled 1")
        await channel.send(2)
        await loop.value
        #expect(await handled.values == [0, 1, 2])
        await channel.send(3)   // the loop is gone: returns at once
        #expect(await handled.values == [0, 1, 2])
    }

    actor HandledLog {
        var values: [Int] = []
        func add(_ n: Int) { values.append(n) }
    }

    /// The key's kind decides the algorithm it signs with; a certificate's bytes come back as
    /// `Data` through `CFData`.
    @Test func aKeySignsByItsKindOnly() {
        // SubjectPublicKeyInfo's algorithm identifiers only: what the check reads.
        let ec = SecCertificate(der: [0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
        let rsa = SecCertificate(der: [0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        #expect(ec.isEllipticCurve && !rsa.isEllipticCurve)
        #expect((SecCertificateCopyData(rsa) as Data) == Data(rsa.der))
    }
}
