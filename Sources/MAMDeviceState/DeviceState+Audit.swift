public import Foundation
import GRDB
import MAMLoop
import MAMModel
import MAMPolicy

extension DeviceState {
    /// Appends one event to the audit log (committed before returning).
    public func appendAudit(_ event: AuditEvent) throws {
        try appendAudit([event])
    }

    /// Appends events to the log's journal in one write (a group commit: one system call for
    /// many decisions, durable once it returns against the host's own death). A journal grown
    /// past its threshold is set aside, still part of the log, and a new one begins.
    public func appendAudit(_ events: [AuditEvent]) throws {
        var records = AuditRecords()
        for e in events { records.append(e) }
        try appendAudit(records)
    }

    /// Appends records encoded as they were decided (the host's group commit), in one write.
    public func appendAudit(_ records: AuditRecords) throws {
        guard !records.isEmpty else { return }
        try auditJournal.append(records)
        if auditJournal.size > auditJournal.rotateAt { try auditJournal.rotate() }
    }

    /// The audit log, oldest first. Holds every row in memory: for tests and small logs; an
    /// export streams (`exportAuditJSONLines`).
    public func auditEvents() throws -> [AuditEvent] {
        var events: [AuditEvent] = []
        try forEachAuditEvent { events.append($0) }
        return events
    }

    /// Calls `body` with each event, oldest first: the rows an older device kept in the store,
    /// then the journals, set aside first, one file at a time.
    public func forEachAuditEvent(_ body: (AuditEvent) throws -> Void) throws {
        try forEachStoredAuditEvent(body)
        let directory = self.directory
        for file in AuditJournal.setAside(in: directory) + [URL(fileURLWithPath: auditJournal.path)] {
            try AuditJournal.forEachRecord(in: try System.readFile(file.path), from: 0) { time, f, _ in
                try body(try AuditEvent(time: Instant(secondsSince1970: time), scenario: f[0], step: f[1], verb: f[2], sourceApp: f[3],
                                        sourceIdentity: f[4], destinationApp: f[5], destinationIdentity: f[6], owner: f[7],
                                        decision: f[8], reason: f[9], explanation: f[10]))
            }
        }
    }

    private func forEachStoredAuditEvent(_ body: (AuditEvent) throws -> Void) throws {
        try readStore { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM audit ORDER BY seq")
            while let row = try rows.next() {
                try body(try AuditEvent(time: Instant(secondsSince1970: row["time"]), scenario: row["scenario"], step: row["step"],
                                    verb: row["verb"], sourceApp: row["source_app"], sourceIdentity: row["source_identity"],
                                    destinationApp: row["destination_app"], destinationIdentity: row["destination_identity"],
                                    owner: row["owner"], decision: row["decision"], reason: row["reason"],
                                    explanation: row["explanation"]))
            }
        }
    }

    /// Writes the audit log to `url` as JSON Lines: one object per event, keys sorted, oldest
    /// first. Returns the number of events written. Streams: rows are read one at a time and
    /// written in chunks of 256 KiB to a file beside `url`, renamed over it when complete, so
    /// memory does not grow with the log and a failed export leaves no half file.
    @discardableResult
    public func exportAuditJSONLines(to url: URL) throws -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: partial.path])
        }
        var finished = false
        defer { if !finished { try? FileManager.default.removeItem(at: partial) } }
        let handle = try FileHandle(forWritingTo: partial)
        defer { try? handle.close() }
        var chunk = Data()
        chunk.reserveCapacity(1 << 18)
        var count = 0
        try forEachAuditEvent { event in
            chunk.append(try encoder.encode(event))
            chunk.append(0x0A)
            count += 1
            if chunk.count >= 1 << 18 {
                try handle.write(contentsOf: chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: chunk)
        try handle.synchronize()
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        try FileManager.default.moveItem(at: partial, to: url)
        finished = true
        return count
    }
}
