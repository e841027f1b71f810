"""HotCodec.swift's readers: the frame's envelope and body, and a reader per message, taking
only protobuf-c's canonical shape.
"""
import re

from .proto import *
from .model import *
from .codec import local, local_oneof
from .hot import *


def field_reader_lines(hot, f, L, fail, ind):
    """Lines reading field `f` (its key already read) into local `L`; `fail` returns failure."""
    m = hot.m
    out = []
    t = f.target
    a = f.ann.get("hot")
    n = f.number
    if f.repeated:
        if t is None and f.type == "string":
            cap = f.ann.get("hotmax")
            bound = f"{L}.count < {cap}, " if cap else ""
            if a == "recent":
                out.append(f"guard {bound}let sub = r.lengthDelimited(), {L}.add(sub, self) else {{ {fail} }}")
            else:
                out.append(f"guard {bound}let sub = r.lengthDelimited(), let x = text(sub) else {{ {fail} }}")
                out.append(f"{L}.append(x)")
            return (n, 2), out
        if t is None and f.type in UNSIGNED:
            out.append(f"guard seen.first({n}), let sub = r.lengthDelimited(), !sub.isEmpty else {{ {fail} }}")
            out.append("var p = ProtoReader(sub)")
            out.append("while !p.atEnd {")
            conv = "x" if f.type == "uint64" else "UInt32(x)"
            check = "" if f.type == "uint64" else ", x <= UInt64(UInt32.max)"
            out.append(f"    guard let x = p.varint(){check} else {{ {fail} }}")
            out.append(f"    {L}.append({conv})")
            out.append("}")
            return (n, 2), out
        if t is not None and t.kind == "message":
            out.append(f"guard let sub = r.lengthDelimited(), let x = {message_read_expr(hot, f, 'sub')} else {{ {fail} }}")
            out.append("// The first item's size says about how many follow: one allocation where doubling made")
            out.append("// several. Bounded, as a hostile first item may be tiny.")
            out.append(f"if {L}.isEmpty {{ {L}.reserveCapacity(min(bytes.count / r.consumed + 1, HotFrames.reservedBatchItems)) }}")
            out.append("// Moved, not copied: a copy of a share or delivery is a dozen retains.")
            out.append(f"{L}.append(consume x)")
            return (n, 2), out
        hot_fail(f, f"{f.name}: the hot codec reads repeated strings, unsigned numbers and messages")
    if t is None:
        if f.type in ("uint64", "uint32", "int32", "int64"):
            check = {"uint64": "", "uint32": ", x <= UInt64(UInt32.max)", "int32": ", x <= UInt64(Int32.max)",
                     "int64": ""}[f.type]
            conv = {"uint64": "x", "uint32": "UInt32(x)", "int32": "Int32(x)", "int64": "Int64(bitPattern: x)"}[f.type]
            out.append(f"guard seen.first({n}), let x = r.varint(){check} else {{ {fail} }}")
            out.append(f"{L} = {conv}")
            return (n, 0), out
        if f.type == "bool":
            out.append(f"guard seen.first({n}), let x = r.bool() else {{ {fail} }}")
            out.append(f"{L} = x")
            return (n, 0), out
        if f.type == "string":
            typ = f.ann.get("type")
            if typ == "BundleID":
                conv = "bundleID(sub)"
            elif a == "unpooled":
                conv = "text(sub, pooled: false)"
            elif a == "recent":
                conv = "recentText(sub)"
            else:
                conv = "text(sub)"
            out.append(f"guard seen.first({n}), let sub = r.lengthDelimited(), let x = {conv} else {{ {fail} }}")
            out.append(f"{L} = {typ}(x)" if typ and typ != "BundleID" else f"{L} = consume x")
            return (n, 2), out
        if f.type == "bytes":
            if a == "kept":
                out.append(f"guard seen.first({n}), let sub = r.lengthDelimited() else {{ {fail} }}")
                out.append(f"HotFrames.fill(&{L}, with: sub)")
            else:
                out.append(f"guard seen.first({n}), let sub = r.lengthDelimited() else {{ {fail} }}")
                out.append(f"{L} = Array(sub)")
            return (n, 2), out
        hot_fail(f, f"{f.name}: the hot codec does not read {f.type}")
    if t.kind == "enum":
        out.append(f"guard seen.first({n}), let x = r.varint(), x != 0, x <= UInt64(Int32.max),")
        out.append(f"      let v = try? WireCodec.decode{key(t)}({c_type(t)}(rawValue: UInt32(x)), {{ \"\" }}) else {{ {fail} }}")
        out.append(f"{L} = v")
        return (n, 0), out
    out.append(f"guard seen.first({n}), let sub = r.lengthDelimited(), let x = {message_read_expr(hot, f, 'sub')} else {{ {fail} }}")
    out.append(f"{L} = consume x")
    return (n, 2), out

