"""`WireCodec`: the conversion between the Swift types and protobuf-c's structs, with the
checks a decoded frame must pass.
"""
import re

from .proto import *
from .model import *


# ---- The codec -------------------------------------------------------------------------------

def write_codec(w):
    m, e = w.model, w.emit
    e("/// Conversion between the Swift types above and protobuf-c's structs. Encoding allocates")
    e("/// from a `CArena`; decoding reads a message protobuf-c unpacked and refuses, naming the")
    e("/// field, what the contract does not allow.")
    e("enum WireCodec {")
    for node in m.nodes:
        if node not in m.public and node not in m.mirror:
            continue
        if node.kind == "enum":
            write_enum_codec(w, node)
        else:
            write_message_codec(w, node)
    e("}")


def write_enum_codec(w, node):
    m, e = w.model, w.emit
    t, ct = m.swift_name(node), c_type(node)
    e("")
    e(f"    static func encode{key(node)}(_ v: {t}) -> {ct} {{")
    e("        switch v {")
    for case, _, cname, _ in m.enum_cases(node):
        e(f"        case .{escape(case)}: {c_upper(node)}__{cname}")
    e("        }")
    e("    }")
    e("")
    e(f"    static func decode{key(node)}(_ raw: {ct}, _ path: () -> String) throws(WireError) -> {t} {{")
    e("        switch Int32(truncatingIfNeeded: raw.rawValue) {")
    for case, number, _, _ in m.enum_cases(node):
        e(f"        case {number}: return .{escape(case)}")
    e("        default: throw .badEnum(field: path(), value: Int32(truncatingIfNeeded: raw.rawValue))")
    e("        }")
    e("    }")


def message_signature(m, node):
    """(encode parameters, decode result type) of a message's codec functions."""
    mode = m.mode(node)
    if mode == "inline":
        params = [(f"_ {prop(f)}", m.field_type(f)) for f in node.fields]
        types = [m.field_type(f) for f in node.fields]
        result = types[0] if len(types) == 1 else "(" + ", ".join(types) + ")"
        return params, result
    if mode == "unwrap":
        inner = next(x for x in node.fields if x.name == node.ann["unwrap"])
        return [("_ v", m.field_type(inner))], m.field_type(inner)
    if mode == "split":
        return [("_ v", m.swift_name(node)), ("_ context", node.ann["split"])], \
            f"({m.swift_name(node)}, {node.ann['split']})"
    return [("_ v", m.swift_name(node))], m.swift_name(node)


