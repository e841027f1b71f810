"""HotCodec.swift's measures (each message's size and its nested messages' kept for the
writing) and writers.
"""

from .proto import *
from .model import *
from .codec import local, local_oneof
from .hot import *


def field_measure_lines(hot, f, x):
    """Lines adding field `f` (value `x`) to `n`; a message field's sizes go in `s_<name>`."""
    m = hot.m
    t = f.target
    K = key_size(f.number)
    S = local(f).lstrip("_")
    if f.repeated:
        if t is None and f.type == "string":
            return [f"for y in {x} {{ n += ProtoWriter.fieldSize(keyBytes: {K}, y.utf8.count) }}"]
        if t is None and f.type in UNSIGNED:
            return [f"if !{x}.isEmpty {{",
                    f"    let packed = {x}.reduce(0) {{ $0 + ProtoWriter.varintSize(UInt64($1)) }}",
                    f"    n += ProtoWriter.fieldSize(keyBytes: {K}, packed)",
                    "}"]
        if t is not None and t.kind == "message":
            if hot.measures_with_state(t):
                hot_fail(f, f"{f.name}: a repeated hot message inside another keeps no recent message")
            return [f"for y in {x} {{ n += ProtoWriter.fieldSize(keyBytes: {K}, {size_of(hot, t, measure_call(hot, t, 'y'))}) }}"]
        hot_fail(f, f"{f.name}: not written by the hot codec")
    if t is None:
        if f.type in UNSIGNED or f.type == "int64":
            conv = f"UInt64({x})" if f.type != "int64" else f"UInt64(bitPattern: {x})"
            return [f"n += ProtoWriter.scalarSize(keyBytes: {K}, {conv})"]
        if f.type == "int32":
            return [f"n += ProtoWriter.scalarSize(keyBytes: {K}, UInt64(bitPattern: Int64({x})))"]
        if f.type == "bool":
            return [f"if {x} {{ n += {K + 1} }}"]
        if f.type == "string":
            raw = ".rawValue" if "type" in f.ann else ""
            return [f"n += ProtoWriter.stringSize(keyBytes: {K}, {x}{raw})"]
        if f.type == "bytes":
            return [f"if !{x}.isEmpty {{ n += ProtoWriter.fieldSize(keyBytes: {K}, {x}.count) }}"]
    if t.kind == "enum":
        conv = f"UInt64(WireCodec.encode{key(t)}(e).rawValue)"
        if "optional" in f.ann:
            return [f"if let e = {x} {{ n += ProtoWriter.scalarSize(keyBytes: {K}, {conv}) }}"]
        return [f"n += ProtoWriter.scalarSize(keyBytes: {K}, {conv.replace('(e)', f'({x})')})"]
    adapter = adapter_of(hot, f)
    optional = "required" not in f.ann and f.oneof is None
    ST = sizes_type_of_field(hot, f)

    def measure(y):
        if t.ann.get("hot") == "recent":
            return f"m.recent({y}) {{ HotFrames.measure{key(t)}($0) }}"
        if adapter:
            return measure_call(hot, t, f"WireAdapters.{adapter}({y})")
        return measure_call(hot, t, y)
    size = "s" if ST == "Int" else "s.size"
    if optional:
        return [f"var s_{S}: {ST}? = nil",
                f"if let y = {x} {{",
                f"    let s = {measure('y')}",
                f"    s_{S} = s",
                f"    n += ProtoWriter.fieldSize(keyBytes: {K}, {size})",
                "}"]
    return [f"let s_{S} = {measure(x)}",
            f"n += ProtoWriter.fieldSize(keyBytes: {K}, {'s_' + S if ST == 'Int' else 's_' + S + '.size'})"]

def received_oneof(o):
    rb = [f for f in o.fields if f.type == "bytes" and f.ann.get("hot") == "received"]
    if not rb:
        return None
    others = [f for f in o.fields if f is not rb[0]]
    if len(others) != 1 or others[0].type != "string" or "hotget" not in others[0].ann:
        hot_fail(o.message, f"{o.name}: a oneof with bytes kept in place has one other member, a string with hotget=")
    return rb[0], others[0]

