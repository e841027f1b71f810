"""The mamsim client runtime for Python: speaks proto/mamsim/v2 on fd 3 and hands each
delivered item to a behaviour function.

The wire: every message is one `mamsim.v2.Frame`, sent as a 4-byte big-endian length and the
serialized frame. The child says Hello and the host answers Welcome (the identity it
assigned); then the host sends Deliver frames, each answered with DeliverAck(item_id,
accepted) whose reply_to is the Deliver's seq. The host sends Bye when the extension is idle:
the program exits then, or when the host closes the channel. Sequence numbers of our frames
start at 1 and grow; a frame out of order, oversized or unreadable makes the host cut us off.

Use: `mamsim_client.main("behaviour.py")`, where behaviour.py defines `on_item(item)` and
returns True to accept the item (see `Item` for what it carries), or
`mamsim_client.run(on_item, name)` with the function itself. An `on_item(item, ext)` of two
parameters also gets the `Extension`, to ask the host's services while it decides: read and
write files in its container, read its policy's feature switches, know its identities.
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import struct
import sys
import traceback
import dataclasses
from dataclasses import dataclass

# The code protoc generated from proto/mamsim/v2 (scripts/generate-python-proto) sits in _pb/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_pb"))
try:
    from mamsim.v2 import mamsim_pb2 as pb
except ImportError as error:  # protobuf missing or of a version the generated code cannot use
    sys.stderr.write(f"mamsim_client: cannot load the protobuf runtime ({error}); "
                     "install it with: python3 -m pip install 'protobuf>=3.20,<5' (or apt-get install python3-protobuf)\n")
    sys.exit(2)

PROTOCOL_VERSION = 2
INTUNE_PREFIX = "com.microsoft.intune.mam."
FD = 3


@dataclass(frozen=True)
class Item:
    """One delivered item, as the behaviour sees it."""
    id: str
    types: list[str]                 # registered type identifiers, most specific first
    data: bytes | None               # inline payload; None when the host sent a file path
    file_path: str = ""              # a path inside a container the host controls
    file_name: str = ""
    owner: str = ""                  # UPN the host stamped; "" = personal/unmanaged data
    managed: bool = False            # the owner is a policy-managed account
    sender: str = ""                 # bundle id of the app that shared it
    received_as: str = ""            # the receiving account, if any

    @property
    def type(self) -> str:
        return self.types[0] if self.types else ""

    @property
    def base_types(self) -> list[str]:
        """The types without the com.microsoft.intune.mam. prefix of managed data."""
        return [t[len(INTUNE_PREFIX):] if t.lower().startswith(INTUNE_PREFIX) else t for t in self.types]

    @property
    def base_type(self) -> str:
        return self.base_types[0] if self.types else ""

    @property
    def content(self) -> bytes:
        """The payload, read from the file when the host sent a path."""
        if self.data is not None:
            return self.data
        with open(self.file_path, "rb") as f:
            return f.read()

    @property
    def size(self) -> int:
        return len(self.data) if self.data is not None else os.path.getsize(self.file_path)

    @property
    def text(self) -> str | None:
        try:
            return self.content.decode("utf-8")
        except (UnicodeDecodeError, OSError):
            return None


@dataclass(frozen=True)
class Verdict:
    """The host's answer to a service call: allowed, or blocked by a rule, or failed."""
    status: str                      # "allowed", "blocked" or "failed"
    reason: str = ""                 # RULES.md §11 code, e.g. "feature-restricted"; "" when allowed
    explanation: str = ""

    @property
    def allowed(self) -> bool:
        return self.status == "allowed"


def reason_code(n: int) -> str:
    """A Reason as RULES.md §11 spells it: REASON_FEATURE_RESTRICTED is feature-restricted."""
    return pb.Reason.Name(n)[len("REASON_"):].lower().replace("_", "-")


def verdict(v) -> Verdict:
    status = {pb.Verdict.STATUS_ALLOWED: "allowed", pb.Verdict.STATUS_BLOCKED: "blocked"}.get(v.status, "failed")
    return Verdict(status, "" if status == "allowed" else reason_code(v.reason), v.explanation)


