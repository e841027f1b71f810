import Foundation
import MAMManagedApp
import Testing

/// How a `URL` and a `Date` decode from a ManagedApp configuration (issue 87, item 3): Apple's
/// framework hands the app's type a property list through a decoder (ManagedAppConfigurationProvider's
/// overview), so a `<date>` is a `Date`, a date written as a `<string>` is not, and a `URL` needs
/// its keyed form or a type that reads a `String` — a `<string>` alone is refused, and the
/// refusal names the key and the error, as the run's output says it.
@Suite struct ManagedAppDecodingTests {
    static func plist(_ body: String) -> [UInt8] {
        Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>\#(body)</dict></plist>"#.utf8)
    }

    struct Direct: Decodable { var homePage: URL }
    struct ViaString: Decodable {
        var homePage: URL
        enum CodingKeys: String, CodingKey { case homePage }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let text = try c.decode(String.self, forKey: .homePage)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorruptedError(forKey: .homePage, in: c, debugDescription: "not a URL: \(text)")
            }
            homePage = url
        }
    }
    struct Dated: Decodable { var expires: Date }

    @Test func aURLDecodesFromItsKeyedFormOrThroughAString() throws {
        let string = Self.plist("<key>homePage</key><string>https://contoso.com/start</string>")
        #expect(throws: DecodingError.self) { try ManagedAppConfigurationProvider.decode(Direct.self, from: string) }
        do {
            _ = try ManagedAppConfigurationProvider.decode(Direct.self, from: string)
        } catch {
            let said = ManagedAppConfigurationProvider.describe(error)
            #expect(said.contains("at homePage") && said.contains("expected"), "\(said)")
        }
        #expect(try ManagedAppConfigurationProvider.decode(ViaString.self, from: string).homePage.host == "contoso.com")
        let keyed = Self.plist("<key>homePage</key><dict><key>relative</key><string>https://contoso.com/start</string></dict>")
        #expect(try ManagedAppConfigurationProvider.decode(Direct.self, from: keyed).homePage.absoluteString == "https://contoso.com/start")
    }

    @Test func aDateIsAPropertyListDate() throws {
        let date = Self.plist("<key>expires</key><date>2026-12-31T00:00:00Z</date>")
        #expect(try ManagedAppConfigurationProvider.decode(Dated.self, from: date).expires == Date(timeIntervalSince1970: 1_798_675_200))
        let text = Self.plist("<key>expires</key><string>2026-12-31T00:00:00Z</string>")
        do {
            _ = try ManagedAppConfigurationProvider.decode(Dated.self, from: text)
            Issue.record("a date written as a string decoded")
        } catch {
            let said = ManagedAppConfigurationProvider.describe(error)
            #expect(said.contains("at expires"), "\(said)")
        }
    }
}