def oneof_measure_lines(hot, o, v):
    got = received_oneof(o)
    if got is None:
        hot_fail(o.message, f"{o.name}: the hot codec writes only a oneof whose bytes are kept in place")
    rb, other = got
    return [f"if let y = {v}.{other.ann['hotget']} {{",
            f"    n += ProtoWriter.fieldSize(keyBytes: {key_size(other.number)}, y.utf8.count)",
            "} else {",
            f"    n += ProtoWriter.fieldSize(keyBytes: {key_size(rb.number)}, {v}.inlineByteCount)",
            "}"]

def oneof_write_lines(hot, o, v):
    rb, other = received_oneof(o)
    return [f"if let y = {v}.{other.ann['hotget']} {{",
            f"    field({other.number}, y)",
            "} else {",
            f"    key({rb.number}, 2)",
            f"    varint(UInt64({v}.inlineByteCount))",
            "    // From where the bytes lie: the buffer they were read into, on the host.",
            f"    {v}.withInlineBytes {{ raw($0) }}",
            "}"]

def field_write_lines(hot, f, x, sizes):
    """Lines writing field `f` (value `x`); `sizes(f)` is where its measured sizes are."""
    m = hot.m
    t = f.target
    N = f.number
    if f.repeated:
        if t is None and f.type == "string":
            return [f"for y in {x} {{ field({N}, y) }}"]
        if t is None and f.type in UNSIGNED:
            return [f"if !{x}.isEmpty {{",
                    f"    key({N}, 2)",
                    f"    varint(UInt64({x}.reduce(0) {{ $0 + Self.varintSize(UInt64($1)) }}))",
                    f"    for y in {x} {{ varint(UInt64(y)) }}",
                    "}"]
        s = measure_call(hot, t, "y")
        return [f"for y in {x} {{",
                f"    let s = {s}",
                f"    key({N}, 2)",
                f"    varint(UInt64({size_of(hot, t, 's')}))",
                f"    write{key(t)}(y, s)",
                "}"]
    if t is None:
        if f.type in UNSIGNED:
            return [f"scalar({N}, UInt64({x}))"]
        if f.type == "int64":
            return [f"scalar({N}, UInt64(bitPattern: {x}))"]
        if f.type == "int32":
            return [f"scalar({N}, UInt64(bitPattern: Int64({x})))"]
        if f.type == "bool":
            return [f"bool({N}, {x})"]
        if f.type == "string":
            raw = ".rawValue" if "type" in f.ann else ""
            return [f"string({N}, {x}{raw})"]
        if f.type == "bytes":
            return [f"if !{x}.isEmpty {{",
                    f"    key({N}, 2)",
                    f"    varint(UInt64({x}.count))",
                    f"    {x}.withUnsafeBufferPointer {{ raw($0) }}",
                    "}"]
    if t.kind == "enum":
        conv = f"UInt64(WireCodec.encode{key(t)}(e).rawValue)"
        if "optional" in f.ann:
            return [f"if let e = {x} {{ scalar({N}, {conv}) }}"]
        return [f"scalar({N}, {conv.replace('(e)', f'({x})')})"]
    adapter = adapter_of(hot, f)
    optional = "required" not in f.ann and f.oneof is None
    ST = sizes_type_of_field(hot, f)
    sz = sizes(f)
    state = ", &writing" if hot.measures_with_state(t) else ""
    value = f"WireAdapters.{adapter}(y)" if adapter else "y"
    size = "s" if ST == "Int" else "s.size"
    if t.ann.get("hot") == "recent":
        body = [f"    key({N}, 2)",
                f"    varint(UInt64(s))",
                "    // A run of items stamped with one owner: its bytes written once, then copied.",
                "    if let last = writing.recent, last.value.isTriviallyIdentical(to: y) {",
                "        raw(UnsafeRawBufferPointer(start: last.bytes, count: last.count))",
                "    } else {",
                "        let start = position",
                f"        write{key(t)}(y, s)",
                "        writing.recent = HotFrames.WrittenRecent(value: y, bytes: start, count: s)",
                "    }"]
    else:
        body = [f"    key({N}, 2)",
                f"    varint(UInt64({size}))",
                f"    write{key(t)}({value}, s{state})"]
    if optional:
        return [f"if let y = {x}, let s = {sz} {{"] + body + ["}"]
    if t.ann.get("hot") == "recent":
        return ["do {", f"    let y = {x}", f"    let s = {sz}"] + body + ["}"]
    value = f"WireAdapters.{adapter}({x})" if adapter else x
    sized = sz if ST == "Int" else f"{sz}.size"
    return [f"key({N}, 2)", f"varint(UInt64({sized}))", f"write{key(t)}({value}, {sz}{state})"]