class Extension:
    """What an extension may ask of the host while it handles an item: each call is a
    ServiceRequest, answered before the call returns (frames that arrive meanwhile wait)."""

    def __init__(self, channel: "Channel", backlog: list):
        self._channel = channel
        self._backlog = backlog
        #: The extension's data container (its `Documents/`, `Inbox/`…), where it may write.
        self.container = os.environ.get("MAMSIM_CONTAINER", "")

    def _ask(self, frame, *answers: str):
        """Sends `frame` and returns the host's frame answering it (a body among `answers`,
        or an error); frames that arrive meanwhile wait in the backlog."""
        seq = self._channel.send(frame)
        while True:
            reply = self._channel.receive()
            if reply is None:
                raise ConnectionError("the host closed the channel")
            if reply.reply_to == seq and reply.WhichOneof("body") in answers + ("error",):
                return reply
            self._backlog.append(reply)

    def _call(self, **call):
        frame = self._ask(pb.Frame(service_request=pb.ServiceRequest(**call)), "service_result")
        if frame.WhichOneof("body") == "error":
            return Verdict("failed", reason_code(frame.error.code), frame.error.message), None
        return verdict(frame.service_result.verdict), frame.service_result

    def read_file(self, path: str) -> bytes | None:
        """A file of the container (`Documents/x`, `Inbox/…`, `group:<id>/x`), decrypted for
        us; None when the host refuses (another account's data, a group we lack)."""
        v, result = self._call(read_file=pb.ReadFile(path=path))
        return bytes(result.data) if v.allowed and result is not None and result.WhichOneof("value") == "data" else None

    def write_file(self, path: str, data: bytes, owner: str | None = None) -> Verdict:
        """Writes a file of the container, owned by `owner` (None: our effective identity;
        "": personal); the host encrypts it when the owner is managed."""
        request = pb.WriteFile(path=path, data=data)
        if owner is not None:
            request.owner.account = owner
        return self._call(write_file=request)[0]

    def policy_query(self, setting: str, account: str | None = None) -> Verdict:
        """One of IntuneMAMPolicy's feature switches (contact_sync, widgets, spotlight,
        siri_intents, app_intents, app_sharing, document_picker, third_party_keyboards, backup,
        file_encryption, file_provider_encryption) for `account`'s policy (None: our identity):
        allowed, or blocked with feature-restricted."""
        request = pb.PolicyQuery(setting=pb.PolicySetting.Value("POLICY_SETTING_" + setting.upper()))
        if account is not None:
            setattr(getattr(request, "as"), "account", account)
        return self._call(policy_query=request)[0]

    def identities(self) -> dict:
        """The process and UI identities the host holds for us, and the accounts signed in."""
        frame = self._ask(pb.Frame(get_identity=pb.GetIdentity()), "identity_info")
        i = frame.identity_info
        return {"process": i.process_identity, "ui": i.ui_identity, "signed_in": list(i.signed_in)}


def printable(text: str) -> str:
    """`text` with every control character but a newline or a tab written as an escape
    (`\\x1b`): what the host or an item says is data, never a terminal's instruction."""
    return "".join(c if c in "\n\t" or (c.isprintable() and not 0x80 <= ord(c) < 0xa0) else repr(c)[1:-1] for c in text)


def log(name: str, line: str) -> None:
    sys.stderr.write(f"{printable(name)}: {printable(line)}\n")
    sys.stderr.flush()


class Channel:
    """fd 3: framing, sequence numbers, and the handshake."""

    def __init__(self, fd: int = FD):
        self.fd = fd
        self.seq = 0
        self.buffer = b""
        self.max_frame = 16 << 20     # until the Welcome says otherwise
        os.set_blocking(fd, True)

    def send(self, frame: pb.Frame, reply_to: int = 0) -> int:
        self.seq += 1
        frame.seq = self.seq
        frame.reply_to = reply_to
        payload = frame.SerializeToString()
        data = struct.pack(">I", len(payload)) + payload
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]
        return self.seq

    def receive(self) -> pb.Frame | None:
        """The next frame, or None when the host closed the channel."""
        while True:
            if len(self.buffer) >= 4:
                (length,) = struct.unpack(">I", self.buffer[:4])
                if length > self.max_frame:
                    raise ValueError(f"the host sent a {length}-byte frame (limit {self.max_frame})")
                if len(self.buffer) >= 4 + length:
                    payload, self.buffer = self.buffer[4:4 + length], self.buffer[4 + length:]
                    frame = pb.Frame()
                    frame.ParseFromString(payload)
                    return frame
            try:
                chunk = os.read(self.fd, 1 << 16)
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            self.buffer += chunk


def load_behaviour(path: str):
    spec = importlib.util.spec_from_file_location("behaviour", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, "on_item", None)):
        raise SystemExit(f"{path} must define on_item(item) -> bool")
    return module.on_item


