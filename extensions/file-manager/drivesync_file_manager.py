"""
drivesync in the file manager: an emblem on every file and folder of a synced folder, and "Copy link", "Share…",
"Version history…" and "Star" on right-click. One source for Nautilus (43 and later), Nemo and Caja; it talks to the
sockets every drivesync process serves (docs/file-manager.md), and never blocks the file manager: its sockets are read
on the main loop as answers come (no thread), with short timeouts. With no socket it shows nothing.
"""
import os
import socket
import subprocess
import sys
import time

import gi

PROTOCOL = "1"
# How long one question may take: a socket that does not answer in time is skipped until it is found again.
TIMEOUT_S = 0.5
# The one question answered before returning: the right-click menu, which the file manager needs at once.
MENU_TIMEOUT_S = 0.3
# The sockets are looked for again at most this often.
RESCAN_S = 2.0
EMBLEMS = {
    "synced": "drivesync-synced",
    "syncing": "drivesync-syncing",
    "error": "drivesync-error",
    "conflict": "drivesync-conflict",
    "ignored": "drivesync-ignored",
    "excluded": "drivesync-excluded",
    "online-only": "drivesync-online-only",
}


def _host():
    """
    The file manager this runs in, its module, and the GTK major version it uses: the one whose Python binding loaded
    this (it imported its own module first), else the one the process is; never merely the first whose introspection
    data is installed (a machine may have Nautilus's and run Nemo).
    """
    candidates = (("Nautilus", ("4.0", "3.0")), ("Nemo", ("3.0",)), ("Caja", ("2.0",)))
    try:
        with open("/proc/self/comm", encoding="utf-8") as comm:
            process = comm.read().strip().lower()
    except OSError:
        process = ""
    loaded = [c for c in candidates if "gi.repository." + c[0] in sys.modules]
    named = [c for c in candidates if c[0].lower() in process]
    for name, versions in loaded or named or candidates:
        for version in versions:
            try:
                gi.require_version(name, version)
                module = __import__("gi.repository", fromlist=[name])
                return name, getattr(module, name), 4 if (name == "Nautilus" and version == "4.0") else 3
            except (ValueError, ImportError, AttributeError):
                continue
    raise ImportError("no Nautilus, Nemo or Caja introspection data")


HOST_NAME, FM, GTK_MAJOR = _host()
from gi.repository import GLib, GObject  # noqa: E402


def socket_dir():
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        return os.path.join(runtime, "drivesync")
    return os.path.join(os.environ.get("TMPDIR", "/tmp"), "drivesync-%d" % os.getuid())


