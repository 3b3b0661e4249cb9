"""
The extension (extensions/file-manager) driven as Nautilus drives it (Nemo or Caja with HARNESS_FM), with their real
introspection data:
files handed to update_file_info until their emblems come, the right-click menu of one file, and its "Copy link"
activated. Prints one JSON object. Usage: harness.py FILE... -- MENU_FILE
"""
import json
import os
import sys
import time

# Read before GTK 3 is imported (with Nemo's or Caja's module): its initialisation takes options, and "--", from argv.
ARGS = sys.argv[1:]

import gi  # noqa: E402

# The file manager to be, as its Python binding does: its module imported before the extension is.
HOST, VERSION = {"Nautilus": ("Nautilus", "4.0"), "Nemo": ("Nemo", "3.0"), "Caja": ("Caja", "2.0")}[os.environ.get("HARNESS_FM", "Nautilus")]
gi.require_version(HOST, VERSION)
from gi.repository import Gio, GLib, GObject  # noqa: E402

FM = getattr(__import__("gi.repository", fromlist=[HOST]), HOST)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "extensions", "file-manager"))
import drivesync_file_manager as extension  # noqa: E402


class File(GObject.Object, FM.FileInfo):
    """What Nautilus hands an extension: a location, emblems added, extension info invalidated."""

    def __init__(self, path):
        super().__init__()
        self.path = path
        self.emblems = []
        self.invalidated = 0

    def do_get_location(self):
        return Gio.File.new_for_path(self.path)

    def do_get_uri(self):
        return self.get_location().get_uri()

    def do_is_directory(self):
        return os.path.isdir(self.path)

    def do_add_emblem(self, emblem):
        self.emblems.append(emblem)

    def do_invalidate_extension_info(self):
        self.invalidated += 1
        # Nautilus asks again at once.
        GLib.idle_add(lambda: provider.update_file_info(self) and False)


def spin(until, seconds):
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:
        context.iteration(False)
        time.sleep(0.005)
    return until()


args = ARGS
split = args.index("--")
paths, menu_path = args[:split], args[split + 1]
provider = extension.DrivesyncExtension()
files = [File(p) for p in paths]
started = time.monotonic()
for f in files:
    # Nautilus's own call returns before any answer is read: an emblem only ever comes later, from the main loop.
    provider.update_file_info(f)
assert all(not f.emblems for f in files), "update_file_info waited for the socket"
# Until every file has its answer, and those in a synced folder their emblem.
spin(lambda: all(f.path in provider.states and (provider.states[f.path] == "none" or f.emblems) for f in files), float(os.environ.get("HARNESS_WAIT_S", "10")))
result = {"emblems": {f.path: f.emblems[-1] if f.emblems else None for f in files}, "seconds": round(time.monotonic() - started, 3)}

menu_file = next(f for f in files if f.path == menu_path)
items = provider.get_file_items([menu_file]) if HOST == "Nautilus" else provider.get_file_items(None, [menu_file])
entries = items[0].get_property("menu").get_items() if items else []
result["menu"] = [(e.get_property("name"), e.get_property("label"), e.get_property("sensitive")) for e in entries]
copy = next((e for e in entries if e.get_property("name") == "Drivesync::copy-link"), None)
log = os.environ["DRIVESYNC_FM_LOG"]
if copy is not None:
    copy.activate()
    spin(lambda: "copying " in open(log, encoding="utf-8").read(), 15)
result["log"] = open(log, encoding="utf-8").read().splitlines()
print(json.dumps(result))
