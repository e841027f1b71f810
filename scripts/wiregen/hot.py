"""The one-pass codec of a share stream's frames (HotCodec.swift): what it covers, and the
helpers its readers and writers share.
"""
import os

from .proto import *
from .model import *
from .codec import local, local_oneof


# ---- The hot codec ---------------------------------------------------------------------------
# The frames of a stream of shares (the Frame body members marked `hot`), read and written in
# one pass each straight from and to their bytes, beside protobuf-c: Sources/MAMWire/Generated/
# HotCodec.swift. Reading takes only protobuf-c's canonical shape and answers nil otherwise
# (protobuf-c then decides); writing gives protobuf-c's bytes. What the connection keeps
# between frames (strings, the last owner, arrays) is the hand-written arena (HotFrames.swift,
# StringPool.swift), reached by the `hot=` keys of the .proto.

HOT_OUT = os.path.join(ROOT, "Sources/MAMWire/Generated/HotCodec.swift")

UNSIGNED = {"uint64": "UInt64", "uint32": "UInt32"}

def hot_fail(node, why):
    raise ProtoError(f"line {node.line}: {why}")

def key_size(number):
    v = number << 3
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n

class Hot:
    """What the hot codec covers: the bodies marked `hot` and every message they hold."""

    def __init__(self, model):
        self.m = model
        self.bodies = [f for f in model.frame.oneofs[0].fields if "hot" in f.ann]
        self.messages = []
        for f in self.bodies:
            if f.target is None or f.target.kind != "message":
                hot_fail(f, f"{f.name}: a hot body is a message")
            self.collect(f.target)
        recent = [n for n in self.messages if n.ann.get("hot") == "recent"]
        if len(recent) > 1:
            hot_fail(recent[1], "the arena keeps one recent message: two are marked hot=recent")
        self.recent_message = recent[0] if recent else None
        for kind, wanted in (("string", False), ("list", True)):
            marked = [f for n in self.messages for f in n.fields
                      if f.ann.get("hot") == "recent" and f.repeated == wanted and f.target is None]
            if len(marked) > 1:
                hot_fail(marked[1], f"the arena keeps one recent {kind}: two fields are marked hot=recent")

    def collect(self, node):
        if node in self.messages:
            return
        mode = self.m.mode(node)
        if mode not in ("struct", "declared", "adapter", "inline"):
            hot_fail(node, f"{node.name}: a hot message is a struct, a declared type, an adapter or an inline body, not {mode}")
        self.messages.append(node)
        for f in node.fields:
            if f.target is not None and f.target.kind == "message":
                self.collect(f.target)

    def swift(self, node):
        """The Swift value a reader of `node` makes (an adapter's mirror)."""
        return self.m.swift_name(node)

    def nested(self, node):
        """Does measuring `node` keep sizes of messages inside it (then its sizes are a struct)?"""
        return any(f.target is not None and f.target.kind == "message" and not f.repeated
                   for f in node.fields)

    def sizes_type(self, node):
        return f"HotFrames.Sizes{key(node)}" if self.nested(node) else "Int"

    def measures_with_state(self, node, seen=None):
        seen = seen or set()
        for f in node.fields:
            t = f.target
            if t is None or t.kind != "message" or t in seen:
                continue
            if t.ann.get("hot") == "recent":
                return True
            seen.add(t)
            if self.measures_with_state(t, seen):
                return True
        return False

def swift_value_type(hot, f):
    """The Swift type of field `f`'s value as its message's Swift type holds it."""
    return hot.m.field_type(f)

def inline_single(hot, node):
    if len(node.fields) != 1:
        hot_fail(node, f"{node.name}: a hot inline body has one field")
    return node.fields[0]

def is_kept(f):
    return f.ann.get("hot") == "kept"

def deferred(f):
    """A required message field: its bytes are kept as the message is read, and it is read once
    the message's other fields are, straight into the value made (an optional local of it was
    a copy and two destroys of the whole value per item)."""
    return (not f.repeated and f.target is not None and f.target.kind == "message"
            and "required" in f.ann and f.oneof is None)

def unwrapped(f):
    """Is field `f` read into an optional local for a value that is not optional?"""
    t = f.target
    if f.repeated or t is None:
        return False
    if t.kind == "enum":
        return "optional" not in f.ann
    return "required" in f.ann

def is_batch(hot, node):
    """An inline body of one repeated message field: written by `encode<Body>` element by element."""
    if hot.m.mode(node) != "inline":
        return False
    g = inline_single(hot, node)
    return g.repeated and g.target is not None

def value_type(hot, node):
    """The Swift value measured and written for `node` (an inline body's one value)."""
    if hot.m.mode(node) == "inline":
        return hot.m.field_type(inline_single(hot, node))
    return hot.swift(node)

def value_expr(hot, node, f):
    return "v" if hot.m.mode(node) == "inline" else f"v.{prop(f)}"

def size_of(hot, node, s):
    return f"{s}.size" if hot.nested(node) else s

def sizes_type_of_field(hot, f):
    t = f.target
    if t.ann.get("hot") == "recent":
        return "Int"
    return hot.sizes_type(t)

def adapter_of(hot, f):
    t = f.target
    return f.ann.get("adapter") or (t.ann.get("adapter") if hot.m.mode(t) == "adapter" else None)

def measure_call(hot, t, value):
    state = ", &m" if hot.measures_with_state(t) else ""
    return f"HotFrames.measure{key(t)}({value}{state})"
