"""mamsim_client: write a mamsim app or extension in Python.

A program the mamsim host starts talks to it on fd 3 (proto/mamsim/v2). This package speaks
that protocol: `run(on_item, name)` (or `main("behaviour.py")`) says hello, hands each item
shared to the extension to `on_item(item)` or `on_item(item, ext)`, acknowledges it with the
answer, and exits on Bye. `ext` (an `Extension`) asks the host's services meanwhile:
`read_file`, `write_file`, `policy_query`, `identities`, and `ext.container` is the
extension's own folder.
"""
from .runtime import (  # noqa: F401
    PROTOCOL_VERSION, Channel, Extension, Item, Verdict, main, pb, run, serve,
)

__all__ = ["PROTOCOL_VERSION", "Channel", "Extension", "Item", "Verdict", "main", "pb", "run", "serve"]