def in_wire_order(node):
    """A message's fields by number, as protobuf-c writes them: ('field', f), or ('oneof', o)
    once, where its first member is."""
    seen = set()
    for f in sorted(node.fields, key=lambda f: f.number):
        if f.oneof is None:
            yield "field", f
        elif f.oneof.name not in seen:
            seen.add(f.oneof.name)
            yield "oneof", f.oneof


def write_hot_measures(hot, w):
    m, e = hot.m, w.emit
    e("extension HotFrames {")
    for node in hot.messages:
        if is_batch(hot, node):
            continue
        if hot.nested(node):
            e(f"    /// A `{node.name}`'s size and those of the messages in it, measured once and kept for the writing.")
            e(f"    struct Sizes{key(node)} {{")
            e("        var size: Int")
            for f in node.fields:
                if f.target is not None and f.target.kind == "message" and not f.repeated:
                    opt = "?" if "required" not in f.ann else ""
                    e(f"        var {local(f).lstrip('_')}: {sizes_type_of_field(hot, f)}{opt}")
            e("    }")
            e("")
    first = True
    for node in hot.messages:
        if is_batch(hot, node):
            continue
        if not first:
            e("")
        first = False
        swift = value_type(hot, node)
        state = ", _ m: inout Measuring" if hot.measures_with_state(node) else ""
        e(f"    static func measure{key(node)}(_ v: {swift}{state}) -> {hot.sizes_type(node)} {{")
        e("        var n = 0")
        for kind, x in in_wire_order(node):
            if kind == "oneof":
                lines = oneof_measure_lines(hot, x, "v")
            else:
                lines = field_measure_lines(hot, x, value_expr(hot, node, x))
            for line in lines:
                e(f"        {line}")
        if hot.nested(node):
            parts = ", ".join(f"{local(f).lstrip('_')}: s_{local(f).lstrip('_')}" for f in node.fields
                              if f.target is not None and f.target.kind == "message" and not f.repeated)
            e(f"        return Sizes{key(node)}(size: n, {parts})")
        else:
            e("        return n")
        e("    }")
    e("}")

def write_hot_writers(hot, w):
    m, e = hot.m, w.emit
    e("extension ProtoWriter {")
    first = True
    for node in hot.messages:
        if is_batch(hot, node):
            continue
        if not first:
            e("")
        first = False
        swift = value_type(hot, node)
        state = ", _ writing: inout HotFrames.Writing" if hot.measures_with_state(node) else ""
        e(f"    mutating func write{key(node)}(_ v: {swift}, _ s: {hot.sizes_type(node)}{state}) {{")
        for kind, x in in_wire_order(node):
            if kind == "oneof":
                lines = oneof_write_lines(hot, x, "v")
            else:
                lines = field_write_lines(hot, x, value_expr(hot, node, x), lambda g: f"s.{local(g).lstrip('_')}")
            for line in lines:
                e(f"        {line}")
        e("    }")
    e("}")