def message_read_expr(hot, f, sub):
    t = f.target
    m = hot.m
    if t.ann.get("hot") == "recent":
        return f"recent{key(t)}({sub})"
    if "adapter" in f.ann:
        hot_fail(f, f"{f.name}: a hot field converts through its message's adapter only")
    if m.mode(t) == "adapter":
        return f"read{key(t)}Value({sub})"
    return f"read{key(t)}({sub})"

def local_decl(hot, f, L):
    m = hot.m
    t = f.target
    if f.repeated:
        if f.ann.get("hot") == "recent":
            return f"var {L} = HotFrames.RecentList(self)"
        return f"var {L}: {m.field_type(f)} = []"
    if t is None:
        typ = f.ann.get("type") if f.type == "string" else None
        if typ == "BundleID":
            return f"var {L} = BundleID.none"
        if typ:
            return f'var {L} = {typ}("")'
        return f"var {L}: {SCALARS[f.type]} = " + {"String": '""', "[UInt8]": "[]", "Bool": "false"}.get(SCALARS[f.type], "0")
    if t.kind == "enum":
        return f"var {L}: {m.swift_name(t)}? = nil"
    base = m.field_type(f)
    return f"var {L}: {base.rstrip('?')}? = nil"

def write_hot_readers(hot, w):
    m, e = hot.m, w.emit
    e("extension HotFrames.Reading {")
    first = True
    for node in hot.messages:
        if not first:
            e("")
        first = False
        write_hot_reader(hot, w, node)
    e("}")

