"""The .proto read: its messages, enums, oneofs, fields and `@swift` annotations, and the names
derived from them.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO = os.path.join(ROOT, "proto/mamsim/v2/mamsim.proto")
OUT = os.path.join(ROOT, "Sources/MAMWire/Generated/Wire.swift")
DISPATCH = os.path.join(ROOT, "Sources/MAMDevice/Services/ServiceDispatch.generated.swift")

SCALARS = {"string": "String", "bytes": "[UInt8]", "bool": "Bool", "uint32": "UInt32",
           "uint64": "UInt64", "int32": "Int32", "int64": "Int64"}
C_KEYWORDS = {"protected", "private", "public", "class", "delete", "new", "default", "template"}
SWIFT_KEYWORDS = {"as", "in", "is", "default", "case", "switch", "protocol", "extension", "internal",
                  "func", "var", "let", "import", "return", "where", "repeat", "self", "Type"}


class ProtoError(Exception):
    pass


# ---- Reading the .proto -------------------------------------------------------------------

class Node:
    def __init__(self, kind, name, parent, ann, doc, line):
        self.kind, self.name, self.parent, self.ann, self.doc, self.line = kind, name, parent, ann, doc, line
        self.children = []   # messages and enums, in order
        self.fields = []     # message: every field, oneof members included, in order
        self.oneofs = []
        self.values = []     # enum: (name, number, ann, doc)

    @property
    def path(self):
        return (self.parent.path if self.parent else []) + [self.name]


class Field:
    def __init__(self, type_, name, number, repeated, oneof, ann, doc, line):
        self.type, self.name, self.number, self.repeated = type_, name, number, repeated
        self.oneof, self.ann, self.doc, self.line = oneof, ann, doc, line
        self.target = None   # the Node of a message or enum type


class Oneof:
    def __init__(self, name, message, ann, doc):
        self.name, self.message, self.ann, self.doc = name, message, ann, doc
        self.fields = []


def parse_annotations(text, line):
    ann = {}
    for token in text.split():
        key, _, value = token.partition("=")
        if not key:
            raise ProtoError(f"line {line}: empty @swift key in {text!r}")
        ann[key] = value if "=" in token else True
    return ann


def split_comment(comment, line):
    """`@swift k=v … — doc` → (annotations, doc)."""
    comment = comment.strip()
    if not comment.startswith("@swift"):
        return {}, comment
    body = comment[len("@swift"):]
    body, _, doc = body.partition(" — ")
    return parse_annotations(body, line), doc.strip()


def read_proto(path):
    top = Node("file", "", None, {}, [], 0)
    stack = [top]
    pending_doc, pending_ann = [], {}
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        code, _, comment = raw.partition("//")
        code = code.strip()
        if not code:
            if comment:
                ann, doc = split_comment(comment, number)
                pending_ann.update(ann)
                if doc or not ann:
                    pending_doc.append(doc)
            else:
                pending_doc, pending_ann = [], {}
            continue
        ann, trailing = split_comment(comment, number) if comment else ({}, "")
        ann = {**pending_ann, **ann}
        doc = pending_doc + ([trailing] if trailing else [])
        pending_doc, pending_ann = [], {}
        scope = stack[-1]
        if m := re.fullmatch(r"(message|enum)\s+(\w+)\s*\{", code):
            node = Node(m[1], m[2], scope if scope.kind != "file" else None, ann, doc, number)
            (scope.message if isinstance(scope, Oneof) else scope).children.append(node)
            stack.append(node)
        elif m := re.fullmatch(r"oneof\s+(\w+)\s*\{", code):
            oneof = Oneof(m[1], scope, ann, doc)
            scope.oneofs.append(oneof)
            stack.append(oneof)
        elif code == "}":
            stack.pop()
        elif m := re.fullmatch(r"(\w+)\s*=\s*(-?\d+)\s*;", code):
            scope.values.append((m[1], int(m[2]), ann, doc))
        elif m := re.fullmatch(r"(repeated\s+)?([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;", code):
            oneof = scope if isinstance(scope, Oneof) else None
            message = scope.message if oneof else scope
            field = Field(m[2], m[3], int(m[4]), bool(m[1]), oneof, ann, doc, number)
            message.fields.append(field)
            if oneof:
                oneof.fields.append(field)
        elif re.match(r"(syntax|package|option|import)\b", code):
            continue
        else:
            raise ProtoError(f"{path}:{number}: not understood: {code}")
    return top


def all_nodes(node):
    for child in node.children:
        yield child
        yield from all_nodes(child)


def resolve(top):
    nodes = list(all_nodes(top))
    for message in (n for n in nodes if n.kind == "message"):
        for field in message.fields:
            if field.type in SCALARS:
                continue
            scope = message
            while True:
                found = next((c for c in (scope.children if scope else top.children) if c.name == field.type), None)
                if found or scope is None:
                    break
                scope = scope.parent
            if not found:
                raise ProtoError(f"line {field.line}: unknown type {field.type}")
            field.target = found
    return nodes


# ---- Names ----------------------------------------------------------------------------------

def snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def camel(name):
    parts = name.lower().split("_")
    out = parts[0]
    for p in parts[1:]:
        out += "ID" if p == "id" else p.capitalize()
    return out


def escape(name):
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def c_type(node):
    return "Mamsim__V2__" + "__".join(node.path)


def c_lower(node):
    return "mamsim__v2__" + "__".join(snake(n) for n in node.path)


def c_upper(node):
    return "MAMSIM__V2__" + "__".join(snake(n).upper() for n in node.path)


def c_field(name):
    return escape(name + "_" if name in C_KEYWORDS else name)


def key(node):
    return "".join(node.path)


def doc_lines(doc, indent):
    lines = [d for d in doc if d is not None]
    while lines and not lines[-1]:
        lines.pop()
    return [f"{indent}/// {d}".rstrip() for d in lines]
