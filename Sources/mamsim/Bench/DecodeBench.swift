import MAMModel
import MAMWire

/// The host's decode path alone: one 1 KiB share request (the frame a sender sends most),
/// parsed in place from the bytes a read returned into Swift values, against protobuf-c's own
/// unpack and free of the same bytes (no Swift values: the floor). Medians over batches, so the
/// clock's own cost does not count.
enum DecodeBench {
    struct Result {
        var parseNs: Double
        var unpackOnlyNs: Double
        /// The generic path the one-pass codec (`HotFrames`) replaces for share frames:
        /// protobuf-c's unpack and the generated conversion to Swift values.
        var genericNs: Double
    }

    /// The frame a sender sends most: a 1 KiB share request.
    static let frame: Frame = {
        let item = Item(
            id: "f12345", typeIdentifiers: ["public.data"], payload: .inline([UInt8](repeating: 0x61, count: 1024)))
        return Frame(seq: 12_345, body: .shareRequest(ShareRequest(destination: "b", item: item, identity: "alice@contoso.com")))
    }()

    /// `count` parses of that frame and nothing else, for an instruction counter
    /// (scripts/bench-instructions --mode decode).
    static func probe(count: Int) throws {
        let bytes = FrameEncoder.encode(frame)
        var parsed = 0
        try bytes.withUnsafeBytes { raw in
            for _ in 0..<count where try FrameParser.parse(raw).seq == frame.seq { parsed += 1 }
        }
        guard parsed == count else { throw BenchError(message: "decode probe: \(parsed) of \(count) frames parsed") }
    }

    static func run(batches: Int = 101, perBatch: Int = 5_000) throws -> Result {
        let frame = Self.frame
        let bytes = FrameEncoder.encode(frame)
        var parsed = 0
        let parse = try bytes.withUnsafeBytes { raw in
            try medianNanoseconds(batches: batches, perBatch: perBatch) {
                if try FrameParser.parse(raw).seq == frame.seq { parsed += 1 }
            }
        }
        let unpack = bytes.withUnsafeBytes { raw in
            medianNanoseconds(batches: batches, perBatch: perBatch) {
                if FrameParser.unpackOnly(raw) { parsed += 1 }
            }
        }
        let generic = try bytes.withUnsafeBytes { raw in
            try medianNanoseconds(batches: batches, perBatch: perBatch) {
                if try FrameParser.parseWithProtobufC(raw).seq == frame.seq { parsed += 1 }
            }
        }
        // Every parse must have succeeded, or the loop measured the wrong path.
        guard parsed == 3 * batches * perBatch else { throw BenchError(message: "decode bench: \(parsed) of \(3 * batches * perBatch) frames parsed") }
        return Result(parseNs: parse, unpackOnlyNs: unpack, genericNs: generic)
    }
}
