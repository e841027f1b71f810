"""The declarations of the generated Swift types: structs, enums, oneofs and their
initialisers.
"""

from .proto import *
from .model import *


def access(model, node):
    return "" if model.is_mirror(node) else "public "


def declare_types(w):
    m, e = w.model, w.emit
    for node in m.nodes:
        if node not in m.public and node not in m.mirror:
            continue
        mode = m.mode(node)
        if mode in ("declared", "declared-enum", "inline", "unwrap"):
            continue
        if node.parent is not None and "name" not in node.ann and m.mode(node.parent) not in ("inline",):
            opener, closer, indent = f"extension {m.swift_name(node.parent)} {{", "}", "    "
        else:
            opener, closer, indent = None, None, ""
        if opener:
            e(opener)
        name = m.swift_name(node).split(".")[-1]
        pub = access(m, node)
        for line in doc_lines(node.doc, indent):
            e(line)
        if mode == "enum":
            e(f"{indent}{pub}enum {name}: Int32, Sendable, Hashable, CaseIterable {{")
            for case, number, _, doc in m.enum_cases(node):
                for line in doc_lines(doc, indent + "    "):
                    e(line)
                e(f"{indent}    case {escape(case)} = {number}")
            e(f"{indent}}}")
        elif mode in ("struct", "adapter"):
            declare_struct(w, node, name, pub, indent)
        elif mode == "choice":
            declare_oneof_enum(w, node.oneofs[0], name, pub, indent)
        elif mode == "split":
            declare_oneof_enum(w, node.oneofs[0], name, pub, indent)
            e("")
            ctx = node.ann["split"]
            e(f"{indent}/// Where a `{name}` is made from: the fields of `{node.name}` beside its `{node.oneofs[0].name}`.")
            declare_struct_fields(w, m.plain_fields(node), ctx, pub, indent)
        if closer:
            e(closer)
        e("")


def declare_struct(w, node, name, pub, indent):
    m, e = w.model, w.emit
    e(f"{indent}{pub}struct {name}: Sendable, Hashable {{")
    params = []
    for kind, x in m.members(node):
        if kind == "field":
            for line in doc_lines(x.doc, indent + "    "):
                e(line)
            t = m.field_type(x)
            e(f"{indent}    {pub}var {prop(x)}: {t}")
            params.append((prop(x), t, m.default(x)))
        else:
            for line in doc_lines(x.doc, indent + "    "):
                e(line)
            t = m.oneof_type(x)
            e(f"{indent}    {pub}var {escape(camel(x.name))}: {t}")
            params.append((escape(camel(x.name)), t, ".none" if "none" in x.ann else None))
    write_init(w, params, pub, indent + "    ")
    for o in node.oneofs:
        if "declared" in o.ann or "name" in o.ann:
            continue
        e("")
        declare_oneof_enum(w, o, m.oneof_type(o).split(".")[-1], pub, indent + "    ")
    e(f"{indent}}}")
    for o in node.oneofs:
        if "name" in o.ann and "declared" not in o.ann:
            e("")
            for line in doc_lines(o.doc, indent):
                e(line)
            declare_oneof_enum(w, o, o.ann["name"], pub, indent)


def declare_struct_fields(w, fields, name, pub, indent):
    m, e = w.model, w.emit
    e(f"{indent}{pub}struct {name}: Sendable, Hashable {{")
    params = []
    for f in fields:
        for line in doc_lines(f.doc, indent + "    "):
            e(line)
        t = m.field_type(f)
        e(f"{indent}    {pub}var {prop(f)}: {t}")
        params.append((prop(f), t, m.default(f)))
    write_init(w, params, pub, indent + "    ")
    e(f"{indent}}}")


def write_init(w, params, pub, indent):
    e = w.emit
    e("")
    args = ", ".join(f"{p}: {t}" + (f" = {d}" if d is not None else "") for p, t, d in params)
    e(f"{indent}{pub}init({args}) {{")
    for p, _, _ in params:
        bare = p.strip("`")
        e(f"{indent}    self.{bare} = {p}")
    e(f"{indent}}}")


def declare_oneof_enum(w, o, name, pub, indent):
    m, e = w.model, w.emit
    e(f"{indent}{pub}enum {name}: Sendable, Hashable {{")
    if "none" in o.ann:
        e(f"{indent}    case none")
    for f in o.fields:
        for line in doc_lines(f.doc, indent + "    "):
            e(line)
        values = m.case_values(f)
        if m.is_call_oneof(o):
            e(f"{indent}    case {m.case_name(f)}({m.call_type(f)})")
        elif values:
            inner = ", ".join((f"{l}: " if l else "") + t + (f" = {d}" if d else "") for l, t, d in values)
            e(f"{indent}    case {m.case_name(f)}({inner})")
        else:
            e(f"{indent}    case {m.case_name(f)}")
    e("")
    e(f"{indent}    /// The wire name of the case, for logs and errors.")
    e(f"{indent}    {pub}var name: String {{")
    e(f"{indent}        switch self {{")
    if "none" in o.ann:
        e(f'{indent}        case .none: "none"')
    for f in o.fields:
        e(f'{indent}        case .{m.case_name(f)}: "{f.name}"')
    e(f"{indent}        }}")
    e(f"{indent}    }}")
    senders = {f.ann.get("from") for f in o.fields}
    if senders - {None}:
        e("")
        e(f"{indent}    /// Who may send this body (`nil`: either side).")
        e(f"{indent}    {pub}var sender: WireParty? {{")
        e(f"{indent}        switch self {{")
        for f in o.fields:
            s = f.ann.get("from")
            e(f"{indent}        case .{m.case_name(f)}: {'.' + s if s else 'nil'}")
        e(f"{indent}        }}")
        e(f"{indent}    }}")
    if "answers" in o.message.ann:
        write_answers_command(w, o, pub, indent)
    e(f"{indent}}}")


def write_answers_command(w, o, pub, indent):
    """CommandResult member N answers Command member N; a member without a twin answers any."""
    m, e = w.model, w.emit
    other = next(n for n in m.messages if n.name == o.message.ann["answers"])
    twins = {f.number: f for f in other.oneofs[0].fields}
    e("")
    e(f"{indent}    /// Does this answer `command`? A mismatched answer is a protocol error.")
    e(f"{indent}    {pub}func answers(_ command: {m.swift_name(other)}) -> Bool {{")
    e(f"{indent}        switch (self, command) {{")
    for f in o.fields:
        twin = twins.get(f.number)
        if twin is None:
            e(f"{indent}        case (.{m.case_name(f)}, _): true")
        else:
            e(f"{indent}        case (.{m.case_name(f)}, .{m.case_name(twin)}): true")
    e(f"{indent}        default: false")
    e(f"{indent}        }}")
    e(f"{indent}    }}")