def write_message_codec(w, node):
    m, e = w.model, w.emit
    mode = m.mode(node)
    if mode in ("inline",) and not node.fields:
        return
    params, result = message_signature(m, node)
    ct = c_type(node)
    e("")
    sig = ", ".join(f"{p}: {t}" for p, t in params)
    e(f"    static func encode{key(node)}({sig}, _ arena: CArena) -> UnsafeMutablePointer<{ct}> {{")
    e(f"        let p = arena.message({ct}.self, {c_lower(node)}__init)")
    if mode == "inline":
        for f in node.fields:
            write_field_encode(w, f, prop(f), "        ")
    elif mode == "unwrap":
        inner = next(x for x in node.fields if x.name == node.ann["unwrap"])
        write_field_encode(w, inner, "v", "        ")
    elif mode == "choice":
        write_oneof_encode(w, node.oneofs[0], "v", "        ")
    elif mode == "split":
        write_oneof_encode(w, node.oneofs[0], "v", "        ")
        for f in m.plain_fields(node):
            write_field_encode(w, f, f"context.{prop(f)}", "        ")
    else:
        for kind, x in m.members(node):
            if kind == "field":
                write_field_encode(w, x, f"v.{prop(x)}", "        ")
            else:
                write_oneof_encode(w, x, f"v.{escape(camel(x.name))}", "        ")
    e("        return p")
    e("    }")
    e("")
    e(f"    static func decode{key(node)}(_ c: {ct}, _ path: () -> String) throws(WireError) -> {result} {{")
    if mode == "inline":
        names = []
        for f in node.fields:
            write_field_decode(w, f, "        ")
            names.append(local(f))
        e(f"        return {names[0] if len(names) == 1 else '(' + ', '.join(names) + ')'}")
    elif mode == "unwrap":
        inner = next(x for x in node.fields if x.name == node.ann["unwrap"])
        write_field_decode(w, inner, "        ")
        e(f"        return {local(inner)}")
    elif mode == "choice":
        write_oneof_decode(w, node.oneofs[0], "        ")
        e(f"        return {local_oneof(node.oneofs[0])}")
    elif mode == "split":
        write_oneof_decode(w, node.oneofs[0], "        ")
        plain = m.plain_fields(node)
        for f in plain:
            write_field_decode(w, f, "        ")
        args = ", ".join(f"{prop(f)}: {local(f)}" for f in plain)
        e(f"        return ({local_oneof(node.oneofs[0])}, {node.ann['split']}({args}))")
    else:
        args = []
        for kind, x in m.members(node):
            if kind == "field":
                write_field_decode(w, x, "        ")
                args.append(f"{prop(x)}: {local(x)}")
            else:
                write_oneof_decode(w, x, "        ")
                args.append(f"{escape(camel(x.name))}: {local_oneof(x)}")
        if "valid" in node.ann:
            expr = node.ann["valid"]
            first = re.match(r"\w+", expr)[0]
            first_field = next(f for f in node.fields if prop(f) == first)
            swift_expr = re.sub(r"\b(\w+)\b", lambda mm: "_" + mm[1] if any(prop(f) == mm[1] for f in node.fields) else mm[1], expr)
            e(f"        guard {swift_expr} else {{")
            e(f'            throw .invalidField(sub(path, "{first_field.name}"), "{expr.replace("<=", " <= ")} does not hold")')
            e("        }")
        e(f"        return {m.swift_name(node)}({', '.join(args)})")
    e("    }")


def local(f):
    return "_" + (f.ann.get("name") or camel(f.name))


def local_oneof(o):
    return "_" + camel(o.name)


def sub_path(name):
    return f'{{ sub(path, "{name}") }}'


def encode_message_expr(w, f, value):
    """An expression encoding the Swift `value` of message field `f` (not optional, not repeated)."""
    m = w.model
    t = f.target
    mode = m.mode(t)
    if "adapter" in f.ann:
        return f"encode{key(t)}(WireAdapters.{f.ann['adapter']}({value}), arena)"
    if mode == "adapter":
        return f"encode{key(t)}(WireAdapters.{t.ann['adapter']}({value}), arena)"
    return f"encode{key(t)}({value}, arena)"


def decode_message_expr(w, f, pointer, path):
    m = w.model
    t = f.target
    mode = m.mode(t)
    inner = f"decode{key(t)}({pointer}.pointee, {path})"
    if "adapter" in f.ann:
        return f"WireAdapters.{f.ann['adapter']}({inner}, {path})"
    if mode == "adapter":
        return f"WireAdapters.{t.ann['adapter']}({inner}, {path})"
    return inner


def write_field_encode(w, f, value, indent):
    m, e = w.model, w.emit
    cf = c_field(f.name)
    t = f.target
    if f.repeated:
        e(f"{indent}p.pointee.n_{f.name} = {value}.count")
        if t is None and f.type == "string":
            e(f"{indent}p.pointee.{cf} = arena.stringArray({value})")
        elif t is None:
            e(f"{indent}p.pointee.{cf} = arena.array({value})")
        elif t.kind == "enum":
            raise ProtoError(f"line {f.line}: repeated enums are not supported")
        else:
            e(f"{indent}p.pointee.{cf} = arena.pointerArray({value}) {{ {encode_message_expr(w, f, '$0')} }}")
        return
    if t is None:
        if f.type == "string":
            raw = f"{value}.rawValue" if "type" in f.ann else value
            e(f"{indent}p.pointee.{cf} = arena.string({raw})")
        elif f.type == "bytes":
            e(f"{indent}p.pointee.{cf} = arena.bytes({value})")
        elif f.type == "bool":
            e(f"{indent}p.pointee.{cf} = {value} ? 1 : 0")
        else:
            e(f"{indent}p.pointee.{cf} = {value}")
        return
    if t.kind == "enum":
        if "optional" in f.ann:
            e(f"{indent}if let x = {value} {{ p.pointee.{cf} = encode{key(t)}(x) }}")
        else:
            e(f"{indent}p.pointee.{cf} = encode{key(t)}({value})")
        return
    optional = m.field_type(f).endswith("?") and not (
        m.mode(t) == "adapter" and "adapter" not in f.ann and t.ann["type"].endswith("?"))
    if optional:
        e(f"{indent}if let x = {value} {{ p.pointee.{cf} = {encode_message_expr(w, f, 'x')} }}")
    else:
        e(f"{indent}p.pointee.{cf} = {encode_message_expr(w, f, value)}")


