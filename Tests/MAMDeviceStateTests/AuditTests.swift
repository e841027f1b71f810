import Foundation
import GRDB
import MAMModel
import MAMPolicy
import Testing
@testable import MAMDeviceState

/// The audit log: stored in SQLite, exported as JSON Lines.
@Suite struct AuditTests {
    @Test func auditEventsAreStoredInOrderAndExportedOnePerLine() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let refused = try d.signIn(app: World.mail, account: "dave@contoso.com")
        try d.appendAudit(AuditEvent(time: d.now, scenario: "seed-001", step: "2", verb: .signIn,
                                     sourceApp: World.mail.rawValue, sourceIdentity: "dave@contoso.com",
                                     decision: refused.decision))
        try d.appendAudit(AuditEvent(time: d.now, scenario: "seed-001", step: "3", verb: .share,
                                     sourceApp: World.mail.rawValue, sourceIdentity: "alice@contoso.com",
                                     destinationApp: World.notes.rawValue, destinationIdentity: "",
                                     owner: "alice@contoso.com", decision: .blocked, reason: .outboundPolicy,
                                     explanation: "com.example.notes is not policy-managed"))
        let out = dir.url.appendingPathComponent("audit.jsonl")
        #expect(try dir.open().exportAuditJSONLines(to: out) == 2)
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        #expect(first["time"] == "2026-01-01T00:00:00Z")
        #expect(first["reason"] == "unknown-account")
        #expect(first["decision"] == "blocked")
        #expect(first["explanation"]?.hasPrefix("dave@contoso.com cannot sign in to com.contoso.Mail") == true)
        #expect(Set(first.keys) == ["time", "scenario", "step", "verb", "sourceApp", "sourceIdentity", "destinationApp",
                                    "destinationIdentity", "owner", "decision", "reason", "explanation"])
        let second = try JSONDecoder().decode(AuditEvent.self, from: Data(lines[1].utf8))
        #expect(second == (try d.auditEvents())[1])
        #expect(second.owner == "alice@contoso.com")
    }

    /// Rows are bound field by field: every text comes back byte for byte — empty (not NULL),
    /// accented, emoji, longer than one page — and in order.
    @Test func everyTextOfABatchComesBackExactly() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        let texts = ["", "é", "👩‍💻 alice", String(repeating: "x", count: 70_000), "com.contoso.Mail"]
        let events = texts.enumerated().map { i, t in
            AuditEvent(time: d.now, scenario: t, step: "\(i)", verb: .share, sourceApp: t, sourceIdentity: t,
                       destinationApp: t, destinationIdentity: t, owner: t, decision: .delivered, reason: .outboundPolicy, explanation: t)
        }
        try d.appendAudit(events)
        #expect(try dir.open().auditEvents() == events)
    }

    /// The journals are the log: a journal past its threshold is set aside and a new one
    /// begins, and a read gives every record once, in order, across them and a restart.
    @Test func theLogSpansSetAsideJournalsAndARestart() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        d.auditJournal.rotateAt = 64 << 10
        let text = String(repeating: "x", count: 2_000)
        var all: [AuditEvent] = []
        for batch in 0..<100 {
            let events = (0..<2).map { AuditEvent(time: d.now, scenario: "s", step: "\(batch).\($0)", verb: .share, decision: .delivered, explanation: text) }
            try d.appendAudit(events)
            all += events
        }
        #expect(AuditJournal.setAside(in: dir.url).count >= 3, "400 KB of records span journals of 64 KB")
        #expect(try d.auditEvents() == all)
        let last = AuditEvent(time: d.now, scenario: "s", step: "last", verb: .share, decision: .delivered, explanation: "")
        try d.appendAudit([last])
        #expect(try dir.open().auditEvents() == all + [last])
    }

    /// A record cut short at the journal's end (the host died in the middle of a write, which no
    /// answer waited on) is dropped, the ones before it kept, and new records follow them.
    @Test func aTornRecordIsDroppedAndNewOnesFollowTheLastWholeOne() throws {
        let dir = try DeviceDirectory()
        let events = (1...3).map { AuditEvent(time: Instant(secondsSince1970: 1_700_000_000), scenario: "s", step: "\($0)", verb: .share, decision: .delivered, explanation: "e\($0)") }
        let journal = dir.url.appendingPathComponent(AuditJournal.fileName)
        do {
            let d = try dir.open()
            try d.appendAudit(events)
            try d.appendAudit([AuditEvent(time: d.now, scenario: "s", step: "4", verb: .share, decision: .delivered, explanation: "cut")])
        }
        let whole = try Data(contentsOf: journal)
        try whole.prefix(whole.count - 3).write(to: journal)
        let d = try dir.open()
        #expect(try d.auditEvents() == events, "the torn record is dropped")
        let next = AuditEvent(time: Instant(secondsSince1970: 1_700_000_001), scenario: "s", step: "5", verb: .share, decision: .delivered, explanation: "")
        try d.appendAudit([next])
        #expect(try dir.open().auditEvents() == events + [next])
    }

    /// A journal of an earlier layout (MAMAUDJ1, records checked with FNV-1a; MAMAUDJ2, no
    /// repeats) is read as it is, set aside when the device opens, and new records go to a
    /// journal of this layout after it: the log stays whole and in order.
    @Test(arguments: [1, 2]) func aJournalOfAnEarlierLayoutIsReadAndSetAside(layout: Int) throws {
        let dir = try DeviceDirectory()
        let old = (1...2).map { AuditEvent(time: Instant(secondsSince1970: 1_700_000_000), scenario: "s", step: "\($0)", verb: .share, decision: .delivered, explanation: "layout \(layout), \($0)") }
        var bytes = (layout == 1 ? AuditJournal.firstMagic : AuditJournal.secondMagic) + [UInt8](repeating: 7, count: 16)
        for e in old {
            var payload: [UInt8] = []
            withUnsafeBytes(of: e.time.secondsSince1970.bitPattern.littleEndian) { payload += $0 }
            for f in [e.scenario, e.step, e.verb.rawValue, "", "", "", "", "", e.decision.rawValue, "", e.explanation] {
                withUnsafeBytes(of: UInt32(f.utf8.count).littleEndian) { payload += $0 }
                payload += Array(f.utf8)
            }
            let check = payload.withUnsafeBufferPointer { layout == 1 ? AuditJournal.fnv($0) : AuditJournal.wordCheck($0) }
            withUnsafeBytes(of: UInt32(payload.count).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: check.littleEndian) { bytes += $0 }
            bytes += payload
        }
        try Data(bytes).write(to: dir.url.appendingPathComponent(AuditJournal.fileName))
        let d = try dir.open()
        #expect(try d.auditEvents() == old)
        #expect(AuditJournal.setAside(in: dir.url).count == 1, "the earlier journal is set aside")
        let next = (3...5).map { _ in AuditEvent(time: Instant(secondsSince1970: 1_700_000_001), scenario: "s", step: "3", verb: .share, decision: .delivered, explanation: "") }
        try d.appendAudit(next)
        let reopened = try dir.open()
        #expect(try reopened.auditEvents() == old + next)
        let current = try Data(contentsOf: dir.url.appendingPathComponent(AuditJournal.fileName))
        #expect(Array(current.prefix(8)) == AuditJournal.magic)
    }

    /// Records whose fields repeat the last record's are read back with their fields and
    /// their own times, whichever field changes (each in turn, across repeats, a refusal's
    /// reason and an empty or non-ASCII text among them); a record after a change is byte for
    /// byte one encoded alone, and so is the first record after the bytes are emptied (a write
    /// begins with a whole record).
    @Test func recordsRepeatingTheLastOnesFieldsAreReadBackWithTheirOwnTimes() throws {
        struct Fields: Equatable {
            var scenario = "demo", step = "share 1", verb = AuditVerb.share, sourceApp = "a", sourceIdentity = "alice@contoso.com"
            var destinationApp = "b", destinationIdentity = "", owner = "alice@contoso.com", decision = AuditDecision.delivered
            var reason: Reason? = nil, explanation = ""
            var texts: [String] {
                [scenario, step, verb.rawValue, sourceApp, sourceIdentity, destinationApp, destinationIdentity, owner,
                 decision.rawValue, reason?.rawValue ?? "", explanation]
            }
        }
        var sequence: [Fields] = []
        var f = Fields()
        for round in 0..<13 {
            // Three records alike, then one field changes (the thirteenth round changes none).
            sequence += [f, f, f]
            switch round {
            case 0: f.scenario = "other"
            case 1: f.step = "share 2"
            case 2: f.verb = .copy
            case 3: f.sourceApp = "ä"
            case 4: f.sourceIdentity = ""
            case 5: f.destinationApp = "bb"
            case 6: f.destinationIdentity = "bob@contoso.com"
            case 7: f.owner = "bob@contoso.com"
            case 8: f.decision = .blocked
            case 9: f.reason = .outboundPolicy
            case 10: f.explanation = "managed to unmanaged"
            case 11: f.reason = .inboundPolicy
            default: break
            }
        }
        func time(_ i: Int) -> Double { 1_800_000_000 + Double(i / 2) / 8 }
        func append(_ f: Fields, _ i: Int, to records: inout AuditRecords) {
            records.append(time: Instant(secondsSince1970: time(i)), scenario: f.scenario, step: f.step, verb: f.verb,
                           sourceApp: f.sourceApp, sourceIdentity: f.sourceIdentity, destinationApp: f.destinationApp,
                           destinationIdentity: f.destinationIdentity, owner: f.owner, decision: f.decision, reason: f.reason,
                           explanation: f.explanation)
        }
        var together = AuditRecords()
        var wholeRecords = 0
        for (i, fields) in sequence.enumerated() {
            let before = together.bytes.count
            append(fields, i, to: &together)
            if i == 0 || sequence[i - 1] != fields {
                var one = AuditRecords()
                append(fields, i, to: &one)
                #expect(Array(together.bytes[before...]) == one.bytes, "record \(i), after a change, is whole")
                wholeRecords += 1
            }
        }
        #expect(together.count == sequence.count)
        #expect(wholeRecords == 13)
        var read: [(Double, [String])] = []
        let journal = AuditJournal.magic + [UInt8](repeating: 0, count: AuditJournal.headerSize - AuditJournal.magic.count) + together.bytes
        AuditJournal.forEachRecord(in: journal, from: 0) { time, fields, _ in read.append((time, fields)) }
        #expect(read.map(\.0) == sequence.indices.map(time))
        #expect(read.map(\.1) == sequence.map(\.texts))
        // Emptied between two writes, the next record is whole again.
        together.removeAll()
        append(f, 0, to: &together)
        var one = AuditRecords()
        append(f, 0, to: &one)
        #expect(together.bytes == one.bytes)
    }

    /// A stream of records alike at one time (a route's shares while the simulated clock
    /// stands still) is one record and one repeat counting the rest; a new time starts a new
    /// repeat, and every record is read back.
    @Test func aStreamOfRecordsAlikeIsOneRecordAndOneRepeat() throws {
        var records = AuditRecords()
        func share(at seconds: Double) {
            records.append(time: Instant(secondsSince1970: seconds), scenario: "flood", step: "1", verb: .share, sourceApp: "com.contoso.App0",
                           sourceIdentity: "alice@contoso.com", destinationApp: "com.contoso.App1", destinationIdentity: "alice@contoso.com",
                           owner: "alice@contoso.com", decision: .delivered, reason: nil, explanation: "managed to managed")
        }
        share(at: 1_800_000_000)
        let whole = records.bytes.count
        for _ in 1..<1_000 { share(at: 1_800_000_000) }
        #expect(records.count == 1_000)
        #expect(records.bytes.count == whole + 8 + AuditJournal.repeatPayload)
        for _ in 0..<5 { share(at: 1_800_000_001) }
        #expect(records.bytes.count == whole + 2 * (8 + AuditJournal.repeatPayload))
        var times: [Double] = []
        let journal = AuditJournal.magic + [UInt8](repeating: 0, count: AuditJournal.headerSize - AuditJournal.magic.count) + records.bytes
        AuditJournal.forEachRecord(in: journal, from: 0) { time, fields, _ in
            #expect(fields[10] == "managed to managed")
            times.append(time)
        }
        #expect(times == [Double](repeating: 1_800_000_000, count: 1_000) + [Double](repeating: 1_800_000_001, count: 5))
    }

    /// Each write begins with a whole record, so each journal can be read alone: writes of
    /// records alike from one buffer emptied between them (as the host's group commit does),
    /// over journals set aside every kilobyte, come back whole and in order.
    @Test func writesOfRecordsAlikeSpanJournalsWhole() throws {
        let dir = try DeviceDirectory()
        let d = try dir.open()
        d.auditJournal.rotateAt = 1 << 10
        let event = AuditEvent(time: d.now, scenario: "s", step: "1", verb: .share, decision: .delivered, explanation: "alike")
        var buffer = AuditRecords()
        for _ in 0..<100 {
            for _ in 0..<50 { buffer.append(event) }
            try d.appendAudit(buffer)
            buffer.removeAll()
        }
        let journals = AuditJournal.setAside(in: dir.url)
        #expect(journals.count >= 5)
        for journal in journals {
            var count = 0
            AuditJournal.forEachRecord(in: [UInt8](try Data(contentsOf: journal)), from: 0) { _, _, _ in count += 1 }
            #expect(count > 0 && count % 50 == 0, "\(journal.lastPathComponent) holds whole writes: \(count)")
        }
        #expect(try dir.open().auditEvents() == [AuditEvent](repeating: event, count: 5_000))
    }

    /// A repeat with no record before it in its journal (a damaged file) ends the journal
    /// there, as a torn record does: the device opens, and new records follow the whole ones.
    @Test func aRepeatWithNoRecordBeforeItEndsTheJournal() throws {
        let dir = try DeviceDirectory()
        let event = AuditEvent(time: Instant(secondsSince1970: 1_700_000_000), scenario: "s", step: "1", verb: .share, decision: .delivered, explanation: "alike")
        let journal = dir.url.appendingPathComponent(AuditJournal.fileName)
        do { try dir.open().appendAudit([event, event, event]) }
        let bytes = [UInt8](try Data(contentsOf: journal))
        let firstLength = Int(bytes[AuditJournal.headerSize]) | Int(bytes[AuditJournal.headerSize + 1]) << 8
        #expect(bytes.count == AuditJournal.headerSize + 8 + firstLength + 8 + AuditJournal.repeatPayload, "one record and one repeat")
        try Data(bytes[..<AuditJournal.headerSize] + bytes[(AuditJournal.headerSize + 8 + firstLength)...]).write(to: journal)
        let d = try dir.open()
        #expect(try d.auditEvents() == [])
        try d.appendAudit([event])
        #expect(try dir.open().auditEvents() == [event])
    }

    /// The record check sees a change of any byte and of the length.
    @Test func theRecordCheckSeesEveryByte() {
        let payload = (0..<157).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let check = payload.withUnsafeBufferPointer { AuditJournal.wordCheck($0) }
        for i in payload.indices {
            var changed = payload
            changed[i] ^= 0x01
            #expect(changed.withUnsafeBufferPointer { AuditJournal.wordCheck($0) } != check, "byte \(i)")
        }
        #expect((payload + [0]).withUnsafeBufferPointer { AuditJournal.wordCheck($0) } != check, "a zero byte more")
        #expect(payload.dropLast().withUnsafeBufferPointer { AuditJournal.wordCheck($0) } != check, "a byte less")
    }

    /// A device directory from before v5 (audit numbered with AUTOINCREMENT) opens with its
    /// audit log whole and in order, the old rows first, then what the journal holds.
    @Test func anOlderAuditLogIsKeptWholeAndNumberedOn() throws {
        let dir = try DeviceDirectory()
        do {
            let queue = try DatabaseQueue(path: dir.url.appendingPathComponent(DeviceStore.fileName).path)
            try DeviceStore.migrator.migrate(queue, upTo: "v4: managed app declarations")
            try queue.write { db in
                for step in ["1", "2"] {
                    try db.execute(sql: """
                        INSERT INTO audit (time, scenario, step, verb, source_app, source_identity, destination_app,
                                           destination_identity, owner, decision, reason, explanation)
                        VALUES (0, 'old', ?, 'share', 'a', '', 'b', '', '', 'delivered', '', 'kept')
                        """, arguments: [step])
                }
            }
        }
        let d = try dir.open()
        try d.appendAudit([AuditEvent(time: d.now, scenario: "new", step: "3", verb: .share, decision: .delivered, explanation: "")])
        #expect(try d.auditEvents().map { "\($0.scenario)/\($0.step)" } == ["old/1", "old/2", "new/3"])
        let sql = try d.db.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'audit'") }
        #expect(sql?.contains("AUTOINCREMENT") == false, "\(sql ?? "")")
        #expect(try d.db.read { try Int.fetchAll($0, sql: "SELECT seq FROM audit ORDER BY seq") } == [1, 2], "new records go to the journal")
    }

    /// The audit log is typed in the program and plain text outside it: every verb and decision
    /// is written as the text logs had before they were typed, and a line whose verb or
    /// decision this version does not know is refused by name, not read as something else.
    @Test func verbsAndDecisionsKeepTheirTextAndUnknownOnesAreRefused() throws {
        let texts: [AuditVerb: String] = [
            .share: "share", .signIn: "signIn", .openURL: "openURL", .auditCoalesced: "audit-coalesced",
            .readFile: "read_file", .acquireTokenCall: "acquire_token", .acquireToken: "acquireToken", .managedConfigCall: "managed_config",
        ]
        for (verb, text) in texts { #expect(verb.rawValue == text) }
        #expect(Set(AuditVerb.allCases.map(\.rawValue)).count == AuditVerb.allCases.count, "no two verbs share a text")
        #expect(AuditDecision.remediationLoop.rawValue == "remediation-loop")
        #expect(!AuditVerb.setAppConfig.sourceIsApp && AuditVerb.share.destinationIsApp && !AuditVerb.save.destinationIsApp)
        let line = #"{"time":"2026-01-01T00:00:00Z","scenario":"s","step":"1","verb":"teleport","sourceApp":"mail","sourceIdentity":"","destinationApp":"","destinationIdentity":"","owner":"","decision":"allowed","reason":"","explanation":""}"#
        #expect {
            try JSONDecoder().decode(AuditEvent.self, from: Data(line.utf8))
        } throws: { error in
            "\(error)".contains("\"teleport\" is not an audit verb this mamsim knows")
        }
        let known = line.replacingOccurrences(of: "teleport", with: "paste")
        #expect(try JSONDecoder().decode(AuditEvent.self, from: Data(known.utf8)).verb == .paste)
    }
}
