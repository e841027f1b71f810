import Foundation
import MAMModel
import Testing
@testable import MAMPolicy

/// RULES §7: every Graph iosManagedAppProtection property the importer reads is enforced,
/// answered by a query, or declared out of scope with why, and docs/GRAPH-COVERAGE.md says so.
@Suite("Graph property coverage")
struct GraphCoverageTests {
    @Test func everyImportedPropertyIsPlacedOnce() {
        let placed = GraphPolicyCoverage.entries.map(\.key)
        #expect(Set(placed).count == placed.count, "a property is placed twice")
        let known = Set(GraphPolicyImporter.knownProperties).union(GraphPolicyImporter.navigationProperties)
        #expect(known.subtracting(placed).isEmpty, "the importer reads properties the table does not place: \(known.subtracting(placed).sorted())")
        #expect(Set(placed).subtracting(known).isEmpty, "the table places properties the importer does not read: \(Set(placed).subtracting(known).sorted())")
        for e in GraphPolicyCoverage.entries { #expect(!e.note.isEmpty, "\(e.key) says nothing") }
    }

    /// The newer keys are read, never silently dropped, and the document is current.
    @Test func theGeneratedDocumentIsCurrent() throws {
        for key in ["genmojiConfigurationState", "writingToolsConfigurationState", "screenCaptureConfigurationState", "purviewContentEvaluationRequired"] {
            #expect(GraphPolicyCoverage.entry(key) != nil, "\(key)")
        }
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)
        let doc = try String(contentsOfFile: parts.joined(separator: "/") + "/docs/GRAPH-COVERAGE.md", encoding: .utf8)
        #expect(doc == GraphPolicyCoverage.markdown(), "docs/GRAPH-COVERAGE.md is stale: run scripts/generate-verb-reference")
    }

    /// A property the importer does not know is a warning naming it, not an error.
    @Test func anUnknownPropertyIsAWarning() throws {
        let r = try GraphPolicyImporter.importPolicies(Array(#"{"pinRequired": false, "quantumEntanglementBlocked": true}"#.utf8), source: "p.json")
        #expect(r.policies.count == 1)
        #expect(r.warnings.contains { $0.message.contains("quantumEntanglementBlocked") }, "\(r.warnings)")
    }
}

/// SCENARIOS v1.4 `useSurface` (RULES §7): each OS surface by the key that governs it.
@Suite("OS surfaces")
struct SurfaceTests {
    typealias W = World

    @Test(arguments: [
        (OSSurface.writingTools, "writingTools", true), (.writingTools, "genmoji", false),
        (.genmoji, "genmoji", true), (.imagePlayground, "genmoji", true), (.genmoji, "writingTools", false),
        (.askSiri, "screenCapture", true), (.pictureInPicture, "screenCapture", true), (.screenRecording, "screenCapture", true),
        (.screenRecording, "none", false),
        (.callKit, "dialer", true), (.callKit, "none", false),
        (.textViewLink, "browser", true), (.textViewLink, "none", false),
    ])
    func eachSurfaceFollowsItsKey(surface: OSSurface, blockedSetting: String, blocked: Bool) {
        var p = W.strictPolicy()
        p.dialerRestrictionLevel = .allApps
        p.managedBrowserToOpenLinksRequired = false
        switch blockedSetting {
        case "writingTools": p.writingToolsConfigurationState = .blocked
        case "genmoji": p.genmojiConfigurationState = .blocked
        case "screenCapture": p.screenCaptureConfigurationState = .blocked
        case "dialer": p.dialerRestrictionLevel = .managedApps
        case "browser": p.managedBrowserToOpenLinksRequired = true
        default: p.writingToolsConfigurationState = .allowed
        }
        let fleet = W.fleet(policy: p)
        let d = Enforcer.useSurface(surface, as: W.alice, app: W.mine, in: fleet)
        #expect(d.isAllowed == !blocked, "\(surface) with \(blockedSetting): \(d)")
        if blocked { #expect(d.blockedBy == .featureRestricted) }
        #expect(Enforcer.useSurface(surface, as: W.bob, app: W.mine, in: fleet).isAllowed, "personal data meets every surface")
    }
}
