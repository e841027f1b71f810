"""The frames typed by direction: `ChildFrame` (what a child may send) and `HostFrame` (what
the host may send), each a `seq`, a `replyTo` and a message enum of the Frame body members
its side may send (`from=` in the .proto; unmarked members are in both), with the conversions
to and from the two-way `Frame.Body` the tests and tools use.
"""

from .proto import *
from .model import *


DIRECTIONS = [("child", "Child", "a child (an app or extension)"), ("host", "Host", "the host")]


def direction_members(m, side):
    """The Frame body members `side` may send."""
    return [f for f in m.frame.oneofs[0].fields if f.ann.get("from") in (None, side)]


def case_pattern(m, f, bind):
    """`.case(let v0, let v1)` (or `.case` without values), and the values' names."""
    values = m.case_values(f)
    names = [f"v{i}" for i in range(len(values))]
    if not values:
        return f".{m.case_name(f)}", names
    inner = ", ".join(f"let {n}" for n in names) if bind else ", ".join(names)
    return f".{m.case_name(f)}({inner})", names


def case_make(m, f, names):
    values = m.case_values(f)
    if not values:
        return f".{m.case_name(f)}"
    args = ", ".join((f"{l}: " if l else "") + n for (l, _, _), n in zip(values, names))
    return f".{m.case_name(f)}({args})"


def write_directions(w):
    m, e = w.model, w.emit
    for side, name, who in DIRECTIONS:
        members = direction_members(m, side)
        e(f"/// A frame {who} sends: its `seq`, the `replyTo` of an answer, and one of the messages its")
        e(f"/// side may send. The {'host decodes' if side == 'child' else 'children decode'} frames into it, and switch over")
        e(f"/// `{name}Message`, which has no case the other side alone sends.")
        e(f"public struct {name}Frame: Sendable, Hashable {{")
        e("    public var seq: UInt64")
        e("    /// 0 = not a reply")
        e("    public var replyTo: UInt64")
        e(f"    public var body: {name}Message")
        e("")
        e(f"    public init(seq: UInt64 = 0, replyTo: UInt64 = 0, body: {name}Message) {{")
        e("        self.seq = seq")
        e("        self.replyTo = replyTo")
        e("        self.body = body")
        e("    }")
        e("")
        e("    /// The same frame in the two-way type the wire's tests and tools use.")
        e("    public var frame: Frame { Frame(seq: seq, replyTo: replyTo, body: Frame.Body(body)) }")
        e("")
        e(f"    /// `frame` when {who} may send its body, else `nil`.")
        e("    public init?(_ frame: Frame) {")
        e(f"        guard let body = {name}Message(frame.body) else {{ return nil }}")
        e("        self.init(seq: frame.seq, replyTo: frame.replyTo, body: body)")
        e("    }")
        e("}")
        e("")
        e(f"/// What {who} may send (`from={side}` in the .proto, and the bodies either side sends).")
        e(f"public enum {name}Message: Sendable, Hashable {{")
        for f in members:
            for line in doc_lines(f.doc, "    "):
                e(line)
            values = m.case_values(f)
            if values:
                inner = ", ".join((f"{l}: " if l else "") + t + (f" = {d}" if d else "") for l, t, d in values)
                e(f"    case {m.case_name(f)}({inner})")
            else:
                e(f"    case {m.case_name(f)}")
        e("")
        e("    /// The wire name of the case, for logs and errors.")
        e("    public var name: String {")
        e("        switch self {")
        for f in members:
            e(f'        case .{m.case_name(f)}: "{f.name}"')
        e("        }")
        e("    }")
        e("")
        e(f"    /// `body` when {who} may send it, else `nil`.")
        e("    public init?(_ body: Frame.Body) {")
        e("        switch body {")
        for f in members:
            pattern, names = case_pattern(m, f, bind=True)
            e(f"        case {pattern}: self = {case_make(m, f, names)}")
        if len(members) < len(m.frame.oneofs[0].fields):
            e("        default: return nil")
        e("        }")
        e("    }")
        e("}")
        e("")
        e("extension Frame.Body {")
        e(f"    /// A message {who} sends, as the two-way body.")
        e(f"    public init(_ message: {name}Message) {{")
        e("        switch message {")
        for f in members:
            pattern, names = case_pattern(m, f, bind=True)
            e(f"        case {pattern}: self = {case_make(m, f, names)}")
        e("        }")
        e("    }")
        e("}")
        e("")
