"""HotCodec.swift's decoders: a frame's envelope and body, into the two-way `Frame` or into one
side's frame.
"""
from .proto import *
from .model import *
from .hot import *


def write_hot_decode(hot, w):
    e = w.emit
    e("extension HotFrames {")
    write_one_decode(hot, w, "Frame", None)
    for side, name in (("child", "Child"), ("host", "Host")):
        e("")
        write_one_decode(hot, w, f"{name}Frame", side)
    e("}")
    for side, name in (("child", "Child"), ("host", "Host")):
        e("")
        e(f"extension {name}Frame: SentFrame {{")
        e(f"    static var sender: WireParty {{ .{side} }}")
        e("")
        e("    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, pool: StringPool?, received: ReceivedBytes?, into frame: inout Self) -> Bool {")
        e("        HotFrames.decode(bytes, pool: pool, received: received, into: &frame)")
        e("    }")
        e("}")


def write_one_decode(hot, w, frame_type, side):
    """The decoder into `frame_type`: the two-way `Frame` (`side` None: any body, for tools and
    tests), or one side's frame (only the bodies that side sends are read)."""
    m, e = hot.m, w.emit
    frame = m.frame
    plain = sorted(m.plain_fields(frame), key=lambda f: f.number)
    if side is None:
        e("    /// The frame read into `frame` (whatever it held is replaced), or `false` when protobuf-c")
        e("    /// must decide (`frame` is then left to be overwritten). `received`: the same bytes inside")
        e("    /// the buffer they were read into; a share's payload is then left there (the item keeps the")
        e("    /// buffer alive) instead of copied.")
        e("    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, pool: StringPool? = nil, received: ReceivedBytes? = nil, into frame: inout Frame) -> Bool {")
    else:
        e(f"    /// `decode(_:pool:received:into:)` for a frame the {side} sent: only its side's bodies are read.")
        e(f"    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, pool: StringPool? = nil, received: ReceivedBytes? = nil, into frame: inout {frame_type}) -> Bool {{")
    e('        precondition(received == nil || received!.count == bytes.count, "the received bytes are not the frame\'s")')
    e("        // The pool is held here, by the caller's reference, for as long as `reading` is used.")
    e("        let reading = Reading(pool: pool.map(Unmanaged.passUnretained), received: received, frameStart: bytes.baseAddress)")
    e("        // The header first and the body last, read in place into the caller's frame: each")
    e("        // optional or returned copy of a body is a copy of its largest case.")
    e("        var r = ProtoReader(bytes)")
    e("        var seen = Seen()")
    for f in plain:
        if f.type != "uint64":
            hot_fail(f, "the hot codec reads a Frame whose fields besides its body are uint64")
        e(f"        frame.{prop(f)} = 0")
    e("        var number: UInt64 = 0")
    e("        var body = UnsafeBufferPointer<UInt8>(start: nil, count: 0)")
    e("        while !r.atEnd {")
    e("            guard let (n, wire) = r.key() else { return false }")
    e("            switch (n, wire) {")
    for f in plain:
        e(f"            case ({f.number}, 0):")
        e(f"                guard seen.first({f.number}), let v = r.varint() else {{ return false }}")
        e(f"                frame.{prop(f)} = v")
    e("            case (_, 2):")
    e("                guard number == 0, let sub = r.lengthDelimited() else { return false }")
    e("                number = n")
    e("                body = sub")
    e("            default:")
    e("                return false")
    e("            }")
    e("        }")
    e("        switch number {")
    for f in hot.bodies:
        if side is not None and f.ann.get("from") not in (None, side):
            continue
        t = f.target
        case = m.case_name(f)
        e(f"        case {f.number}:")
        if m.mode(t) == "inline":
            g = inline_single(hot, t)
            if is_kept(g):
                e(f"            var v: {m.field_type(g)} = reading.spare()")
                e(f"            guard reading.read{key(t)}(body, into: &v) else {{ return false }}")
            else:
                e(f"            guard let v = reading.read{key(t)}(body) else {{ return false }}")
        else:
            e(f"            guard let v = reading.read{key(t)}(body) else {{ return false }}")
        e(f"            frame.body = .{case}(v)")
    e("        default:")
    e("            return false")
    e("        }")
    e("        return true")
    e("    }")
