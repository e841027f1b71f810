"""`Service.<Call>` for every service call, and the host's generated dispatch of each to its
handler.
"""

from .proto import *
from .model import *


# ---- Typed service calls ---------------------------------------------------------------------

def write_service_calls(w):
    """`Service.X` for every member of `ServiceRequest.call`: a `ServiceCall` whose `Answer` is
    the Swift type of the `ServiceResult` value its `answers=` names (`Void` for none), with the
    one match on the answer union that code outside this file never writes by hand."""
    m, e = w.model, w.emit
    request = next(n for n in m.messages if n.name == "ServiceRequest")
    result = next(n for n in m.messages if n.name == "ServiceResult")
    values = {f.name: f for f in result.oneofs[0].fields}
    value_type = m.oneof_type(result.oneofs[0])
    request_type = m.swift_name(request)
    e("/// Every service call as a type of its own: its arguments, the request it is on the wire")
    e("/// and the Swift type of its answer (`ServiceCall`). Used through `Reply`, e.g.")
    e("/// `app.call(Service.ReadFile(path: \"Documents/a.txt\"))`.")
    e("public enum Service {")
    for f in request.oneofs[0].fields:
        answers = [a for a in f.ann.get("answers", "").split(",") if a]
        if len(answers) > 1:
            raise ProtoError(f"line {f.line}: answers={','.join(answers)}: a typed call has one answer")
        name = m.call_type(f).removeprefix("Service.")
        params = [(plain, label, swift_type, default) for plain, (label, swift_type, default) in zip(m.call_params(f), m.case_values(f))]
        if answers:
            if answers[0] not in values:
                raise ProtoError(f"line {f.line}: answers={answers[0]}: ServiceResult has no value {answers[0]}")
            vf = values[answers[0]]
            vvalues = m.case_values(vf)
            if len(vvalues) == 1:
                answer = vvalues[0][1]
            else:
                answer = "(" + ", ".join(f"{(l or f'v{i}').strip('`')}: {t}" for i, (l, t, _) in enumerate(vvalues)) + ")"
            names = [f"v{i}" for i in range(len(vvalues))]
            pattern = f".{m.case_name(vf)}(" + ", ".join(f"let {n}" for n in names) + ")"
            built = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
        else:
            answer, pattern, built = "Void", None, None
        for line in doc_lines(f.doc, "    "):
            e(line)
        e(f"    public struct {name}: ServiceCall, Hashable {{")
        e(f"        public typealias Answer = {answer}")
        for prop_name, _, swift_type, _ in params:
            e(f"        public var {escape(prop_name)}: {swift_type}")
        if params:
            args = ", ".join(f"{escape(p) if p in SWIFT_KEYWORDS else p}: {t}" + (f" = {d}" if d else "") for p, _, t, d in params)
            e(f"        public init({args}) {{")
            for prop_name, _, _, _ in params:
                e(f"            self.{escape(prop_name)} = {escape(prop_name) if prop_name in SWIFT_KEYWORDS else prop_name}")
            e("        }")
        else:
            e("        public init() {}")
        case = m.case_name(f)
        e(f"        public var request: {request_type} {{ .{case}(self) }}")
        if pattern:
            e(f"        public static func answer(from value: {value_type}) -> {answer}? {{")
            e(f"            if case {pattern} = value {{ return {built} }}")
            e("            return nil")
            e("        }")
        else:
            e(f"        public static func answer(from value: {value_type}) -> Void? {{ () }}")
        if pattern:
            if len(vvalues) == 1:
                label = vvalues[0][0]
                made = f".{m.case_name(vf)}(" + (f"{label.strip('`')}: " if label else "") + "answer)"
            else:
                parts = []
                for i, (l, _, _) in enumerate(vvalues):
                    element = (l or f"v{i}").strip("`")
                    parts.append((f"{l.strip('`')}: " if l else "") + f"answer.{element}")
                made = f".{m.case_name(vf)}(" + ", ".join(parts) + ")"
            e(f"        public static func value(of answer: {answer}) -> {value_type} {{ {made} }}")
        else:
            e(f"        public static func value(of answer: Void) -> {value_type} {{ .none }}")
        e("    }")
        e("")
    e("}")
    e("")
    # The calls as the app writes them, `.readFile(path:)`: each builds the call's one type.
    e(f"extension {request_type} {{")
    for f in request.oneofs[0].fields:
        values = m.case_values(f)
        params = m.call_params(f)
        case = m.case_name(f)
        call = m.call_type(f)
        if not values:
            e(f"    public static var {case}: {request_type} {{ .{case}({call}()) }}")
            continue
        decl = ", ".join(f"{label or '_'} v{i}: {t}" + (f" = {d}" if d else "") for i, (label, t, d) in enumerate(values))
        args = ", ".join(f"{p}: v{i}" for i, p in enumerate(params))
        e(f"    public static func {case}({decl}) -> {request_type} {{ .{case}({call}({args})) }}")
    e("}")


def service_calls(m):
    """(Swift name, case name, [init label], member) of every member of `ServiceRequest.call`."""
    request = next(n for n in m.messages if n.name == "ServiceRequest")
    return [(m.call_type(f).removeprefix("Service."), m.case_name(f), m.call_params(f), f) for f in request.oneofs[0].fields]


def generate_dispatch(model):
    """The host's dispatch of a service request to its handler (`Sources/MAMDevice/Services/`):
    one `<Call>Handler` per call, which the compiler demands, and the only match on
    `ServiceRequest` the host has."""
    w = Writer(model)
    e = w.emit
    e("// Generated by scripts/generate-wire-swift from proto/mamsim/v2/mamsim.proto. Do not edit:")
    e("// a new service call is its .proto line and a `<Call>Handler` in this folder.")
    e("// swiftlint:disable all")
    e("import MAMWire")
    e("")
    e("extension ServiceDesk {")
    e("    /// Every service call's handler, by the call's name on the wire.")
    e("    static let handlers: [(call: String, handler: String)] = [")
    for name, case, params, f in service_calls(model):
        e(f'        ("{f.name}", "{name}Handler"),')
    e("    ]")
    e("")
    e("    /// Hands `request` to its call's handler.")
    e("    func dispatch(_ request: ServiceRequest, _ c: CallContext) -> ServiceResult {")
    e("        switch request {")
    for name, case, params, f in service_calls(model):
        e(f"        case .{case}(let call):")
        e(f"            return handle({name}Handler.self, call, c)")
    e("        }")
    e("    }")
    e("}")
    return w.text()