def to_item(deliver: pb.Deliver) -> Item:
    it = deliver.item
    inline = it.WhichOneof("payload") != "file_path"
    return Item(
        id=it.id, types=list(it.type_identifiers), data=bytes(it.inline_data) if inline else None,
        file_path="" if inline else it.file_path, file_name=it.file_name,
        owner=it.ownership.upn, managed=it.ownership.managed, sender=deliver.sender_bundle_id,
        received_as=deliver.received_as)


def describe(item: Item) -> str:
    try:
        size = f"{item.size} bytes"
    except OSError:
        size = "unreadable file"
    return (f"item {item.id} ({','.join(item.types)}, {size}, owner {item.owner or 'unmanaged'}) "
            f"from {item.sender}")


def serve(on_item, name: str, runtime: str, fd: int = FD) -> int:
    """Runs the conversation until Bye or end of channel; returns the exit status."""
    try:
        channel = Channel(fd)
    except OSError as error:
        log(name, f"cannot use fd {fd} ({error}); the mamsim host starts this program with its channel there")
        return 2
    try:
        return converse(channel, on_item, name, runtime)
    except (BrokenPipeError, ConnectionResetError):
        return 0                                  # the host is gone: nothing left to answer


def takes_extension(on_item) -> bool:
    """Whether on_item takes (item, ext) rather than (item)."""
    try:
        return len(inspect.signature(on_item).parameters) >= 2
    except (TypeError, ValueError):
        return False


def converse(channel: Channel, on_item, name: str, runtime: str) -> int:
    channel.send(pb.Frame(hello=pb.Hello(protocol_version=PROTOCOL_VERSION, pid=os.getpid(), runtime=runtime)))
    accepted_ids: set[str] = set()
    backlog: list = []
    ext = Extension(channel, backlog)
    with_ext = takes_extension(on_item)
    while True:
        try:
            frame = backlog.pop(0) if backlog else channel.receive()
        except Exception as error:  # unreadable bytes: give up on the channel
            log(name, f"unreadable frame from the host: {error}")
            return 1
        if frame is None:
            return 0
        body = frame.WhichOneof("body")
        if body == "welcome":
            w = frame.welcome
            if w.max_frame_size:
                channel.max_frame = w.max_frame_size
        elif body == "deliver":
            item = to_item(frame.deliver)
            unreadable = False
            if item.data is None and item.file_path:
                # A file item arrives as a path in our Inbox: the host gives its bytes (and
                # decrypts what it protects).
                try:
                    data = ext.read_file(item.file_path)
                except ConnectionError:
                    return 0
                unreadable = data is None
                if unreadable:
                    log(name, f"cannot read {item.file_path}; declining item {item.id}")
                else:
                    item = dataclasses.replace(item, data=data)
            if item.id in accepted_ids:          # a re-sent delivery: acknowledged, not shown twice
                accepted = True
            elif unreadable:
                accepted = False
            else:
                try:
                    accepted = bool(on_item(item, ext) if with_ext else on_item(item))
                except Exception:
                    log(name, f"on_item raised for item {item.id}; declining it\n{traceback.format_exc().rstrip()}")
                    accepted = False
                log(name, f"{'accepted' if accepted else 'declined'} {describe(item)}")
                if accepted:
                    accepted_ids.add(item.id)
            channel.send(pb.Frame(deliver_ack=pb.DeliverAck(item_id=item.id, accepted=accepted)), reply_to=frame.seq)
        elif body == "ping":
            channel.send(pb.Frame(ping=pb.Ping(payload=frame.ping.payload)), reply_to=frame.seq)
        elif body == "command":
            channel.send(pb.Frame(command_result=pb.CommandResult(error=pb.Error(
                code=pb.REASON_BAD_REQUEST, message=f"{name} takes no commands"))), reply_to=frame.seq)
        elif body == "error":
            log(name, f"the host reported {pb.Reason.Name(frame.error.code)}: {frame.error.message}")
        elif body == "bye":
            return 0
        elif body == "share_result":
            pass                                  # we never share; nothing waits for it
        else:
            channel.send(pb.Frame(error=pb.Error(
                code=pb.REASON_BAD_REQUEST, message=f"a plugin does not accept {body} frames")), reply_to=frame.seq)


def exit_now(status: int) -> None:
    """Ends the process at once, without the interpreter's teardown: the host starts a new
    instance for the next share, and a prompt exit keeps two from overlapping."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def run(on_item, name: str, runtime: str | None = None) -> None:
    exit_now(serve(on_item, name, runtime or f"{name}/python"))


def main(behaviour_path: str, name: str | None = None, runtime: str | None = None) -> None:
    name = name or os.path.basename(os.path.dirname(os.path.abspath(behaviour_path)))
    run(load_behaviour(behaviour_path), name, runtime)