def write_field_decode(w, f, indent):
    m, e = w.model, w.emit
    cf = c_field(f.name)
    t = f.target
    name = local(f)
    path = sub_path(f.name)
    required = "required" in f.ann
    if f.repeated:
        if required:
            e(f'{indent}guard c.n_{f.name} > 0 else {{ throw .missingField(sub(path, "{f.name}")) }}')
        if t is None and f.type == "string":
            e(f"{indent}let {name} = strings(c.{cf}, c.n_{f.name})")
        elif t is None:
            e(f"{indent}let {name} = scalars(c.{cf}, c.n_{f.name})")
        else:
            e(f"{indent}let {name} = try messages(c.{cf}, c.n_{f.name}, {path}) {{ (x) throws(WireError) in")
            e(f"{indent}    try {decode_message_expr(w, f, 'x', path)}")
            e(f"{indent}}}")
        return
    if t is None:
        if f.type == "string":
            expr = f"str(c.{cf})"
            if required:
                e(f"{indent}let {name}Text = {expr}")
                e(f'{indent}guard !{name}Text.isEmpty else {{ throw .missingField(sub(path, "{f.name}")) }}')
                expr = f"{name}Text"
            if "type" in f.ann:
                expr = f"{f.ann['type']}({expr})"
            e(f"{indent}let {name} = {expr}")
        elif f.type == "bytes":
            e(f"{indent}let {name} = bytes(c.{cf})")
        elif f.type == "bool":
            e(f"{indent}let {name} = c.{cf} != 0")
        else:
            if required:
                e(f'{indent}guard c.{cf} != 0 else {{ throw .missingField(sub(path, "{f.name}")) }}')
            e(f"{indent}let {name} = c.{cf}")
        return
    if t.kind == "enum":
        if "optional" in f.ann:
            e(f"{indent}let {name} = c.{cf}.rawValue == 0 ? nil : try decode{key(t)}(c.{cf}, {path})")
        else:
            e(f"{indent}let {name} = try decode{key(t)}(c.{cf}, {path})")
        return
    if required:
        e(f'{indent}guard let {name}Pointer = c.{cf} else {{ throw .missingField(sub(path, "{f.name}")) }}')
        e(f"{indent}let {name} = try {decode_message_expr(w, f, name + 'Pointer', path)}")
    else:
        swift_t = m.field_type(f)
        if not swift_t.endswith("?"):
            swift_t += "?"
        e(f"{indent}var {name}: {swift_t} = nil")
        e(f"{indent}if let x = c.{cf} {{ {name} = try {decode_message_expr(w, f, 'x', path)} }}")