def write_hot_reader(hot, w, node):
    m, e = hot.m, w.emit
    mode = m.mode(node)
    ind = "        "
    if mode == "inline":
        g = inline_single(hot, node)
        if is_kept(g):
            e(f"    /// A `{node.name}` read into `v` (kept storage: what it held is replaced).")
            e(f"    func read{key(node)}(_ bytes: UnsafeBufferPointer<UInt8>, into v: inout {m.field_type(g)}) -> Bool {{")
            fail = "return false"
            L = "v"
        else:
            e(f"    func read{key(node)}(_ bytes: UnsafeBufferPointer<UInt8>) -> {m.case_values(next(f for f in m.frame.oneofs[0].fields if f.target is node))[0][1]}? {{")
            fail = "return nil"
            L = local(g)
            e(f"{ind}{local_decl(hot, g, L)}")
        e(f"{ind}var r = ProtoReader(bytes)")
        if not (g.repeated and g.target is not None):
            e(f"{ind}var seen = HotFrames.Seen()")
        e(f"{ind}while !r.atEnd {{")
        e(f"{ind}    guard let (number, wire) = r.key() else {{ {fail} }}")
        e(f"{ind}    switch (number, wire) {{")
        (n, wt), lines = field_reader_lines(hot, g, L, fail, ind)
        e(f"{ind}    case ({n}, {wt}):")
        for line in lines:
            e(f"{ind}        {line}")
        e(f"{ind}    default: {fail}")
        e(f"{ind}    }}")
        e(f"{ind}}}")
        if is_kept(g):
            if g.type == "bytes":
                e(f"{ind}// Absent when empty: the storage given may still hold the last one's bytes.")
                e(f"{ind}if seen.first({g.number}), !v.isEmpty {{ v.removeAll(keepingCapacity: true) }}")
                e(f"{ind}return true")
            else:
                e(f"{ind}return {'!v.isEmpty' if 'required' in g.ann else 'true'}")
        else:
            if g.target is None or g.target.kind != "message":
                hot_fail(g, f"{g.name}: a hot inline body's one field is a message or kept")
            e(f"{ind}return {L}")
        e("    }")
        return
    swift = hot.swift(node)
    e(f"    func read{key(node)}(_ bytes: UnsafeBufferPointer<UInt8>) -> {swift}? {{")
    e(f"{ind}var r = ProtoReader(bytes)")
    e(f"{ind}var seen = HotFrames.Seen()")
    fail = "return nil"
    for f in node.fields:
        if f.oneof is not None:
            if f.type == "bytes" and f.ann.get("hot") == "received":
                e(f"{ind}var {local(f)}: UnsafeBufferPointer<UInt8>? = nil")
            else:
                e(f"{ind}var {local(f)}: {m.field_type(f, in_oneof=True)}? = nil")
        elif deferred(f):
            e(f"{ind}var {local(f)}Bytes: UnsafeBufferPointer<UInt8>? = nil")
        else:
            e(f"{ind}{local_decl(hot, f, local(f))}")
    for o in node.oneofs:
        e(f"{ind}var {local_oneof(o)}Set = false")
    e(f"{ind}while !r.atEnd {{")
    e(f"{ind}    guard let (number, wire) = r.key() else {{ {fail} }}")
    e(f"{ind}    switch (number, wire) {{")
    for f in sorted(node.fields, key=lambda f: f.number):
        if f.oneof is not None:
            o = f.oneof
            if f.type == "bytes" and f.ann.get("hot") == "received":
                e(f"{ind}    case ({f.number}, 2):")
                e(f"{ind}        guard !{local_oneof(o)}Set, let sub = r.lengthDelimited() else {{ {fail} }}")
                e(f"{ind}        {local_oneof(o)}Set = true")
                e(f"{ind}        {local(f)} = sub")
                continue
            if f.target is not None or f.type not in ("string", "bytes"):
                hot_fail(f, f"{f.name}: a hot oneof holds strings and bytes")
            conv = "text(sub)" if f.type == "string" else "Array(sub)"
            e(f"{ind}    case ({f.number}, 2):")
            e(f"{ind}        guard !{local_oneof(o)}Set, let sub = r.lengthDelimited(), let x = {conv} else {{ {fail} }}")
            e(f"{ind}        {local_oneof(o)}Set = true")
            e(f"{ind}        {local(f)} = x")
            continue
        if deferred(f):
            e(f"{ind}    case ({f.number}, 2):")
            e(f"{ind}        guard seen.first({f.number}), let sub = r.lengthDelimited() else {{ {fail} }}")
            e(f"{ind}        {local(f)}Bytes = sub")
            continue
        (n, wt), lines = field_reader_lines(hot, f, local(f), fail, ind)
        e(f"{ind}    case ({n}, {wt}):")
        for line in lines:
            e(f"{ind}        {line}")
    e(f"{ind}    default: {fail}")
    e(f"{ind}    }}")
    e(f"{ind}}}")
    for f in node.fields:
        if f.oneof is None and not deferred(f):
            for line in required_lines(hot, f, local(f), fail):
                e(f"{ind}{line}")
    for f in node.fields:
        if deferred(f):
            e(f"{ind}guard let at = {local(f)}Bytes, let {local(f)} = {message_read_expr(hot, f, 'at')} else {{ {fail} }}")
    for o in node.oneofs:
        if "required" in o.ann:
            e(f"{ind}guard {local_oneof(o)}Set else {{ {fail} }}")
    if "valid" in node.ann:
        expr = re.sub(r"\b(\w+)\b", lambda mm: "_" + mm[1] if any(prop(f) == mm[1] for f in node.fields) else mm[1],
                      node.ann["valid"]).replace("<=", " <= ")
        e(f"{ind}guard {expr} else {{ {fail} }}")
    args = []
    received = None
    for kind, x in m.members(node):
        if kind == "field":
            # Moved, not copied: a copy of a string, list or box is a retain, and its release
            # when the local goes.
            trivial = not x.repeated and (x.target is not None and x.target.kind == "enum"
                                          or x.target is None and x.type not in ("string", "bytes"))
            value = local(x) if trivial or deferred(x) else f"consume {local(x)}"
            if unwrapped(x) and not deferred(x):
                value = f"{value}!" if trivial else f"({value})!"
            if x.repeated and x.ann.get("hot") == "recent":
                value = f"{local(x)}.finish(self)"
            args.append((prop(x), value))
        else:
            members = x.fields
            r = [f for f in members if f.type == "bytes" and f.ann.get("hot") == "received"]
            args.append((escape(camel(x.name)), None))
            received = (x, r[0] if r else None)
    def construct(oneof_arg):
        parts = []
        for label, value in args:
            parts.append(f"{label}: {value}" if value is not None else oneof_arg)
        return f"{swift}({', '.join(parts)})"
    if received is None:
        e(f"{ind}return {construct(None)}")
    else:
        o, rb = received
        if "required" not in o.ann:
            hot_fail(o.message, f"{o.name}: a hot oneof is required")
        label = escape(camel(o.name))
        if rb is not None:
            e(f"{ind}if let bytes = {local(rb)} {{")
            e(f"{ind}    // Left in the buffer it was read into, when there is one.")
            e(f"{ind}    if let shared = inPlace(bytes) {{")
            e(f"{ind}        return {construct('received: shared')}")
            e(f"{ind}    }}")
            case = m.case_name(rb)
            e(f"{ind}    return {construct(f'{label}: .{case}(Array(bytes))')}")
            e(f"{ind}}}")
        for f in o.fields:
            if f is rb:
                continue
            vals = m.case_values(f)
            lab = vals[0][0]
            e(f"{ind}if let x = consume {local(f)} {{")
            e(f"{ind}    return {construct(f'{label}: .{m.case_name(f)}(' + (lab + ': ' if lab else '') + 'x)')}")
            e(f"{ind}}}")
        e(f"{ind}return nil")
    e("    }")
    if mode == "adapter":
        e("")
        e(f"    /// A `{node.name}` as the value it stands for (its adapter's checks fail it).")
        e(f"    func read{key(node)}Value(_ bytes: UnsafeBufferPointer<UInt8>) -> {node.ann['type']}? {{")
        e(f"        guard let w = read{key(node)}(bytes) else {{ return nil }}")
        e(f"        return try? WireAdapters.{node.ann['adapter']}(w, {{ \"\" }})")
        e("    }")
    if node.ann.get("hot") == "recent":
        e("")
        e(f"    /// With a pool, the `{node.name}` the connection's last one was read from is the same value")
        e("    /// when its bytes are the same (a stream of items names one).")
        e(f"    func recent{key(node)}(_ bytes: UnsafeBufferPointer<UInt8>) -> {swift}? {{")
        e(f"        if let known = withPool({{ $0.recent(spelledBy: bytes) }}) ?? nil {{ return known }}")
        e(f"        guard let read = read{key(node)}(bytes) else {{ return nil }}")
        e("        withPool { $0.keep(read, spelledBy: bytes) }")
        e("        return read")
        e("    }")

def required_lines(hot, f, L, fail):
    m = hot.m
    t = f.target
    out = []
    if f.repeated:
        if "required" in f.ann:
            out.append(f"guard !{L}.isEmpty else {{ {fail} }}")
        return out
    if t is not None and (t.kind == "message" or t.kind == "enum"):
        optional_enum = t.kind == "enum" and "optional" in f.ann
        optional_message = t.kind == "message" and "required" not in f.ann
        if not optional_enum and not optional_message:
            out.append(f"guard {L} != nil else {{ {fail} }}")
        return out
    if "required" in f.ann:
        if f.type in ("string", "bytes"):
            out.append(f"guard !{L}{'.rawValue' if 'type' in f.ann else ''}.isEmpty else {{ {fail} }}")
        elif f.type != "bool":
            out.append(f"guard {L} != 0 else {{ {fail} }}")
    return out
