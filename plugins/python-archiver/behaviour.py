# What the Python archiver does with each item shared to it. Edit freely: the runtime
# (mamsim_plugin.py) calls on_item(item, ext) once per item; return True to accept it, False to
# decline it (the sender is then told failed(bad-request)).
#
# item.type, item.types, item.base_type (without "com.microsoft.intune.mam."), item.data,
# item.text, item.size, item.file_name, item.owner ("" = personal), item.managed, item.sender
# ext: the host's services — ext.read_file(path), ext.write_file(path, data, owner),
# ext.policy_query(setting), ext.identities(), ext.container (this extension's folder).
import os

MOVIES = {"public.movie", "public.video", "public.mpeg-4", "com.apple.quicktime-movie", "public.avi"}
LIMIT = 1024 * 1024  # bytes


def on_item(item, ext):
    if item.base_type in MOVIES or not 0 < item.size <= LIMIT:
        return False
    # Keep a copy, numbered, owned as the item is: the host encrypts org data at rest.
    folder = os.path.join(ext.container, "Documents", "archive")
    n = len(os.listdir(folder)) + 1 if os.path.isdir(folder) else 1
    return ext.write_file(f"Documents/archive/{n:03d}", item.content, owner=item.owner).allowed
