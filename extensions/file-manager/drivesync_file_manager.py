"""
drivesync in the file manager: an emblem on every file and folder of a synced folder, and "Copy link", "Share…",
"Version history…" and "Star" on right-click. One source for Nautilus (43 and later), Nemo and Caja; it talks to the
sockets every drivesync process serves (docs/file-manager.md), and never blocks the file manager: each question goes
to a worker thread with short timeouts, and the answer comes back on the main loop. With no socket it shows nothing.
"""
import os
import queue
import socket
import subprocess
import threading
import time

import gi

PROTOCOL = "1"
# How long one question may take: a socket that does not answer in time is skipped until it is found again.
TIMEOUT_S = 0.5
# A menu waits this long for the drive (its star); then it shows what needs no answer.
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
    """The file manager this runs in, its module, and the GTK major version it uses."""
    for name, versions in (("Nautilus", ("4.0", "3.0")), ("Nemo", ("3.0",)), ("Caja", ("2.0",))):
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


class Connection:
    """One socket, asked one line at a time; closed on any failure (it is opened again when needed)."""

    def __init__(self, path):
        self.path = path
        self.sock = None
        self.buffer = b""

    def ask(self, line, last=None, timeout=TIMEOUT_S):
        try:
            if self.sock is None:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.settimeout(timeout)
                self.sock.connect(self.path)
            self.sock.settimeout(timeout)
            self.sock.sendall((line + "\n").encode("utf-8"))
            lines = []
            deadline = time.monotonic() + timeout
            while True:
                while b"\n" in self.buffer:
                    raw, self.buffer = self.buffer.split(b"\n", 1)
                    answer = raw.decode("utf-8", "replace")
                    if answer.startswith("CHANGED\t"):
                        continue
                    lines.append(answer)
                    if last is None or answer.startswith(last) or answer.startswith("ERROR\t"):
                        return lines
                if time.monotonic() > deadline:
                    raise socket.timeout()
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("closed")
                self.buffer += chunk
        except (OSError, ValueError):
            self.close()
            return None

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        self.buffer = b""


class Client:
    """Every drivesync socket; questions answered on a worker thread, answers delivered on the main loop."""

    def __init__(self):
        self.connections = {}
        self.scanned = 0.0
        self.jobs = queue.Queue()
        self.watched = set()
        self.on_changed = lambda path: None
        self.lock = threading.Lock()
        threading.Thread(target=self._work, name="drivesync-questions", daemon=True).start()

    def sockets(self):
        with self.lock:
            return self._sockets()

    def _sockets(self):
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
                self.connections[new] = Connection(new)
                self._watch(new)
        return list(self.connections.values())

    def _watch(self, path):
        """A connection of its own that hears CHANGED for everything under /, on a thread of its own."""
        if path in self.watched:
            return
        self.watched.add(path)

        def listen():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(TIMEOUT_S)
                    sock.connect(path)
                    sock.sendall(b"WATCH\t/\n")
                    sock.settimeout(None)
                    buffer = b""
                    while True:
                        chunk = sock.recv(65536)
                        if not chunk:
                            break
                        buffer += chunk
                        while b"\n" in buffer:
                            raw, buffer = buffer.split(b"\n", 1)
                            line = raw.decode("utf-8", "replace")
                            if line.startswith("CHANGED\t"):
                                GLib.idle_add(self.on_changed, line.split("\t", 1)[1])
            except OSError:
                pass
            self.watched.discard(path)
            self.scanned = 0.0

        threading.Thread(target=listen, name="drivesync-watch", daemon=True).start()

    def status(self, path):
        """The state of a path and the socket that holds it, asking each (on the worker thread)."""
        for connection in self.sockets():
            answer = connection.ask("STATUS\t" + path)
            fields = answer[0].split("\t") if answer else []
            if len(fields) == 3 and fields[0] == "STATUS" and fields[1] != "none" and fields[2] == path:
                return fields[1], connection.path
        return "none", None

    @staticmethod
    def ask_once(socket_path, line, last=None, timeout=TIMEOUT_S):
        """One question on a connection of its own (the menu asks on the main loop, the worker may be busy)."""
        connection = Connection(socket_path)
        try:
            return connection.ask(line, last, timeout)
        finally:
            connection.close()

    def later(self, job, done):
        """Runs `job` on the worker thread and gives its result to `done` on the main loop."""
        self.jobs.put((job, done))

    def _work(self):
        while True:
            job, done = self.jobs.get()
            try:
                result = job()
            except Exception as error:  # a bug here must not take the file manager down
                log("failed: %s" % error)
                result = None
            GLib.idle_add(done, result)


def copy_to_clipboard(text):
    log("copying %s" % text)
    if GTK_MAJOR == 4:
        gi.require_version("Gdk", "4.0")
        from gi.repository import Gdk

        display = Gdk.Display.get_default()
        if display is not None:
            display.get_clipboard().set_content(Gdk.ContentProvider.new_for_value(GObject.Value(GObject.TYPE_STRING, text)))
    else:
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gdk, Gtk

        Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).set_text(text, -1)


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

    # Emblems: the state cached, else asked on the worker and the file invalidated when the answer comes.
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
            self.client.later(lambda: self.client.status(path), lambda answer: self.answered(path, answer))
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
        answer = Client.ask_once(owner, "MENU\t" + path, last="END", timeout=MENU_TIMEOUT_S) or []
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
                    copy_to_clipboard(fields[1])
                    tell("Link copied", fields[1])
                else:
                    tell("drivesync", fields[1])
            else:
                tell("drivesync could not do it", fields[1] if len(fields) > 1 else "drivesync did not answer")
            return False

        # The drive may take its time: 15 s, on the worker, never on the file manager's main loop.
        self.client.later(lambda: Client.ask_once(owner, "RUN\t%s\t%s" % (action, path), timeout=15), done)
