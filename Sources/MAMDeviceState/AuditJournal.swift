import Foundation
import MAMLoop
import MAMModel
import MAMPolicy

/// The audit log's front: an append-only file the host writes each loop iteration's records to
/// in one `write`, before the iteration's answers leave. A write that returned is in the
/// kernel's page cache, so it survives the host's death (SIGKILL) as a committed SQLite WAL
/// frame does with `synchronous = NORMAL`: the same durability as before, without a row
/// insert per decision. The journals are the log: exports, reports and tests read them (after
/// the rows an older device kept in the store's `audit` table).
///
/// Layout: a header (`magic`, then 16 random bytes telling journals apart), then records: a
/// little-endian UInt32 payload length, a UInt32 FNV-1a of the payload, and the payload (the
/// time as a little-endian Float64, then eleven fields each as a UInt32 length and UTF-8).
/// A record cut short or failing its check (the host died mid-write, which no answer
/// waited on) ends the journal.
final class AuditJournal {
    static let fileName = "audit.journal"
    static let magic = Array("MAMAUDJ1".utf8)
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
        var out: [UInt8] = []
        out.reserveCapacity(events.count * 256)
        // On the loop, once per decision: the fields go straight into `out`, with no array of
        // them built per record (and no closure capturing `out`, which boxes it).
        for e in events {
            let at = out.count
            Self.put(0, 8, into: &out)
            Self.put(e.time.secondsSince1970.bitPattern, 8, into: &out)
            Self.field(e.scenario, &out); Self.field(e.step, &out); Self.field(e.verb.rawValue, &out)
            Self.field(e.sourceApp, &out); Self.field(e.sourceIdentity, &out); Self.field(e.destinationApp, &out)
            Self.field(e.destinationIdentity, &out); Self.field(e.owner, &out); Self.field(e.decision.rawValue, &out)
            Self.field(e.reason?.rawValue ?? "", &out); Self.field(e.explanation, &out)
            let length = out.count - at - 8
            let check = out.withUnsafeBufferPointer { Self.fnv($0[(at + 8)...]) }
            Self.put(UInt64(length), 4, into: &out, at: at)
            Self.put(UInt64(check), 4, into: &out, at: at + 4)
        }
        do {
            try System.writeAll(fd, out)
        } catch {
            // A write that stopped part way (a full disk) leaves no half record for the retry
            // to follow: the journal is cut back to where it was.
            try? System.truncate(fd, to: size)
            throw error
        }
        size += out.count
    }

    private static func field(_ text: String, _ out: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            put(UInt64(utf8.count), 4, into: &out)
            out.append(contentsOf: utf8)
        }
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
    static func forEachRecord(in bytes: [UInt8], from offset: Int, _ body: (Double, [String], Int) throws -> Void) rethrows {
        var at = max(offset, Self.headerSize)
        while at + 8 <= bytes.count {
            let length = Int(Self.get(bytes, at, 4)), check = UInt32(Self.get(bytes, at + 4, 4))
            let start = at + 8
            guard length >= 8, start + length <= bytes.count,
                  bytes.withUnsafeBufferPointer({ Self.fnv($0[start..<(start + length)]) }) == check else { return }
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
            try body(Double(bitPattern: Self.get(bytes, start, 8)), fields, at)
        }
    }

    private static func put(_ value: UInt64, _ width: Int, into out: inout [UInt8], at: Int? = nil) {
        for i in 0..<width {
            let byte = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))
            if let at { out[at + i] = byte } else { out.append(byte) }
        }
    }

    private static func get(_ bytes: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<width { v |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
        return v
    }

    private static func fnv(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }
}
