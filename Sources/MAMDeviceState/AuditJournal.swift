import Foundation
import MAMLoop
public import MAMModel
public import MAMPolicy

/// The audit log's front: an append-only file the host writes each loop iteration's records to
/// in one `write`, before the iteration's answers leave. A write that returned is in the
/// kernel's page cache, so it survives the host's death (SIGKILL) as a committed SQLite WAL
/// frame does with `synchronous = NORMAL`: the same durability as before, without a row
/// insert per decision. The journals are the log: exports, reports and tests read them (after
/// the rows an older device kept in the store's `audit` table).
///
/// Layout: a header (`magic`, then 16 random bytes telling journals apart), then records: a
/// little-endian UInt32 payload length, a UInt32 check of the payload, and the payload. A
/// record's payload is the time as a little-endian Float64, then eleven fields each as a
/// UInt32 length and UTF-8 (52 bytes at least). A repeat's payload is 12 bytes: a time and a
/// UInt32 count, for that many more records with the fields of the record before it, each at
/// that time. A stream of shares on one route logs the same fields item after item, and the
/// simulated clock stands still while it flows: one loop iteration's fifty-odd decisions are
/// one record and one repeat, where each used to write its own (in a flood, the journal was the
/// host's largest write to disk). A repeat only follows a record
/// of the same write, so every write, and every journal, begins with a whole record.
///
/// A record cut short or failing its check (the host died mid-write, which no answer
/// waited on), or a repeat with no record before it, ends the journal. The check is
/// `wordCheck`, and FNV-1a in the first journals (`MAMAUDJ1`): FNV-1a takes a byte at a time,
/// a visible part of every share's cost. Journals of the layouts before this one (`MAMAUDJ1`, and
/// `MAMAUDJ2`, without repeats) are read as they are; one found at open is set aside and a new
/// journal begins, so that a build that does not know repeats refuses this layout instead of
/// taking a repeat for a torn record and cutting the journal there.
final class AuditJournal {
    static let fileName = "audit.journal"
    static let magic = Array("MAMAUDJ3".utf8)
    static let firstMagic = Array("MAMAUDJ1".utf8)
    static let secondMagic = Array("MAMAUDJ2".utf8)
    /// The payload of a repeat: a time and a count.
    static let repeatPayload = 12
    static let headerSize = 24
    /// Past this size the journal is set aside (`rotate`), still part of the log, and a new one
    /// begins: a read of the log holds one file in memory at a time.
    static let rotateThreshold = 64 << 20
    /// This journal's threshold (tests set a smaller one).
    var rotateAt = AuditJournal.rotateThreshold

    let path: String
    private var fd: Int32
    /// The bytes in the file.
    private(set) var size: Int

