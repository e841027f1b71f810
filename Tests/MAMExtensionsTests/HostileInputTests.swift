import Foundation
import Testing
@testable import MAMExtensions

@testable import MAMActivation
@testable import MAMBundle
/// Inputs built to crash a recursive parser: each is refused with a clear error instead.
@Suite struct HostileInputTests {
    @Test func anActivationRuleNestedThousandsDeepIsASyntaxErrorNotACrash() {
        let deep = String(repeating: "(", count: 6_000) + "TRUEPREDICATE" + String(repeating: ")", count: 6_000)
        let error = #expect(throws: ActivationRuleSyntaxError.self) { try ActivationPredicate(parsing: deep, source: "Info.plist") }
        #expect("\(error.map { "\($0)" } ?? "")".contains("nested"))
        let nots = String(repeating: "NOT ", count: 10_000) + "TRUEPREDICATE"
        #expect(throws: ActivationRuleSyntaxError.self) { try ActivationPredicate(parsing: nots) }
        // A rule as deep as the limit still parses.
        let limit = PredicateParser.maximumDepth
        let ok = String(repeating: "(", count: limit) + "TRUEPREDICATE" + String(repeating: ")", count: limit)
        #expect(throws: Never.self) { try ActivationPredicate(parsing: ok) }
    }

    @Test func aPlistNestedThousandsDeepIsRefusedWithItsLine() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict><key>CFBundleIdentifier</key><string>com.evil</string><key>x</key>
            \(String(repeating: "<array>", count: 20_000))\(String(repeating: "</array>", count: 20_000))
            </dict>
            </plist>
            """
        let error = #expect(throws: ExtensionPlistError.self) {
            try PropertyListIO.dictionary(from: Data(xml.utf8), source: "Info.plist")
        }
        #expect(error?.message.contains("more than 128 deep") == true, "\(String(describing: error))")
        #expect(error?.line == 4)
    }
}
