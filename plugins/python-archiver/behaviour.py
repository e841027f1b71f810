# What the Python archiver does with each item shared to it. Edit freely: the runtime
# (mamsim_plugin.py) calls on_item(item) once per item; return True to accept it, False to
# decline it (the sender is then told failed(bad-request)).
#
# item.type, item.types, item.base_type (without "com.microsoft.intune.mam."), item.data,
# item.text, item.size, item.file_name, item.owner ("" = personal), item.managed, item.sender
MOVIES = {"public.movie", "public.video", "public.mpeg-4", "com.apple.quicktime-movie", "public.avi"}
LIMIT = 1024 * 1024  # bytes


def on_item(item):
    return item.base_type not in MOVIES and 0 < item.size <= LIMIT
