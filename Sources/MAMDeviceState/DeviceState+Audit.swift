public import Foundation
import GRDB
import GRDBSQLite
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
        try transaction { db in
            // One statement for the whole batch, bound field by field through SQLite itself:
            // a row a decision, on the host's loop, so no argument array is built per row.
            let insert = try db.makeStatement(sql: """
                INSERT INTO audit (time, scenario, step, verb, source_app, source_identity, destination_app,
                                   destination_identity, owner, decision, reason, explanation)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let statement = insert.sqliteStatement
            // A failed bind (SQLITE_TOOBIG, SQLITE_NOMEM) must not leave the last row's value
            // in place: the first failure is thrown.
            var bound = SQLITE_OK
            // SQLITE_TRANSIENT: SQLite copies the bytes before the bind returns (the pointers
            // are Swift's, valid only during the call) — an empty text too.
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            func bind(_ index: Int32, _ text: String) {
                var text = text
                let code = text.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        guard let base = chars.baseAddress, !chars.isEmpty else {
                            return sqlite3_bind_text(statement, index, "", 0, transient)
                        }
                        return sqlite3_bind_text(statement, index, base, Int32(chars.count), transient)
                    }
                }
                if bound == SQLITE_OK { bound = code }
            }
            func failure(_ code: Int32) -> DatabaseError {
                DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                              sql: insert.sql)
            }
            for event in events {
                bound = sqlite3_bind_double(statement, 1, event.time.secondsSince1970)
                bind(2, event.scenario)
                bind(3, event.step)
                bind(4, event.verb.rawValue)
                bind(5, event.sourceApp)
                bind(6, event.sourceIdentity)
                bind(7, event.destinationApp)
                bind(8, event.destinationIdentity)
                bind(9, event.owner)
                bind(10, event.decision.rawValue)
                bind(11, event.reason?.rawValue ?? "")
                bind(12, event.explanation)
                guard bound == SQLITE_OK else { throw failure(bound) }
                let code = sqlite3_step(statement)
                sqlite3_reset(statement)
                guard code == SQLITE_DONE else { throw failure(code) }
            }
        }
    }

    /// The audit log, oldest first. Holds every row in memory: for tests and small logs; an
    /// export streams (`exportAuditJSONLines`).
    public func auditEvents() throws -> [AuditEvent] {
        var events: [AuditEvent] = []
        try forEachAuditEvent { events.append($0) }
        return events
    }

    /// Calls `body` with each event, oldest first, reading the rows one at a time.
    public func forEachAuditEvent(_ body: (AuditEvent) throws -> Void) throws {
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
