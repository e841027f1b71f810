import Foundation
import MAMModel
import Testing
@testable import MAMPolicy

/// The built-in baselines are Microsoft's templates as published (the fixtures are copies of
/// the same commit), and each imports as a policy of its level.
@Suite struct BaselineTests {
    @Test(arguments: [("level-1", "basic"), ("level-2", "enhanced"), ("level-3", "high")])
    func eachBaselineIsMicrosoftsTemplate(_ level: (String, String)) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let fixture = root.appendingPathComponent("Tests/Fixtures/shared/fixtures/policies/icf-\(level.0)-enterprise-\(level.1)-data-protection-iOS.json")
        let published = String(decoding: try Data(contentsOf: fixture), as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        let built = try #require(Baselines.document("baseline:\(level.0)"))
        #expect(built.trimmingCharacters(in: .whitespacesAndNewlines) == published.trimmingCharacters(in: .whitespacesAndNewlines))
        let policy = try #require(try GraphPolicyImporter.importPolicies(Array(built.utf8), source: level.0).policies.first)
        #expect(policy.displayName.lowercased().contains(level.1))
        #expect(Baselines.document("level-4") == nil && Baselines.names == ["level-1", "level-2", "level-3"])
    }
}