def log(message):
    """A line to DRIVESYNC_FM_LOG when it is set (the tests read what the extension did)."""
    path = os.environ.get("DRIVESYNC_FM_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(message + "\n")


def deliver(callback, lines):
    """A callback's failure is logged, never raised into the main loop's watch (which would end it)."""
    try:
        callback(lines)
    except Exception as error:  # noqa: BLE001 - a bug here must not take the file manager's watch down
        log("failed: %s: %s" % (type(error).__name__, error))


class Connection:
    """
    One socket, read on the file manager's main loop (GLib watches its descriptor; no thread, no wait): questions go
    out at once and their callbacks are called in order as the answers come. A question not answered in time closes
    it, and every callback waiting gets None; the next question opens it again.
    """

    def __init__(self, path, on_changed, timeout=TIMEOUT_S):
        self.path = path
        self.on_changed = on_changed
        self.timeout = timeout
        self.sock = None
        self.watch = None
        self.buffer = b""
        # (line it answers, last line of its answer or None, callback, deadline, lines so far)
        self.waiting = []

    def _open(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(0.05)
        sock.connect(self.path)
        sock.setblocking(False)
        self.sock = sock
        self.watch = GLib.io_add_watch(sock.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self._readable)

    def ask(self, line, callback, last=None, timeout=None):
        try:
            if self.sock is None:
                self._open()
                self._send("WATCH\t/", lambda answer: None, None, self.timeout)
            self._send(line, callback, last, timeout or self.timeout)
        except OSError:
            self.close()
            callback(None)

    def _send(self, line, callback, last, timeout):
        self.waiting.append([line, last, callback, time.monotonic() + timeout, []])
        self.sock.sendall((line + "\n").encode("utf-8"))
        GLib.timeout_add(int(timeout * 1000) + 10, self._late)

    def _late(self):
        if self.waiting and time.monotonic() > self.waiting[0][3]:
            log("no answer in time from %s" % self.path)
            self.close()
        return False

    def _readable(self, _fd, condition):
        try:
            chunk = self.sock.recv(65536) if condition & GLib.IO_IN else b""
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            return False
        self.buffer += chunk
        while b"\n" in self.buffer:
            raw, self.buffer = self.buffer.split(b"\n", 1)
            self._line(raw.decode("utf-8", "replace"))
        return True

    def _line(self, line):
        if line.startswith("CHANGED\t"):
            self.on_changed(line.split("\t", 1)[1])
            return
        if not self.waiting:
            return
        entry = self.waiting[0]
        entry[4].append(line)
        last = entry[1]
        if last is None or line.startswith(last) or line.startswith("ERROR\t"):
            self.waiting.pop(0)
            deliver(entry[2], entry[4])

    def close(self):
        if self.watch is not None and GLib.MainContext.default().find_source_by_id(self.watch) is not None:
            GLib.source_remove(self.watch)
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        self.watch = None
        self.buffer = b""
        waiting, self.waiting = self.waiting, []
        for entry in waiting:
            deliver(entry[2], None)


class Client:
    """Every drivesync socket of this user (looked for again every few seconds), each a Connection."""

    def __init__(self):
        self.connections = {}
        self.scanned = 0.0
        self.on_changed = lambda path: None

    def sockets(self):
        now = time.monotonic()
        if now - self.scanned > RESCAN_S:
            self.scanned = now
            directory = socket_dir()
            try:
                found = {os.path.join(directory, n) for n in os.listdir(directory) if n.endswith(".sock")}
            except OSError:
                found = set()
            for gone in set(self.connections) - found:
                self.connections.pop(gone).close()
            for new in found - set(self.connections):
                self.connections[new] = Connection(new, lambda path: self.on_changed(path))
        return list(self.connections.values())

    def status(self, path, done):
        """The state of a path and the socket that holds it: each socket is asked; the first that holds it answers."""
        connections = self.sockets()
        answers = {"left": len(connections), "found": None}
        if not connections:
            done(("none", None))
            return

        def answered(connection, answer):
            answers["left"] -= 1
            fields = answer[0].split("\t") if answer else []
            if answers["found"] is None and len(fields) == 3 and fields[0] == "STATUS" and fields[1] != "none" and fields[2] == path:
                answers["found"] = (fields[1], connection.path)
                done(answers["found"])
            elif answers["left"] == 0 and answers["found"] is None:
                done(("none", None))

        for connection in connections:
            connection.ask("STATUS\t" + path, lambda answer, c=connection: answered(c, answer))

    @staticmethod
    def ask_now(socket_path, line, last=None, timeout=MENU_TIMEOUT_S):
        """One question answered before returning, within `timeout` (the menu must be given at once)."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout)
                sock.connect(socket_path)
                sock.sendall((line + "\n").encode("utf-8"))
                deadline = time.monotonic() + timeout
                buffer, lines = b"", []
                while time.monotonic() < deadline:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return None
                    buffer += chunk
                    while b"\n" in buffer:
                        raw, buffer = buffer.split(b"\n", 1)
                        lines.append(raw.decode("utf-8", "replace"))
                        if last is None or lines[-1].startswith(last) or lines[-1].startswith("ERROR\t"):
                            return lines
        except OSError:
            return None
        return None

    @staticmethod
    def ask_later(socket_path, line, timeout, done):
        """One question on a connection of its own, answered on the main loop (an action may wait for the drive)."""
        connection = Connection(socket_path, lambda path: None, timeout)

        def answered(answer):
            GLib.idle_add(connection.close)
            done(answer)

        try:
            connection._open()
            connection._send(line, answered, None, timeout)
        except OSError:
            connection.close()
            done(None)


def copy_to_clipboard(text):
    """Through GTK where its introspection data is installed (gir1.2-gtk-4.0 for Nautilus), else wl-copy or xclip."""
    log("copying %s" % text)
    try:
        if GTK_MAJOR == 4:
            gi.require_version("Gdk", "4.0")
            from gi.repository import Gdk

            Gdk.Display.get_default().get_clipboard().set_content(Gdk.ContentProvider.new_for_value(GObject.Value(GObject.TYPE_STRING, text)))
        else:
            gi.require_version("Gtk", "3.0")
            from gi.repository import Gdk, Gtk

            Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).set_text(text, -1)
        return True
    except (ValueError, ImportError, AttributeError):
        pass
    wayland = bool(os.environ.get("WAYLAND_DISPLAY"))
    for command in (["wl-copy"] if wayland else []) + [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]:
        command = command if isinstance(command, list) else [command]
        try:
            copier = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            copier.stdin.write(text.encode("utf-8"))
            copier.stdin.close()
            return True
        except OSError:
            continue
    return False


def tell(title, body):
    log("told %s: %s" % (title, body))
    try:
        subprocess.Popen(["notify-send", "--app-name=drivesync", title, body], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        pass


class DrivesyncExtension(GObject.GObject, FM.InfoProvider, FM.MenuProvider):
    def __init__(self):
        super().__init__()
        self.client = Client()
        self.client.on_changed = self.changed
        self.states = {}
        # The socket that answered for each path: its menu and actions are asked there.
        self.owners = {}
        self.files = {}
        self.asking = set()
        log("loaded in %s (GTK %d)" % (HOST_NAME, GTK_MAJOR))

    # Emblems: the state cached, else asked (answered on the main loop) and the file invalidated when the answer comes.
    def update_file_info(self, file):
        location = file.get_location()
        path = location.get_path() if location is not None else None
        if not path:
            return FM.OperationResult.COMPLETE
        if len(self.files) > 100000:
            self.files.clear()
        self.files[path] = file
        state = self.states.get(path)
        if state is not None:
            emblem = EMBLEMS.get(state)
            if emblem:
                file.add_emblem(emblem)
                log("emblem %s %s" % (emblem, path))
        elif path not in self.asking and os.path.isdir(socket_dir()):
            self.asking.add(path)
            self.client.status(path, lambda answer: self.answered(path, answer))
        return FM.OperationResult.COMPLETE

    def answered(self, path, answer):
        state, owner = answer or ("none", None)
        self.asking.discard(path)
        self.states[path] = state
        if owner:
            self.owners[path] = owner
        file = self.files.get(path)
        if file is not None and state and state != "none":
            file.invalidate_extension_info()
        return False

    def changed(self, path):
        if self.states.pop(path, None) is not None:
            file = self.files.get(path)
            if file is not None:
                file.invalidate_extension_info()
        return False

    # The menu: asked of the socket that holds the path, briefly; what needs no answer otherwise.
    def get_file_items(self, *args):
        files = args[-1]
        if len(files) != 1:
            return []
        location = files[0].get_location()
        path = location.get_path() if location is not None else None
        owner = self.owners.get(path)
        if not path or owner is None or self.states.get(path) in (None, "none"):
            return []
        answer = Client.ask_now(owner, "MENU\t" + path, last="END") or []
        items = [line for line in answer if line.startswith("ITEM\t")] if answer and answer[-1].startswith("END") else []
        if not items:
            return []
        top = FM.MenuItem(name="Drivesync::Top", label="drivesync", tip="", icon="")
        submenu = FM.Menu()
        top.set_submenu(submenu)
        for item in items:
            _, action, enabled, label = (item.split("\t", 3) + ["", "", "", ""])[:4]
            entry = FM.MenuItem(name="Drivesync::" + action, label=label, tip="", icon="")
            entry.set_property("sensitive", enabled == "1")
            entry.connect("activate", self.run, action, path, owner)
            submenu.append_item(entry)
        return [top]

    def get_background_items(self, *args):
        return []

    def run(self, _item, action, path, owner):
        def done(answer):
            fields = answer[0].split("\t") if answer else []
            if fields and fields[0] == "OK":
                if action in ("copy-link", "copy-folder-link"):
                    tell("Link copied" if copy_to_clipboard(fields[1]) else "The link (copy it from here)", fields[1])
                else:
                    tell("drivesync", fields[1])
            else:
                tell("drivesync could not do it", fields[1] if len(fields) > 1 else "drivesync did not answer")
            return False

        # The drive may take its time: up to 15 s, answered on the main loop, never waited for.
        Client.ask_later(owner, "RUN\t%s\t%s" % (action, path), 15, done)
