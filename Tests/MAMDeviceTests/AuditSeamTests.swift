import Foundation
import MAMDeviceState
import MAMModel
import Testing
@testable import MAMDevice

/// A verdict becomes an audit decision in one place (issue 42, part 5): a device that could not
/// do what was asked (its store, its storage) is `failed` in the log, never a rule's `blocked`.
struct AuditSeamTests {
    @Test(arguments: [
        (Verdict.allowed("ok"), AuditDecision.allowed, AuditDecision.delivered),
        (Verdict.blocked(.outboundPolicy, "policy"), AuditDecision.blocked, AuditDecision.blocked),
        (Verdict.failed(.internalError, "the store failed"), AuditDecision.failed, AuditDecision.failed),
        (Verdict.failed(.quota, "the storage is full"), AuditDecision.failed, AuditDecision.failed),
    ])
    func aVerdictIsAuditedOneWay(_ v: Verdict, _ decision: AuditDecision, _ asShare: AuditDecision) {
        #expect(AuditDecision(v) == decision)
        #expect(AuditDecision(v, allowedAs: .delivered) == asShare)
    }

    /// A sign-in the store failed, recorded as the account desk records it, reads `failed`.
    @Test func aFailedStoreIsAuditedFailed() async throws {
        let config = try makeConfiguration(apps: 1)
        let host = try HostController(configuration: config) { _ in }
        #expect(await host.startFleet().isEmpty)
        await host.run(orElse: ()) { h in
            h.audit.record(verb: .signIn, source: "app0", sourceIdentity: "alice@contoso.com", owner: "alice@contoso.com",
                           .failed(.internalError, "the device could not sign in: the store failed"))
        }
        let file = config.deviceDirectory.appendingPathComponent("audit-export.jsonl")
        _ = await host.exportAudit(to: file)
        let rows = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let row = try #require(rows.last { $0["verb"] as? String == "signIn" })
        #expect(row["decision"] as? String == "failed", "\(row)")
        #expect(row["reason"] as? String == "internal", "\(row)")
        #expect(await host.shutdown() == 0)
    }
}
