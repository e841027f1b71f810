"""The Swift shape of each message and enum (`Model`), and the writer of generated text."""

from .proto import *


# ---- The Swift shape of each type -------------------------------------------------------------

class Model:
    def __init__(self, top, nodes):
        self.top, self.nodes = top, nodes
        self.messages = [n for n in nodes if n.kind == "message"]
        self.enums = [n for n in nodes if n.kind == "enum"]
        self.mirror = set()
        frame = next(n for n in self.messages if n.name == "Frame" and n.parent is None)
        self.frame = frame
        self.public = set()
        self.walk(frame, mirror=False, seen=set())
        for m in self.messages:
            if self.mode(m) == "adapter":
                self.walk(m, mirror=True, seen=set())

    def walk(self, node, mirror, seen):
        if node in seen:
            return
        seen.add(node)
        if mirror and node not in self.public:
            self.mirror.add(node)
        elif not mirror:
            self.public.add(node)
        if node.kind != "message":
            return
        for field in node.fields:
            if field.target is None:
                continue
            if not mirror and self.mode(field.target) == "adapter":
                continue
            self.walk(field.target, mirror, seen)

    def mode(self, m):
        if m.kind == "enum":
            return "declared-enum" if "declared" in m.ann else "enum"
        if "declared" in m.ann:
            return "declared"
        if "adapter" in m.ann:
            return "adapter"
        if "inline" in m.ann:
            return "inline"
        if "unwrap" in m.ann:
            return "unwrap"
        if "split" in m.ann:
            return "split"
        plain = [f for f in m.fields if f.oneof is None]
        if len(m.oneofs) == 1 and not plain:
            return "choice"
        return "struct"

    def is_mirror(self, node):
        n = node
        while n is not None:
            if n in self.mirror or (n.kind == "message" and self.mode(n) == "adapter"):
                return True
            n = n.parent
        return False

    def swift_name(self, node):
        """The Swift type of a message or enum (a mirror of an adapted message for adapters)."""
        declared = node.ann.get("declared")
        if isinstance(declared, str):
            return declared
        if "declared" in node.ann:
            return node.name
        if "name" in node.ann:
            return node.ann["name"]
        if node.parent is not None and self.mode(node.parent) not in ("inline",):
            return self.swift_name(node.parent) + "." + node.name
        base = node.name
        return ("Wire" + base) if self.is_mirror(node) else base

    def enum_cases(self, e):
        prefix = snake(e.name).upper() + "_"
        cases = []
        for name, number, ann, doc in e.values:
            if number == 0 and name.endswith("_UNSPECIFIED"):
                continue
            if not name.startswith(prefix):
                raise ProtoError(f"enum {e.name}: value {name} lacks the prefix {prefix}")
            cases.append((ann.get("name") or camel(name[len(prefix):]), number, name, doc))
        return cases

    def has_zero_case(self, e):
        return any(number == 0 and not name.endswith("_UNSPECIFIED") for name, number, _, _ in e.values)

    def field_type(self, f, in_oneof=False):
        """The Swift type of a field (or of a oneof member's single value)."""
        t = f.target
        required = "required" in f.ann
        if t is None:
            base = f.ann.get("type") if f.type == "string" and "type" in f.ann else SCALARS[f.type]
            return f"[{base}]" if f.repeated else base
        if t.kind == "enum":
            base = self.swift_name(t)
            optional = "optional" in f.ann and not f.repeated
            return f"[{base}]" if f.repeated else base + ("?" if optional else "")
        mode = self.mode(t)
        if mode == "unwrap":
            inner = next(x for x in t.fields if x.name == t.ann["unwrap"])
            return self.field_type(inner) + ("" if in_oneof else "?")
        if "adapter" in f.ann:
            base = f.ann["type"]
        elif mode == "adapter":
            base = t.ann["type"]
        else:
            base = self.swift_name(t)
        if f.repeated:
            return f"[{base}]"
        if in_oneof or required or base.endswith("?"):
            return base
        return base + "?"

    def default(self, f):
        if "default" in f.ann:
            return f.ann["default"]
        if "required" in f.ann:
            return None
        t = f.target
        if f.repeated:
            return "[]"
        if t is None:
            return {"String": '""', "[UInt8]": "[]", "Bool": "false"}.get(SCALARS[f.type], "0") \
                if "type" not in f.ann else None
        if t.kind == "enum":
            if "optional" in f.ann:
                return "nil"
            return None
        return "nil"

    def plain_fields(self, m):
        return [f for f in m.fields if f.oneof is None]

    def members(self, m):
        """A message's Swift members in field order: ('field', f) or ('oneof', o)."""
        out, seen = [], set()
        for f in m.fields:
            if f.oneof is None:
                out.append(("field", f))
            elif f.oneof.name not in seen:
                seen.add(f.oneof.name)
                out.append(("oneof", f.oneof))
        return out

    def oneof_type(self, o):
        declared = o.ann.get("declared")
        if isinstance(declared, str):
            return declared
        if self.mode(o.message) in ("choice", "split"):
            return self.swift_name(o.message)
        name = o.ann.get("name") or (o.name[0].upper() + camel(o.name)[1:])
        if "name" in o.ann:
            return name
        return self.swift_name(o.message) + "." + name

    def case_name(self, f):
        return escape(f.ann.get("name") or camel(f.name))

    # ---- Service calls: one Swift type each -------------------------------------------------
    # A member of `ServiceRequest.call` is the struct `Service.<Call>` (services.py writes it),
    # and its `ServiceRequest` case carries that struct: a call has one Swift type.

    def is_call_oneof(self, o):
        return o.message.name == "ServiceRequest" and o is o.message.oneofs[0]

    def call_type(self, f):
        name = self.case_name(f).strip("`")
        return "Service." + name[0].upper() + name[1:]

    def call_params(self, f):
        """The property (and init label) names of `Service.<Call>`, one per value of the
        member's inline form: the proto's own field names (an unlabeled value is named too)."""
        t = f.target
        if t is not None and self.mode(t) == "inline":
            names = [g.ann.get("name") or camel(g.name) for g in t.fields]
        else:
            names = [camel(f.name)] * len(self.case_values(f))
        params = []
        for i, (label, _, _) in enumerate(self.case_values(f)):
            params.append((label or "").strip("`") or names[i] if i < len(names) else f"value{i}")
        return params

    def case_values(self, f):
        """[(label or None, swift type, default or None)] of a oneof member."""
        t = f.target
        unlabeled = "unlabeled" in f.ann
        label = f.ann.get("label")
        if t is None:
            return [(label, self.field_type(f, in_oneof=True), None)]
        mode = self.mode(t)
        if mode == "split":
            return [(None, self.swift_name(t), None), (None, t.ann["split"], f.ann.get("default"))]
        if not t.fields:
            return []
        if mode == "inline":
            return [(None if (unlabeled or "unlabeled" in g.ann) else camel_label(g), self.field_type(g), None)
                    for g in t.fields]
        if mode == "adapter":
            return [(label, f.ann.get("type") or t.ann["type"], None)]
        return [(None if unlabeled else label, self.field_type(f, in_oneof=True), f.ann.get("default"))]


def camel_label(f):
    """An argument label: any keyword but these may be one unescaped."""
    name = f.ann.get("name") or camel(f.name)
    return f"`{name}`" if name in ("inout", "var", "let") else name


def prop(f):
    return escape(f.ann.get("name") or camel(f.name))


# ---- Writing Swift -------------------------------------------------------------------------

class Writer:
    def __init__(self, model):
        self.model = model
        self.out = []

    def emit(self, line=""):
        self.out.append(line)

    def text(self):
        return "\n".join(self.out) + "\n"