    /// Opens the device's journal, starting one if there is none. A record cut short at its
    /// end (a write the host died in the middle of, which no answer waited on) is cut off, so
    /// new records follow the last whole one.
    init(directory: URL) throws {
        path = directory.appendingPathComponent(Self.fileName).path
        fd = try System.openForAppending(path)
        size = try System.fileStatus(fd).size
        guard size >= Self.headerSize else {
            try start()
            return
        }
        let bytes = try System.readFile(path)
        if Array(bytes.prefix(8)) == Self.firstMagic || Array(bytes.prefix(8)) == Self.secondMagic {
            // Records of an earlier layout stay where they are, set aside; new ones go to a
            // journal of this layout.
            if size > Self.headerSize { try rotate() } else { try start() }
            return
        }
        guard Array(bytes.prefix(8)) == Self.magic else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(path) is not a mamsim audit journal (its first bytes are not \(String(decoding: Self.magic, as: UTF8.self))); move it away and start again"])
        }
        var end = Self.headerSize
        Self.forEachRecord(in: bytes, from: end) { _, _, at in end = at }
        if end < size {
            try System.truncate(fd, to: end)
            size = end
        }
    }

    deinit { System.close(fd) }

    /// Starts the file as a new, empty journal: its header only.
    func start() throws {
        try System.truncate(fd, to: 0)
        var name = [UInt8](repeating: 0, count: 16)
        for i in name.indices { name[i] = UInt8.random(in: 0...255) }
        try System.writeAll(fd, Self.magic + name)
        size = Self.headerSize
    }

    /// Appends `events` in one write.
    func append(_ events: [AuditEvent]) throws {
        var records = AuditRecords()
        for e in events { records.append(e) }
        try append(records)
    }

    /// Appends records encoded beforehand in one write.
    func append(_ records: AuditRecords) throws {
        do {
            try System.writeAll(fd, records.bytes)
        } catch {
            // A write that stopped part way (a full disk) leaves no half record for the retry
            // to follow: the journal is cut back to where it was.
            try? System.truncate(fd, to: size)
            throw error
        }
        size += records.bytes.count
    }

    /// Sets this journal aside as the next `audit.journal.<n>` and begins a new one.
    func rotate() throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let next = (Self.setAside(in: directory).last.flatMap { Int($0.pathExtension) } ?? 0) + 1
        let aside = directory.appendingPathComponent(Self.fileName + "." + String(format: "%09d", next))
        try FileManager.default.moveItem(atPath: path, toPath: aside.path)
        System.close(fd)
        fd = try System.openForAppending(path)
        size = 0
        try start()
    }

    /// The journals set aside, oldest first (the current one comes after them).
    static func setAside(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(fileName + ".") && Int($0.dropFirst(fileName.count + 1)) != nil }.sorted()
            .map { directory.appendingPathComponent($0) }
    }

    /// Calls `body` with each whole record of a journal's bytes from `offset` on (its time, its
    /// fields, where it ends), one at a time; stops at a record cut short or failing its check.
    /// A repeat gives its record's fields once per record it stands for.
    static func forEachRecord(in bytes: [UInt8], from offset: Int, _ body: (Double, [String], Int) throws -> Void) rethrows {
        var at = max(offset, Self.headerSize)
        let first = bytes.starts(with: Self.firstMagic)
        let repeats = bytes.starts(with: Self.magic)
        var last: [String]?
        while at + 8 <= bytes.count {
            let length = Int(Self.get(bytes, at, 4)), check = UInt32(Self.get(bytes, at + 4, 4))
            let start = at + 8
            guard length >= 8, start + length <= bytes.count,
                  bytes.withUnsafeBufferPointer({ b in
                      let payload = UnsafeBufferPointer(rebasing: b[start..<(start + length)])
                      return first ? Self.fnv(payload) : Self.wordCheck(payload)
                  }) == check else { return }
            if repeats, length == Self.repeatPayload {
                let times = Self.get(bytes, start + 8, 4)
                guard let fields = last, times > 0 else { return }
                at = start + length
                let time = Double(bitPattern: Self.get(bytes, start, 8))
                for _ in 0..<times { try body(time, fields, at) }
                continue
            }
            var p = start + 8
            var fields: [String] = []
            fields.reserveCapacity(11)
            for _ in 0..<11 {
                guard p + 4 <= start + length else { return }
                let n = Int(Self.get(bytes, p, 4))
                p += 4
                guard p + n <= start + length else { return }
                fields.append(String(decoding: bytes[p..<(p + n)], as: UTF8.self))
                p += n
            }
            at = start + length
            last = fields
            try body(Double(bitPattern: Self.get(bytes, start, 8)), fields, at)
        }
    }

    private static func get(_ bytes: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<width { v |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
        return v
    }

    /// FNV-1a: the check of the first journals.
    static func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }

    /// The check of a record: eight bytes at a time, each step a multiply and a shift (with
    /// the constants of SplitMix64's finalizer) over the length and the little-endian words,
    /// the last one padded with zeros. Any change of a byte or of the length changes it but
    /// for chance.
    static func wordCheck(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        func mix(_ w: UInt64) {
            h = (h ^ w) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
        }
        var tail: UInt64 = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= bytes.count {
                mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                i += 8
            }
            var shift: UInt64 = 0
            while i < bytes.count {
                tail |= UInt64(base[i]) << shift
                shift += 8
                i += 1
            }
        }
        mix(tail)
        h = (h ^ (h >> 30)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }
}

/// Audit records encoded as the journal stores them, gathered between two writes: the host
/// encodes each decision as it makes it, without an `AuditEvent` (eleven strings) built and
/// kept per decision until the commit.
public struct AuditRecords: Sendable {
    public private(set) var bytes: [UInt8] = []
    public private(set) var count = 0
    /// The last record's eleven fields, as given and as encoded: a stream of shares on one
    /// route logs the same fields item after item, and comparing them costs less than encoding
    /// them again. Kept across writes: the first record of a write is whole, but
    /// copied from here.
    private var last = LastFields()
    /// The repeat these bytes end with, if they end with one: where it begins, its time and
    /// its count, grown in place while the same fields come at the same time.
    private var tail: (at: Int, time: UInt64, times: UInt32)?