def write_oneof_encode(w, o, value, indent):
    m, e = w.model, w.emit
    msg = o.message
    e(f"{indent}switch {value} {{")
    if "none" in o.ann:
        e(f"{indent}case .none:")
        e(f"{indent}    break")
    for f in o.fields:
        values = m.case_values(f)
        names = [f"v{i}" for i in range(len(values))]
        binding = f"(" + ", ".join(f"let {n}" for n in names) + ")" if names else ""
        if m.is_call_oneof(o):
            # The case carries `Service.<Call>`: its properties are the values.
            call = "call" if values else "_"
            binding = f"(let {call})" if values else ""
            names = [f"call.{escape(p)}" for p in m.call_params(f)]
        e(f"{indent}case .{m.case_name(f)}{binding}:")
        const = f"{c_upper(msg)}__{o.name.upper()}_{f.name.upper()}"
        e(f"{indent}    p.pointee.{o.name}_case = {const}")
        t = f.target
        cf = c_field(f.name)
        if t is None:
            if f.type == "string":
                e(f"{indent}    p.pointee.{cf} = arena.string(v0)")
            elif f.type == "bytes":
                e(f"{indent}    p.pointee.{cf} = arena.bytes(v0)")
            elif f.type == "bool":
                e(f"{indent}    p.pointee.{cf} = v0 ? 1 : 0")
            else:
                e(f"{indent}    p.pointee.{cf} = v0")
            continue
        mode = m.mode(t)
        if not t.fields:
            e(f"{indent}    p.pointee.{cf} = arena.message({c_type(t)}.self, {c_lower(t)}__init)")
        elif mode == "inline":
            args = ", ".join(names)
            e(f"{indent}    p.pointee.{cf} = encode{key(t)}({args}, arena)")
        elif mode == "split":
            e(f"{indent}    p.pointee.{cf} = encode{key(t)}(v0, v1, arena)")
        else:
            e(f"{indent}    p.pointee.{cf} = {encode_message_expr(w, f, 'v0')}")
    e(f"{indent}}}")


def write_oneof_decode(w, o, indent):
    m, e = w.model, w.emit
    msg = o.message
    name = local_oneof(o)
    e(f"{indent}let {name}: {m.oneof_type(o)}")
    e(f"{indent}switch c.{o.name}_case {{")
    if "none" in o.ann:
        e(f"{indent}case {c_upper(msg)}__{o.name.upper()}__NOT_SET:")
        e(f"{indent}    {name} = .none")
    for f in o.fields:
        const = f"{c_upper(msg)}__{o.name.upper()}_{f.name.upper()}"
        e(f"{indent}case {const}:")
        t = f.target
        cf = c_field(f.name)
        case = f".{m.case_name(f)}"
        path = sub_path(f.name)
        if t is None:
            conv = {"string": f"str(c.{cf})", "bytes": f"bytes(c.{cf})", "bool": f"c.{cf} != 0"}.get(f.type, f"c.{cf}")
            label = f.ann.get("label")
            e(f"{indent}    {name} = {case}({label + ': ' if label else ''}{conv})")
            continue
        values = m.case_values(f)
        mode = m.mode(t)
        e(f'{indent}    guard let x = c.{cf} else {{ throw .missingField(sub(path, "{f.name}")) }}')
        if m.is_call_oneof(o):
            if values and mode != "inline":
                raise ProtoError(f"line {f.line}: a service call's message is `@swift inline` (it becomes Service.<Call>)")
            init = m.call_type(f) + "(" + ", ".join(f"{p}: {{}}" for p in m.call_params(f)) + ")"
            if not values:
                e(f"{indent}    _ = x")
                e(f"{indent}    {name} = {case}({init})")
            elif len(values) == 1:
                e(f"{indent}    {name} = {case}({init.format(f'try decode{key(t)}(x.pointee, {path})')})")
            else:
                e(f"{indent}    let v = try decode{key(t)}(x.pointee, {path})")
                e(f"{indent}    {name} = {case}({init.format(*[f'v.{i}' for i in range(len(values))])})")
            continue
        if not values:
            e(f"{indent}    _ = x")
            e(f"{indent}    {name} = {case}")
        elif mode == "inline":
            if len(values) == 1:
                label = values[0][0]
                e(f"{indent}    {name} = {case}({label + ': ' if label else ''}try decode{key(t)}(x.pointee, {path}))")
            else:
                e(f"{indent}    let v = try decode{key(t)}(x.pointee, {path})")
                args = ", ".join((f"{l}: " if l else "") + f"v.{i}" for i, (l, _, _) in enumerate(values))
                e(f"{indent}    {name} = {case}({args})")
        elif mode == "split":
            e(f"{indent}    let v = try decode{key(t)}(x.pointee, {path})")
            e(f"{indent}    {name} = {case}(v.0, v.1)")
        else:
            label = values[0][0]
            e(f"{indent}    {name} = {case}({label + ': ' if label else ''}try {decode_message_expr(w, f, 'x', path)})")
    e(f"{indent}default:")
    e(f'{indent}    throw .missingField(sub(path, "{o.name}"))')
    e(f"{indent}}}")
