public import Foundation
import GRDB
import MAMModel
import MAMPolicy

extension DeviceState {
    /// Appends one event to the audit log (committed before returning).
    public func appendAudit(_ event: AuditEvent) throws {
        try appendAudit([event])
    }

    /// Appends events in one transaction: a group commit, one fsync for many decisions.
    public func appendAudit(_ events: [AuditEvent]) throws {
        guard !events.isEmpty else { return }
        try db.write { db in
            // One prepared statement for the whole batch.
            let insert = try db.cachedStatement(sql: """
                INSERT INTO audit (time, scenario, step, verb, source_app, source_identity, destination_app,
                                   destination_identity, owner, decision, reason, explanation)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for event in events {
                try insert.execute(arguments: [
                    event.time.secondsSince1970, event.scenario, event.step, event.verb, event.sourceApp,
                    event.sourceIdentity, event.destinationApp, event.destinationIdentity, event.owner,
                    event.decision, event.reason, event.explanation])
            }
        }
    }

    /// The audit log, oldest first.
    public func auditEvents() throws -> [AuditEvent] {
        try db.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM audit ORDER BY seq").map { row in
                AuditEvent(time: Instant(secondsSince1970: row["time"]), scenario: row["scenario"], step: row["step"],
                           verb: row["verb"], sourceApp: row["source_app"], sourceIdentity: row["source_identity"],
                           destinationApp: row["destination_app"], destinationIdentity: row["destination_identity"],
                           owner: row["owner"], decision: row["decision"], reason: row["reason"],
                           explanation: row["explanation"])
            }
        }
    }

    /// Writes the audit log to `url` as JSON Lines: one object per event, keys sorted, oldest
    /// first. Returns the number of events written.
    @discardableResult
    public func exportAuditJSONLines(to url: URL) throws -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let events = try auditEvents()
        var out = Data()
        for event in events {
            out.append(try encoder.encode(event))
            out.append(0x0A)
        }
        try out.write(to: url, options: .atomic)
        return events.count
    }
}