    private struct LastFields: Sendable {
        var isSet = false
        var scenario = "", step = "", sourceApp = "", sourceIdentity = "", destinationApp = ""
        var destinationIdentity = "", owner = "", explanation = ""
        var verb = AuditVerb.share, decision = AuditDecision.allowed, reason: Reason?
        /// The fields after the time, as the record holds them.
        var encoded: [UInt8] = []
    }

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
        tail = nil
    }

    public mutating func append(_ e: AuditEvent) {
        append(time: e.time, scenario: e.scenario, step: e.step, verb: e.verb, sourceApp: e.sourceApp,
               sourceIdentity: e.sourceIdentity, destinationApp: e.destinationApp, destinationIdentity: e.destinationIdentity,
               owner: e.owner, decision: e.decision, reason: e.reason, explanation: e.explanation)
    }

    /// One record: its length and check, the time, then the eleven fields, each a
    /// little-endian UInt32 length and its UTF-8; or, when the fields are the last record's
    /// and that record is in these bytes, one more in the repeat that follows it.
    public mutating func append(time: Instant, scenario: String, step: String, verb: AuditVerb, sourceApp: String,
                                sourceIdentity: String, destinationApp: String, destinationIdentity: String, owner: String,
                                decision: AuditDecision, reason: Reason?, explanation: String) {
        // The same fields as the last record: its encoded fields again, after the new time.
        if last.isSet, last.verb == verb, last.decision == decision, last.reason == reason, last.sourceApp == sourceApp,
           last.sourceIdentity == sourceIdentity, last.destinationApp == destinationApp,
           last.destinationIdentity == destinationIdentity, last.owner == owner, last.explanation == explanation,
           last.scenario == scenario, last.step == step {
            // A repeat only follows a record of these bytes: every record appended since they
            // were last emptied set `last`, so there is one when they are not empty.
            if !isEmpty {
                appendRepeat(time.secondsSince1970.bitPattern)
                return
            }
            let fields = last.encoded
            let payload = 8 + fields.count
            bytes.append(count: 8 + payload) { start in
                var p = start + 8
                Self.put(time.secondsSince1970.bitPattern, 8, &p)
                fields.withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: $0.count) }
                let check = AuditJournal.wordCheck(UnsafeBufferPointer(start: start + 8, count: payload))
                var q = start
                Self.put(UInt64(payload), 4, &q)
                Self.put(UInt64(check), 4, &q)
            }
            count += 1
            tail = nil
            return
        }
        // No array of the fields: this runs on the loop once per decision.
        let reasonText = reason?.rawValue ?? ""
        let payload = 8 + 44 + scenario.utf8.count + step.utf8.count + verb.rawValue.utf8.count + sourceApp.utf8.count
            + sourceIdentity.utf8.count + destinationApp.utf8.count + destinationIdentity.utf8.count + owner.utf8.count
            + decision.rawValue.utf8.count + reasonText.utf8.count + explanation.utf8.count
        bytes.append(count: 8 + payload) { start in
            var p = start + 8
            Self.put(time.secondsSince1970.bitPattern, 8, &p)
            Self.field(scenario, &p); Self.field(step, &p); Self.field(verb.rawValue, &p); Self.field(sourceApp, &p)
            Self.field(sourceIdentity, &p); Self.field(destinationApp, &p); Self.field(destinationIdentity, &p)
            Self.field(owner, &p); Self.field(decision.rawValue, &p); Self.field(reasonText, &p); Self.field(explanation, &p)
            precondition(p == start + 8 + payload, "an audit record of another size than it measured")
            let check = AuditJournal.wordCheck(UnsafeBufferPointer(start: start + 8, count: payload))
            var q = start
            Self.put(UInt64(payload), 4, &q)
            Self.put(UInt64(check), 4, &q)
        }
        count += 1
        tail = nil
        last = LastFields(
            isSet: true, scenario: scenario, step: step, sourceApp: sourceApp, sourceIdentity: sourceIdentity,
            destinationApp: destinationApp, destinationIdentity: destinationIdentity, owner: owner, explanation: explanation,
            verb: verb, decision: decision, reason: reason, encoded: Array(bytes[(bytes.count - payload + 8)...]))
    }

    /// One more record with the last one's fields at `time`: the repeat these bytes end with
    /// counts one more if it has that time, else a new repeat follows.
    private mutating func appendRepeat(_ time: UInt64) {
        count += 1
        if let t = tail, t.time == time, t.times < UInt32.max {
            let times = t.times + 1
            tail = (t.at, time, times)
            bytes.withUnsafeMutableBufferPointer { b in
                let start = b.baseAddress! + t.at
                var p = start + 16
                Self.put(UInt64(times), 4, &p)
                var q = start + 4
                Self.put(UInt64(AuditJournal.wordCheck(UnsafeBufferPointer(start: start + 8, count: AuditJournal.repeatPayload))), 4, &q)
            }
            return
        }
        tail = (bytes.count, time, 1)
        bytes.append(count: 8 + AuditJournal.repeatPayload) { start in
            var p = start
            Self.put(UInt64(AuditJournal.repeatPayload), 4, &p)
            p += 4
            Self.put(time, 8, &p)
            Self.put(1, 4, &p)
            var q = start + 4
            Self.put(UInt64(AuditJournal.wordCheck(UnsafeBufferPointer(start: start + 8, count: AuditJournal.repeatPayload))), 4, &q)
        }
    }

    private static func field(_ text: String, _ p: inout UnsafeMutablePointer<UInt8>) {
        // The string's own bytes, borrowed: `withUTF8` needs a mutable copy, one retain and
        // release per field of every record.
        func copy(_ utf8: UnsafeBufferPointer<UInt8>) {
            put(UInt64(utf8.count), 4, &p)
            if let base = utf8.baseAddress, !utf8.isEmpty {
                p.update(from: base, count: utf8.count)
                p += utf8.count
            }
        }
        if text.utf8.withContiguousStorageIfAvailable(copy) == nil {
            var text = text
            text.withUTF8(copy)
        }
    }

    private static func put(_ value: UInt64, _ width: Int, _ p: inout UnsafeMutablePointer<UInt8>) {
        for i in 0..<width { p[i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
        p += width
    }
}
