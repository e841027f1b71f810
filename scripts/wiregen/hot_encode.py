"""HotCodec.swift's entry points for writing a frame: a function per body, batches from where
their elements lie, the envelope.
"""

from .proto import *
from .model import *
from .hot import *
from .hot_write import *


def write_hot_encode(hot, w):
    m, e = hot.m, w.emit
    frame = m.frame
    plain = sorted(m.plain_fields(frame), key=lambda f: f.number)
    e("extension HotFrames {")
    if hot.recent_message is not None:
        e(f"    /// The message a connection's items repeat, kept by the arena (`hot=recent`).")
        e(f"    typealias Recent = {hot.swift(hot.recent_message)}")
        e("")
    e("    /// Appends `frame` when its body is one of these frames; `false` leaves `buffer` untouched for")
    e("    /// protobuf-c.")
    e("    static func encode(_ frame: Frame, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) -> Bool {")
    e("        encode(seq: frame.seq, replyTo: frame.replyTo, body: frame.body, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)")
    e("    }")
    e("")
    e("    /// The frame of `seq`, `replyTo` and `body`, written without a `Frame` made of them (a copy of")
    e("    /// the body, and its destruction, at every frame sent).")
    e("    static func encode(seq: UInt64, replyTo: UInt64, body: Frame.Body, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) -> Bool {")
    e("        // Each case's value is handed to a function of its own: captured by the envelope's")
    e("        // closure here, it was a copy of the whole body.")
    e("        switch body {")
    batches = []
    singles = []
    for f in hot.bodies:
        t = f.target
        case = m.case_name(f)
        e(f"        case .{case}(let v):")
        if is_batch(hot, t):
            g = inline_single(hot, t)
            batches.append((f, g))
            e(f"            encode{key(t)}(v[...], seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)")
            continue
        singles.append(f)
        e(f"            encode{key(t)}(v, seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)")
    e("        default:")
    e("            return false")
    e("        }")
    e("        return true")
    e("    }")
    for side, name in (("child", "Child"), ("host", "Host")):
        e("")
        e(f"    /// `encode(seq:replyTo:body:appendingTo:withLengthPrefix:)` for a message the {side} sends.")
        e(f"    static func encode(seq: UInt64, replyTo: UInt64, body: {name}Message, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) -> Bool {{")
        e("        switch body {")
        for f in hot.bodies:
            if f.ann.get("from") not in (None, side):
                continue
            t = f.target
            slice_ = "[...]" if is_batch(hot, t) else ""
            e(f"        case .{m.case_name(f)}(let v):")
            e(f"            encode{key(t)}(v{slice_}, seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix)")
        e("        default:")
        e("            return false")
        e("        }")
        e("        return true")
        e("    }")
    for f in singles:
        t = f.target
        state = hot.measures_with_state(t)
        e("")
        e("    // (Never in line: inlined into `encode`, the closure's capture of `v` copied the whole body.)")
        e("    @inline(never)")
        e(f"    static func encode{key(t)}(_ v: {value_type(hot, t)}, seq: UInt64, replyTo: UInt64, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) {{")
        if state:
            e("        var m = Measuring()")
        e(f"        let s = {measure_call(hot, t, 'v')}")
        e(f"        envelope({f.number}, seq: seq, replyTo: replyTo, bodySize: {size_of(hot, t, 's')}, appendingTo: &buffer, withLengthPrefix: withLengthPrefix) {{ w in")
        if state:
            e("            var writing = Writing()")
            e(f"            w.write{key(t)}(v, s, &writing)")
        else:
            e(f"            w.write{key(t)}(v, s)")
        e("        }")
        e("    }")
    for f, g in batches:
        t, el = f.target, g.target
        state = hot.measures_with_state(el)
        ST = hot.sizes_type(el)
        e("")
        e(f"    /// A `{f.name}` frame of `v` from where they lie, with its length prefix: a sender's")
        e("    /// queue is sent range by range (an array made of each range copied every element).")
        e(f"    static func encode{key(t)}(seq: UInt64, _ v: ArraySlice<{hot.swift(el)}>, appendingTo buffer: inout [UInt8]) {{")
        e(f"        encode{key(t)}(v, seq: seq, replyTo: 0, appendingTo: &buffer, withLengthPrefix: true)")
        e("    }")
        e("")
        e("    @inline(never)")
        e(f"    static func encode{key(t)}(_ v: ArraySlice<{hot.swift(el)}>, seq: UInt64, replyTo: UInt64, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) {{")
        e(f"        v.withUnsafeBufferPointer {{ encode{key(t)}($0, seq: seq, replyTo: replyTo, appendingTo: &buffer, withLengthPrefix: withLengthPrefix) }}")
        e("    }")
        e("")
        e(f"    /// A `{f.name}` frame of `v`, each element lent where it lies (`withPointeeInPlace`: iterating")
        e("    /// copied each one whole) and measured once, its sizes kept for the writing.")
        e(f"    static func encode{key(t)}(_ v: UnsafeBufferPointer<{hot.swift(el)}>, seq: UInt64, replyTo: UInt64, appendingTo buffer: inout [UInt8], withLengthPrefix: Bool) {{")
        e("        // (`nil` only for an empty batch, whose loops read no element.)")
        e("        let p = v.baseAddress")
        e(f"        withUnsafeTemporaryAllocation(of: {ST}.self, capacity: v.count) {{ sizes in")
        if state:
            e("            var m = Measuring()")
        e("            var bodySize = 0")
        e("            for i in 0..<v.count {")
        e(f"                let s = (p! + i).withPointeeInPlace {{ measure{key(el)}($0{', &m' if state else ''}) }}")
        e("                sizes.initializeElement(at: i, to: s)")
        e(f"                bodySize += ProtoWriter.fieldSize(keyBytes: {key_size(g.number)}, {size_of(hot, el, 's')})")
        e("            }")
        e(f"            envelope({f.number}, seq: seq, replyTo: replyTo, bodySize: bodySize, appendingTo: &buffer, withLengthPrefix: withLengthPrefix) {{ w in")
        if state:
            e("                var writing = Writing()")
        e("                for i in 0..<v.count {")
        e("                    let s = sizes[i]")
        e(f"                    w.key({g.number}, 2)")
        e(f"                    w.varint(UInt64({size_of(hot, el, 's')}))")
        e(f"                    (p! + i).withPointeeInPlace {{ w.write{key(el)}($0, s{', &writing' if state else ''}) }}")
        e("                }")
        e("            }")
        e("        }")
        e("    }")
    e("")
    e("    /// A frame's envelope (length prefix, its fields besides the body, the body's key and length)")
    e("    /// around the body `body` writes, which must be `bodySize` bytes.")
    e("    private static func envelope(_ number: UInt64, seq: UInt64, replyTo: UInt64, bodySize: Int, appendingTo buffer: inout [UInt8],")
    e("                                 withLengthPrefix: Bool, _ body: (inout ProtoWriter) -> Void) {")
    names = {"seq": "seq", "replyTo": "replyTo"}
    if [prop(f) for f in plain] != ["seq", "replyTo"]:
        hot_fail(frame, "the hot codec writes a Frame whose fields besides its body are seq and reply_to")
    e(f"        let frameSize = ProtoWriter.scalarSize(keyBytes: {key_size(plain[0].number)}, seq) + ProtoWriter.scalarSize(keyBytes: {key_size(plain[1].number)}, replyTo)")
    e("            + ProtoWriter.keySize(number) + ProtoWriter.varintSize(UInt64(bodySize)) + bodySize")
    e("        let total = frameSize + (withLengthPrefix ? 4 : 0)")
    e("        buffer.append(count: total) { start in")
    e("            var w = ProtoWriter(start)")
    e("            if withLengthPrefix {")
    e("                for shift in stride(from: 24, through: 0, by: -8) { w.byte(UInt8(truncatingIfNeeded: frameSize >> shift)) }")
    e("            }")
    e(f"            w.scalar({plain[0].number}, seq)")
    e(f"            w.scalar({plain[1].number}, replyTo)")
    e("            w.key(number, 2)")
    e("            w.varint(UInt64(bodySize))")
    e("            body(&w)")
    e('            precondition(w.position == start + total, "HotFrames wrote a frame of another size than it measured")')
    e("        }")
    e("    }")
    e("}")
