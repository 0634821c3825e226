"""End-to-end harness: the real ptescope app in a real X session.

A ``Session`` is an Xvfb display with a window manager (openbox) and an
accessibility bus; an ``App`` is the real ``ptescope`` binary started on it,
driven through xdotool (keys, clicks, resizing) and read back through the
accessibility tree (AT-SPI), the way a person (and a screen reader) sees it.

Run it through tests/e2e/run.sh (dbus-run-session + Debian's /usr/bin/python3,
which has pyatspi). Every process a Session or an App starts gets its own
process group, dies with the Python process that started it
(PR_SET_PDEATHSIG) and is killed, group and all, when the Session or the App
ends, also on exceptions and timeouts.

pyatspi connects to the accessibility bus once per process, so use one
Session per process (run.py runs every scenario in a process of its own).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

_PR_SET_PDEATHSIG = 1
try:
    _libc = ctypes.CDLL("libc.so.6", use_errno=True)
except OSError:  # pragma: no cover
    _libc = None

# Every process group started in this Python process, for the runner's last
# sweep (a scenario process that had to be killed leaves its list behind).
_PIDFILE = os.environ.get("PTESCOPE_E2E_PIDFILE")


class E2EError(AssertionError):
    """A scenario's check failed (or the session could not be set up)."""


class ScenarioTimeout(BaseException):
    """The scenario ran out of time (SIGALRM). A BaseException, so that the
    "not yet" of wait_until and the retries around AT-SPI calls let it through."""


def _note_group(pgid: int) -> None:
    if not _PIDFILE:
        return
    try:
        with open(_PIDFILE, "a") as f:
            f.write(f"{pgid}\n")
    except OSError:
        pass


def _preexec(death_signal: int = signal.SIGTERM):
    def run():
        os.setsid()
        if _libc is not None:
            _libc.prctl(_PR_SET_PDEATHSIG, int(death_signal), 0, 0, 0)
    return run


class Proc:
    """A child in a process group of its own, killed group and all."""

    def __init__(self, argv, env=None, cwd=None, stdout=None, stderr=None, pass_fds=(), name=None):
        self.argv = [str(a) for a in argv]
        self.name = name or Path(self.argv[0]).name
        self.popen = subprocess.Popen(
            self.argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=stdout if stdout is not None else subprocess.DEVNULL,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            pass_fds=pass_fds, preexec_fn=_preexec(), close_fds=True)
        self.pid = self.popen.pid
        _note_group(self.pid)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self, grace: float = 2.0) -> None:
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        end = time.monotonic() + grace
        while time.monotonic() < end and self.popen.poll() is None:
            time.sleep(0.05)
        try:
            os.killpg(self.pid, signal.SIGKILL)  # the group: helpers (dot) too
        except ProcessLookupError:
            pass
        try:
            self.popen.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.1, what: str | None = None):
    """Poll predicate (exceptions count as "not yet") until it returns truthy."""
    end = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # noqa: BLE001 - AT-SPI objects die under us
            last_error = e
        if time.monotonic() >= end:
            if what is None:
                return None
            extra = f" (last error: {last_error})" if last_error else ""
            raise E2EError(f"timed out after {timeout:.0f} s waiting for {what}{extra}")
        time.sleep(interval)


def _run(argv, env=None, timeout=10.0, check=False) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout, check=check)


# --------------------------------------------------------------------------
# AT-SPI helpers (pyatspi is imported lazily: DISPLAY must be set first)

_pyatspi = None


def atspi():
    global _pyatspi
    if _pyatspi is None:
        import pyatspi  # noqa: PLC0415 - only in /usr/bin/python3's dist-packages
        _pyatspi = pyatspi
    return _pyatspi


def _retry(fn, default=None, tries: int = 3):
    for attempt in range(tries):
        try:
            return fn()
        except Exception:  # noqa: BLE001 - dying objects, D-Bus timeouts
            if attempt + 1 < tries:
                time.sleep(0.05)
    return default


def role_of(obj) -> str:
    return _retry(lambda: obj.getRoleName(), "") or ""


def name_of(obj) -> str:
    return _retry(lambda: obj.name, "") or ""


def description_of(obj) -> str:
    return _retry(lambda: obj.description, "") or ""


def children_of(obj, limit: int | None = None) -> list:
    count = _retry(lambda: obj.childCount, 0) or 0
    if limit is not None:
        count = min(count, limit)
    out = []
    for i in range(count):
        child = _retry(lambda i=i: obj.getChildAtIndex(i))
        if child is not None:
            out.append(child)
    return out


def parent_of(obj):
    return _retry(lambda: obj.parent)


def states_of(obj) -> set[str]:
    pa = atspi()
    def get():
        ss = obj.getState()
        return {pa.stateToString(s) if hasattr(pa, "stateToString") else str(s) for s in ss.getStates()}
    states = _retry(get, set())
    return {str(s).lower().replace("state_", "").replace("_", " ") for s in states}


def has_state(obj, state: str) -> bool:
    pa = atspi()
    const = getattr(pa, "STATE_" + state.upper().replace(" ", "_"))
    return bool(_retry(lambda: obj.getState().contains(const), False))


def extents(obj):
    """(x, y, w, h) in screen coordinates, or None."""
    pa = atspi()
    def get():
        e = obj.queryComponent().getExtents(pa.DESKTOP_COORDS)
        return (e.x, e.y, e.width, e.height)
    return _retry(get)


def text_of(obj) -> str:
    """The Text interface's content, else the name."""
    def get():
        t = obj.queryText()
        return t.getText(0, -1)
    text = _retry(get, None, tries=1)
    if text is None or text == "":
        return name_of(obj)
    return text


def field_text(obj) -> str:
    """The text typed into an edit field (the Text interface only: an empty
    field's name is its label, not its content)."""
    return _retry(lambda: obj.queryText().getText(0, -1), "", tries=2) or ""


def actions_of(obj) -> list[tuple[str, str]]:
    """[(action name, key binding)] of the Action interface."""
    def get():
        a = obj.queryAction()
        return [(a.getName(i), a.getKeyBinding(i)) for i in range(a.nActions)]
    return _retry(get, [], tries=2) or []


def do_action(obj, name: str | None = None) -> bool:
    def get():
        a = obj.queryAction()
        for i in range(a.nActions):
            if name is None or a.getName(i).lower() == name.lower():
                return a.doAction(i)
        return False
    return bool(_retry(get, False, tries=1))


_TABLE_ROLES = {"table", "tree table", "tree", "list", "list box", "table row"}


def _normal(text: str) -> str:
    """For comparing names: no mnemonic '&', '...' for the ellipsis, no key
    hint after a tab ("Zoom In\tCtrl+="), case-insensitive."""
    return text.split("\t")[0].replace("\u2026", "...").replace("&", "").strip().lower()


def _matches(obj, role, name, name_contains, predicate) -> bool:
    if role is not None:
        roles = {role} if isinstance(role, str) else set(role)
        if role_of(obj) not in roles:
            return False
    if name is not None and _normal(name_of(obj)) != _normal(name):
        return False
    if name_contains is not None and _normal(name_contains) not in _normal(name_of(obj)):
        return False
    if predicate is not None and not _retry(lambda: predicate(obj), False, tries=1):
        return False
    return True


def walk(root, deep: bool = False, max_children: int = 400, showing_only: bool = False):
    """Depth-first over root's subtree. Without deep, the cells of tables,
    trees and lists are not visited (they can be thousands)."""
    stack = [root]
    while stack:
        obj = stack.pop()
        yield obj
        role = role_of(obj)
        if not deep and role in _TABLE_ROLES:
            continue
        if showing_only and obj is not root and not has_state(obj, "showing"):
            continue
        kids = children_of(obj, limit=max_children)
        stack.extend(reversed(kids))


def find_all(root=None, role=None, name=None, name_contains=None, predicate=None, deep=False,
             showing_only=False) -> list:
    """Every object under root (default: the whole desktop) with that role
    (a name or a tuple of names), name (exact, case-insensitive, '&' and key
    hints ignored), name part, and predicate. Without deep, table cells are
    not visited."""
    root = root if root is not None else atspi().Registry.getDesktop(0)
    return [o for o in walk(root, deep=deep, showing_only=showing_only)
            if _matches(o, role, name, name_contains, predicate)]


def find(root=None, role=None, name=None, name_contains=None, predicate=None, deep=False, showing_only=False):
    """The first object find_all would give, or None."""
    root = root if root is not None else atspi().Registry.getDesktop(0)
    for o in walk(root, deep=deep, showing_only=showing_only):
        if _matches(o, role, name, name_contains, predicate):
            return o
    return None


def table_rows(obj, max_rows: int = 2000) -> list[list[str]]:
    """Cells of a table / tree table as rows of strings (Table interface, else children)."""
    def via_table():
        t = obj.queryTable()
        rows = []
        for r in range(min(t.nRows, max_rows)):
            row = []
            for c in range(t.nColumns):
                cell = t.getAccessibleAt(r, c)
                row.append((name_of(cell) or text_of(cell)) if cell is not None else "")
            rows.append(row)
        return rows
    rows = _retry(via_table, None, tries=2)
    if rows is not None:
        return rows
    out = []
    for child in children_of(obj, limit=max_rows):
        kids = children_of(child)
        if kids and role_of(child) in ("table row", "list item", "tree item"):
            out.append([text_of(k) for k in kids])
        elif role_of(child) not in ("table column header", "column header", "table row header", "row header"):
            out.append([text_of(child)])
    return out


def table_headers(obj) -> list[str]:
    def get():
        t = obj.queryTable()
        out = []
        for c in range(t.nColumns):
            header = t.getColumnHeader(c)
            desc = t.getColumnDescription(c)
            out.append(name_of(header) if header is not None and name_of(header) else (desc or ""))
        return out
    headers = _retry(get, None, tries=2)
    if headers is not None:
        return headers
    return [name_of(o) for o in children_of(obj) if role_of(o) in ("table column header", "column header")]


def dump_tree(root, path, deep: bool = True, max_children: int = 200) -> None:
    """The whole tree (role, name, description, extents, states) as indented text."""
    lines = []

    def rec(obj, depth):
        if depth > 60 or len(lines) > 20000:
            return
        role = role_of(obj)
        ext = extents(obj)
        states = sorted(states_of(obj) & {"focused", "showing", "visible", "enabled", "checked", "selected",
                                          "active", "focusable", "expanded", "modal", "editable", "pressed"})
        line = f"{'  ' * depth}[{role}] {name_of(obj)!r}"
        desc = description_of(obj)
        if desc:
            line += f" desc={desc!r}"
        if role in ("text", "label", "table cell", "status bar", "paragraph", "entry"):
            text = _retry(lambda: obj.queryText().getText(0, 200), None, tries=1)
            if text and text != name_of(obj):
                line += f" text={text!r}"
        if ext:
            line += f" @{ext[0]},{ext[1]} {ext[2]}x{ext[3]}"
        if states:
            line += " {" + ",".join(states) + "}"
        acts = actions_of(obj) if role in ("menu item", "push button", "check box", "menu", "check menu item",
                                           "radio menu item", "page tab", "toggle button") else []
        keys = [k for _, k in acts if k]
        if keys:
            line += f" keys={keys!r}"
        lines.append(line)
        if not deep and role in _TABLE_ROLES:
            return
        for child in children_of(obj, limit=max_children):
            rec(child, depth + 1)

    try:
        rec(root, 0)
    except Exception as e:  # noqa: BLE001
        lines.append(f"(dump stopped: {e})")
    Path(path).write_text("\n".join(lines) + "\n")


def on_screen(obj) -> bool:
    """Showing, with extents of positive size that start on the screen (Qt keeps
    "showing" on the widgets of a dock hidden behind another dock's tab, at
    negative coordinates)."""
    if not has_state(obj, "showing"):
        return False
    e = extents(obj)
    return bool(e) and e[2] > 0 and e[3] > 0 and e[0] >= 0 and e[1] >= 0


def intersection(a, b):
    """The rectangle both cover, or None."""
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    if x2 <= x1 or y2 <= y1:
        return None
    return (x1, y1, x2 - x1, y2 - y1)


def visible_rect(obj, limit: int = 16):
    """The part of obj the user sees: its extents clipped by every ancestor's
    (a scroll area's viewport clips what lies beyond it), or None."""
    rect = extents(obj)
    if not rect or rect[2] <= 0 or rect[3] <= 0:
        return None
    node = obj
    for _ in range(limit):
        node = _retry(lambda n=node: n.parent)
        if node is None or role_of(node) in ("application", "desktop frame", ""):
            break
        outer = extents(node)
        if outer and outer[2] > 0 and outer[3] > 0:
            rect = intersection(rect, outer)
            if rect is None:
                return None
        if role_of(node) in ("frame", "dialog", "window"):
            break
    return rect


def clipping_area(obj, limit: int = 16):
    """The extents of the nearest ancestor that does not hold all of obj (the
    viewport of the scroll area it sits in), or None."""
    rect = extents(obj)
    node = obj
    for _ in range(limit):
        node = _retry(lambda n=node: n.parent)
        if node is None or role_of(node) in ("application", "frame", "dialog", "window", ""):
            return None
        outer = extents(node)
        if outer and outer[2] > 0 and outer[3] > 0 and not contains(outer, rect):
            return outer
    return None


def intersects(a, b) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def contains(outer, inner, slack: int = 0) -> bool:
    ox, oy, ow, oh = outer
    ix, iy, iw, ih = inner
    return (ix >= ox - slack and iy >= oy - slack and ix + iw <= ox + ow + slack and iy + ih <= oy + oh + slack)


# --------------------------------------------------------------------------
# The session: Xvfb + openbox + an accessibility bus


_PROCESS_BUS = None  # the A11yBus this process started, if any


def a11y_bus_owned(env=None) -> bool:
    r = _run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
              "org.freedesktop.DBus.NameHasOwner", "string:org.a11y.Bus"], env=env, timeout=5)
    return "boolean true" in r.stdout


class A11yBus:
    """at-spi-bus-launcher and the runtime folder its bus socket lives in."""

    def __init__(self, proc: Proc, runtime: Path):
        self.proc, self.runtime = proc, runtime

    def alive(self) -> bool:
        return self.proc.alive()

    def kill(self) -> None:
        self.proc.kill()
        shutil.rmtree(self.runtime, ignore_errors=True)


def start_a11y_bus(env=None, log_path: Path | None = None) -> A11yBus | None:
    """Start at-spi-bus-launcher on the session bus unless org.a11y.Bus has an
    owner: it owns that name and runs the accessibility bus (the registry is
    activated on it). Returns it (to kill), or None when one ran already."""
    if a11y_bus_owned(env):
        return None
    launcher = next((p for p in ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")
                     if os.path.exists(p)), None)
    if launcher is None:
        raise E2EError("at-spi-bus-launcher is not installed (at-spi2-core)")
    # Without DISPLAY, so that the registry it activates outlives any one X
    # display; with a runtime folder of its own, which holds the bus socket
    # (one in a Session's folder would go with the Session).
    runtime = Path(tempfile.mkdtemp(prefix="ptescope-e2e-a11y-"))
    env = {k: v for k, v in (env if env is not None else os.environ).items() if k != "DISPLAY"}
    env["XDG_RUNTIME_DIR"] = str(runtime)
    proc = Proc([launcher, "--launch-immediately"], env=env,
                stderr=open(log_path, "wb") if log_path else None, name="at-spi-bus-launcher")
    bus = A11yBus(proc, runtime)
    try:
        wait_until(lambda: a11y_bus_owned(env), timeout=10, what="the accessibility bus (org.a11y.Bus)")
    except BaseException:
        bus.kill()
        raise
    return bus


class Session:
    """An X display of the given size with a window manager and AT-SPI."""

    def __init__(self, width: int = 1000, height: int = 700, artifacts: Path | None = None):
        self.width, self.height = width, height
        self.display = None
        self.procs: list[Proc] = []
        self.apps: list[App] = []
        self.tmp = Path(tempfile.mkdtemp(prefix="ptescope-e2e-"))
        self.artifacts = Path(artifacts) if artifacts else self.tmp / "artifacts"
        self.env = None
        self.desktop = None

    # -- lifecycle
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self) -> None:
        for app in list(self.apps):
            app.kill()
        for proc in reversed(self.procs):
            proc.kill(grace=1.0)
        self.procs.clear()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _start(self) -> None:
        if not shutil.which("Xvfb"):
            raise E2EError("Xvfb is not installed")
        env = dict(os.environ)
        for var in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "QT_QPA_PLATFORMTHEME", "XDG_CURRENT_DESKTOP",
                    "DESKTOP_SESSION", "GNOME_DESKTOP_SESSION_ID", "KDE_FULL_SESSION", "AT_SPI_BUS_ADDRESS"):
            env.pop(var, None)
        runtime = self.tmp / "runtime"
        runtime.mkdir(mode=0o700)
        env["XDG_RUNTIME_DIR"] = str(runtime)

        # Xvfb picks a free display number itself (-displayfd) and says which
        # once it accepts connections.
        read_fd, write_fd = os.pipe()
        xvfb = Proc(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{self.width}x{self.height}x24",
                     "-nolisten", "tcp", "-noreset", "+extension", "RANDR"],
                    env=env, pass_fds=(write_fd,), stderr=open(self.tmp / "xvfb.log", "wb"), name="Xvfb")
        self.procs.append(xvfb)
        os.close(write_fd)
        number = b""
        end = time.monotonic() + 15
        while not number.endswith(b"\n"):
            left = end - time.monotonic()
            if left <= 0 or not xvfb.alive():
                raise E2EError("Xvfb did not start: " + (self.tmp / "xvfb.log").read_text(errors="replace")[-500:])
            ready, _, _ = select.select([read_fd], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(read_fd, 64)
                if not chunk:
                    break
                number += chunk
        os.close(read_fd)
        if not number.strip():
            raise E2EError("Xvfb did not report a display")
        self.display = ":" + number.decode().strip()
        env["DISPLAY"] = self.display
        os.environ["DISPLAY"] = self.display
        for var in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "AT_SPI_BUS_ADDRESS"):
            os.environ.pop(var, None)

        # A session bus when the runner was not started under dbus-run-session.
        if not env.get("DBUS_SESSION_BUS_ADDRESS"):
            if not shutil.which("dbus-daemon"):
                raise E2EError("no D-Bus session bus (run through tests/e2e/run.sh)")
            read_fd, write_fd = os.pipe()
            bus = Proc(["dbus-daemon", "--session", "--nofork", f"--print-address={write_fd}"], env=env,
                       pass_fds=(write_fd,), name="dbus-daemon")
            self.procs.append(bus)
            os.close(write_fd)
            address = b""
            end = time.monotonic() + 10
            while not address.endswith(b"\n") and time.monotonic() < end:
                ready, _, _ = select.select([read_fd], [], [], 0.5)
                if ready:
                    chunk = os.read(read_fd, 512)
                    if not chunk:
                        break
                    address += chunk
            os.close(read_fd)
            if not address.strip():
                raise E2EError("dbus-daemon did not start")
            env["DBUS_SESSION_BUS_ADDRESS"] = address.decode().strip()
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = env["DBUS_SESSION_BUS_ADDRESS"]

        # The window manager.
        if shutil.which("openbox"):
            wm = Proc(["openbox", "--sm-disable"], env=env, stderr=open(self.tmp / "openbox.log", "wb"), name="openbox")
            self.procs.append(wm)
            wait_until(lambda: "window id" in _run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env).stdout,
                       timeout=10, what="openbox to manage the display")

        # The accessibility bus (the runner may have started one for all
        # scenarios). pyatspi stays connected to the first bus it saw, so one
        # started here lives as long as this process, not this Session.
        global _PROCESS_BUS
        if _PROCESS_BUS is None or not _PROCESS_BUS.alive():
            _PROCESS_BUS = start_a11y_bus(env)
            if _PROCESS_BUS is not None:
                atexit.register(_PROCESS_BUS.kill)
        # Qt needs no gsettings key: the app runs with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1.
        self.env = env
        pa = atspi()
        self.desktop = wait_until(lambda: pa.Registry.getDesktop(0), timeout=10, what="the AT-SPI desktop")
        self.artifacts.mkdir(parents=True, exist_ok=True)

    # -- X helpers
    def xdotool(self, *args, timeout=10.0, check=True) -> str:
        r = _run(["xdotool", *args], env=self.env, timeout=timeout)
        if check and r.returncode != 0:
            raise E2EError(f"xdotool {' '.join(map(str, args))} failed: {r.stderr.strip()}")
        return r.stdout

    def key(self, *keys: str, delay_ms: int = 40) -> None:
        """Press keys through XTest (into whatever window has the focus)."""
        self.xdotool("key", "--clearmodifiers", "--delay", str(delay_ms), *keys)
        time.sleep(0.05)

    def type_text(self, text: str, delay_ms: int = 15) -> None:
        self.xdotool("type", "--clearmodifiers", "--delay", str(delay_ms), "--", text, timeout=30)
        time.sleep(0.05)

    def click(self, x: int, y: int, button: int = 1, double: bool = False) -> None:
        self.move(x, y)
        if double:
            self.xdotool("click", "--repeat", "2", "--delay", "80", str(button))
        else:
            self.xdotool("click", str(button))
        time.sleep(0.1)

    def move(self, x: int, y: int) -> None:
        # Not --sync: it waits forever when the pointer is already there.
        self.xdotool("mousemove", str(int(x)), str(int(y)))
        time.sleep(0.06)

    def screenshot(self, path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        r = _run(["import", "-display", self.display, "-window", "root", str(path)], env=self.env, timeout=20)
        if r.returncode != 0:
            raise E2EError(f"screenshot failed: {r.stderr.strip()}")
        return path


# --------------------------------------------------------------------------
# The app


def gui_binary() -> Path:
    return Path(os.environ.get("PTESCOPE_GUI") or REPO / "build/app/ptescope")


def cli_binary() -> Path:
    return Path(os.environ.get("PTESCOPE_CLI") or REPO / "build/app/ptescope-cli")


def cli(*args, check: bool = True, timeout: float = 120.0) -> subprocess.CompletedProcess:
    """Run ptescope-cli (offscreen; it needs no display)."""
    r = _run([cli_binary(), *args], timeout=timeout)
    if check and r.returncode != 0:
        raise E2EError(f"ptescope-cli {' '.join(map(str, args))} exited {r.returncode}: {r.stderr.strip()[-400:]}")
    return r


def make_home(parent: Path) -> Path:
    home = Path(tempfile.mkdtemp(prefix="home-", dir=parent))
    (home / ".config").mkdir()
    return home


class App:
    """The real app on a Session, found in the accessibility tree."""

    def __init__(self, session: Session, args=(), env: dict | None = None, home: Path | None = None,
                 cwd: Path | None = None, wait: bool = True, binary: Path | None = None, fit: bool = True):
        self.session = session
        self.fit = fit
        self.session_notes: list[str] = []  # what a helper could not check, for the scenario's notes
        self.home = Path(home) if home else make_home(session.tmp)
        self.binary = Path(binary) if binary else gui_binary()
        if not self.binary.exists():
            raise E2EError(f"no app at {self.binary} (set PTESCOPE_GUI)")
        e = dict(session.env)
        e.update({
            "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
            "QT_ACCESSIBILITY": "1",
            "QT_QPA_PLATFORM": "xcb",
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local/share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "NO_AT_BRIDGE": "0",
        })
        e.pop("PTESCOPE_NO_DIALOGS", None)
        if env:
            e.update(env)
        self.env = e
        n = len(session.apps)
        self.log_path = session.tmp / f"app{n}.log"
        self._log = open(self.log_path, "wb")
        self.proc = Proc([self.binary, *args], env=e, cwd=str(cwd or session.tmp), stdout=self._log,
                         stderr=subprocess.STDOUT, name="ptescope")
        self.pid = self.proc.pid
        session.apps.append(self)
        self.acc = None
        self._cache: dict = {}
        self._frame = None
        self._wid = None
        if wait:
            self.wait_ready()

    # -- lifecycle
    def log(self) -> str:
        try:
            self._log.flush()
        except ValueError:
            pass
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.alive()

    def kill(self) -> None:
        self.proc.kill()
        if self in self.session.apps:
            self.session.apps.remove(self)
        try:
            self._log.close()
        except Exception:  # noqa: BLE001
            pass

    def wait_exit(self, timeout: float = 10.0) -> int | None:
        try:
            return self.proc.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def quit(self, timeout: float = 10.0) -> None:
        """Ctrl+Q; answers a "discard edits?" prompt with Discard; kills when it hangs."""
        if self.alive():
            try:
                self.activate()
                self.key("ctrl+q")
                end = time.monotonic() + timeout
                while self.alive() and time.monotonic() < end:
                    dlg = self.active_dialog()
                    if dlg is not None:
                        button = (find(dlg, role="push button", name="Discard") or
                                  find(dlg, role="push button", name="Don't Save") or
                                  find(dlg, role="push button", name="Close without Saving"))
                        if button is not None:
                            self.click_widget(button)
                    time.sleep(0.2)
            except Exception:  # noqa: BLE001
                pass
        self.kill()

    def wait_ready(self, timeout: float = 20.0) -> None:
        pa = atspi()

        def find_app():
            if not self.alive():
                raise E2EError("the app exited at start:\n" + self.log()[-2000:])
            desktop = pa.Registry.getDesktop(0)
            _retry(desktop.clear_cache, tries=1)  # its list of apps is cached, and updated only by events
            for app in children_of(desktop):
                pid = _retry(lambda app=app: app.get_process_id(), -1)
                if pid == self.pid:
                    return app
            return None

        end = time.monotonic() + timeout
        while True:
            try:
                self.acc = find_app()
            except E2EError:
                raise
            if self.acc is not None:
                break
            if time.monotonic() > end:
                raise E2EError(f"the app did not appear in the accessibility tree within {timeout:.0f} s:\n"
                               + self.log()[-2000:])
            time.sleep(0.1)
        try:
            from gi.repository import Atspi  # noqa: PLC0415
            # Names, states and children change under us (and Qt's cache
            # updates are not to be trusted): only what never changes for an
            # object is cached.
            self.acc.set_cache_mask(Atspi.Cache.ROLE | Atspi.Cache.INTERFACES)
        except Exception:  # noqa: BLE001
            pass
        self._frame = wait_until(lambda: self._main_frame(), timeout=max(1.0, end - time.monotonic()),
                                 what="the main window (a 'frame' of the app)")
        wait_until(lambda: self.window_id(), timeout=10, what="the main window's X window")
        self.activate()
        if self.fit:
            self.fit_to_screen()

    def _main_frame(self):
        frames = [c for c in children_of(self.acc) if role_of(c) in ("frame", "window")]
        showing = [f for f in frames if has_state(f, "showing") or has_state(f, "visible")]
        pool = showing or frames
        if not pool:
            return None
        # The main window is the largest frame.
        def area(f):
            e = extents(f) or (0, 0, 0, 0)
            return e[2] * e[3]
        return max(pool, key=area)

    # -- the accessibility tree
    @property
    def frame(self):
        if self._frame is None or not role_of(self._frame):
            self._frame = self._main_frame()
        return self._frame

    def title(self) -> str:
        return name_of(self.frame)

    def toplevels(self) -> list:
        return children_of(self.acc)

    def active_dialog(self):
        """A dialog (or any top level other than the main window) that shows, or None."""
        main = self.frame
        main_ext = extents(main)
        for top in children_of(self.acc):
            role = role_of(top)
            if role in ("dialog", "alert", "file chooser") or (role in ("frame", "window") and extents(top) != main_ext):
                if has_state(top, "showing") or has_state(top, "visible"):
                    return top
        return None

    def wait_dialog(self, timeout: float = 10.0, what: str = "a dialog"):
        return wait_until(self.active_dialog, timeout=timeout, what=what)

    def wait_no_dialog(self, timeout: float = 10.0):
        wait_until(lambda: self.active_dialog() is None, timeout=timeout, what="the dialog to close")

    def find(self, role=None, name=None, name_contains=None, root=None, predicate=None, deep=False,
             showing_only=False):
        return find(root if root is not None else self.frame, role, name, name_contains, predicate, deep, showing_only)

    def find_all(self, role=None, name=None, name_contains=None, root=None, predicate=None, deep=False,
                 showing_only=False):
        return find_all(root if root is not None else self.frame, role, name, name_contains, predicate, deep,
                        showing_only)

    def wait_find(self, timeout: float = 10.0, what: str | None = None, **kw):
        desc = what or "an accessible " + ", ".join(f"{k}={v!r}" for k, v in kw.items() if v is not None)
        return wait_until(lambda: self.find(**kw), timeout=timeout, what=desc)

    def dump_tree(self, path) -> None:
        dump_tree(self.acc if self.acc is not None else self.session.desktop, path)

    def cached(self, key: str, finder, valid=None):
        """finder()'s object, remembered under key while it lives (and while
        valid(obj) holds): a walk of the whole tree costs hundreds of calls."""
        obj = self._cache.get(key)
        if obj is not None and states_of(obj) and (valid is None or _retry(lambda: valid(obj), False, tries=1)):
            return obj
        obj = finder()
        if obj is not None:
            self._cache[key] = obj
        return obj

    # -- X window
    def window_id(self) -> str | None:
        out = self.session.xdotool("search", "--onlyvisible", "--pid", str(self.pid), check=False)
        wids = [w for w in out.split() if w.strip()]
        if not wids:
            return None
        title = self.title() if self._frame is not None else ""
        best, best_area = None, -1
        for wid in wids:
            name = self.session.xdotool("getwindowname", wid, check=False).strip()
            if title and name == title:
                self._wid = wid
                return wid
            g = self._geometry_of(wid)
            if g and g[2] * g[3] > best_area:
                best, best_area = wid, g[2] * g[3]
        self._wid = best
        return best

    def _geometry_of(self, wid):
        out = self.session.xdotool("getwindowgeometry", "--shell", wid, check=False)
        values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        try:
            return (int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"]))
        except (KeyError, ValueError):
            return None

    def geometry(self):
        """(x, y, w, h) of the main window (its client area, as X has it)."""
        wid = self._wid or self.window_id()
        g = self._geometry_of(wid) if wid else None
        if g is None:
            wid = self.window_id()
            g = self._geometry_of(wid) if wid else None
        if g is None:
            raise E2EError("cannot read the main window's geometry")
        return g

    def activate(self) -> None:
        wid = self._wid or self.window_id()
        if wid:
            self.session.xdotool("windowactivate", "--sync", wid, check=False, timeout=5)
            self.session.xdotool("windowfocus", "--sync", wid, check=False, timeout=5)

    def resize(self, width: int, height: int) -> None:
        wid = self._wid or self.window_id()
        self.session.xdotool("windowsize", "--sync", wid, str(width), str(height), check=False, timeout=5)
        time.sleep(0.15)

    def frame_extents(self) -> tuple[int, int, int, int]:
        """(left, right, top, bottom) of the window manager's frame around the window."""
        wid = self._wid or self.window_id()
        r = _run(["xprop", "-id", str(wid), "_NET_FRAME_EXTENTS"], env=self.session.env, timeout=5)
        m = re.search(r"=\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)", r.stdout)
        return tuple(int(v) for v in m.groups()) if m else (0, 0, 0, 0)

    def fit_to_screen(self) -> None:
        """Make the window fill the screen, frame included (as maximising it would)."""
        left, right, top, bottom = self.frame_extents()
        width = self.session.width - left - right
        height = self.session.height - top - bottom
        self.move_window(left, top)
        self.resize(width, height)
        wait_until(lambda: self.geometry()[2:] == (width, height), timeout=3)

    def move_window(self, x: int, y: int) -> None:
        wid = self._wid or self.window_id()
        self.session.xdotool("windowmove", "--sync", wid, str(x), str(y), check=False, timeout=5)
        time.sleep(0.1)

    # -- input
    def key(self, *keys: str) -> None:
        self.session.key(*keys)

    def type_text(self, text: str) -> None:
        self.session.type_text(text)

    def click(self, x, y, button=1, double=False) -> None:
        self.session.click(x, y, button=button, double=double)

    def scroll_into_view(self, obj, tries: int = 20) -> None:
        """Wheel the scroll area obj sits in (at its left margin, away from
        combo boxes that a wheel would change) until obj shows whole."""
        for _ in range(tries):
            area = clipping_area(obj)
            rect = extents(obj)
            if area is None or contains(area, rect):
                return
            self.session.move(area[0] + 3, area[1] + area[3] // 2)
            below = rect[1] + rect[3] > area[1] + area[3]
            self.session.xdotool("click", "5" if below else "4")
            time.sleep(0.15)

    def click_widget(self, obj, button=1, double=False, dx=None, dy=None) -> None:
        e = extents(obj)
        if not e or e[2] <= 0 or e[3] <= 0 or e[0] < 0 or e[1] < 0:
            raise E2EError(f"cannot click [{role_of(obj)}] {name_of(obj)!r}: it is not on the screen ({e})")
        x = e[0] + (e[2] // 2 if dx is None else dx)
        y = e[1] + (e[3] // 2 if dy is None else dy)
        self.click(x, y, button=button, double=double)

    def screenshot(self, path) -> Path:
        return self.session.screenshot(path)

    def wait_until(self, predicate, timeout: float = 10.0, what: str | None = None):
        return wait_until(predicate, timeout=timeout, what=what)

    # -- menus
    def menu_bar(self):
        return self.cached("menu bar", lambda: wait_until(lambda: self.find(role="menu bar"), timeout=5,
                                                          what="the menu bar"))

    def top_menus(self) -> list:
        return [c for c in children_of(self.menu_bar()) if role_of(c) in ("menu", "menu item")]

    def _menu_entry(self, parent, name):
        for c in children_of(parent):
            if role_of(c) in ("menu", "menu item", "check menu item", "radio menu item") and \
                    _normal(name_of(c)) == _normal(name):
                return c
        return None

    @staticmethod
    def menu_items(menu) -> list:
        """The entries of a menu: Qt puts them in a 'popup menu' child of the
        menu-bar item (or of the submenu's item)."""
        out = []
        for c in children_of(menu):
            role = role_of(c)
            if role in ("popup menu", "menu") and not name_of(c):
                out.extend(App.menu_items(c))
            elif role in ("menu item", "check menu item", "radio menu item", "menu"):
                out.append(c)
        return out

    def menu_item_names(self, *path: str) -> list[str]:
        node = self.menu_bar()
        for name in path:
            entry = self._menu_entry(node, name) if node is not None else None
            if entry is None:
                # Qt may nest the popup 'menu' under the bar's 'menu item'.
                for c in self.menu_items(node):
                    if _normal(name_of(c)) == _normal(name):
                        entry = c
                        break
            if entry is None:
                raise E2EError(f"no menu entry {name!r} under {name_of(node)!r}; there are: "
                               + ", ".join(repr(name_of(c)) for c in self.menu_items(node)))
            node = entry
        return [name_of(c) for c in self.menu_items(node)]

    def open_menu(self, name: str):
        """Click a menu-bar entry; returns its accessible (the popup shows)."""
        bar = self.menu_bar()
        entry = self._menu_entry(bar, name)
        if entry is None:
            raise E2EError(f"no menu {name!r} in the menu bar; there are: "
                           + ", ".join(repr(name_of(c)) for c in children_of(bar)))
        self.click_widget(entry)
        wait_until(lambda: any(has_state(i, "showing") for i in self.menu_items(entry)), timeout=5,
                   what=f"the {name} menu to open")
        return entry

    def menu(self, *path: str) -> None:
        """Choose a menu item the way a person does: click the menu, then the item
        (a submenu opens under the pointer). Falls back to the Action interface."""
        entry = self.open_menu(path[0])
        node = entry
        for i, name in enumerate(path[1:]):
            item = None
            for c in self.menu_items(node):
                if _normal(name_of(c)) == _normal(name):
                    item = c
                    break
            if item is None:
                names = [name_of(c) for c in self.menu_items(node)]
                self.key("Escape", "Escape", "Escape")
                raise E2EError(f"no item {name!r} in menu {' > '.join(path[:i + 1])}; it has {names}")
            if not has_state(item, "enabled") and not has_state(item, "sensitive"):
                self.key("Escape", "Escape", "Escape")
                raise E2EError(f"menu item {' > '.join(path[:i + 2])} is disabled")
            e = extents(item)
            if e and e[2] > 0 and e[3] > 0 and has_state(item, "showing"):
                self.click_widget(item)
            else:
                do_action(item)
            last = i == len(path) - 2
            if not last:
                wait_until(lambda item=item: any(has_state(c, "showing") for c in self.menu_items(item)),
                           timeout=5, what=f"submenu {name!r} to open")
            node = item
        time.sleep(0.2)


# --------------------------------------------------------------------------
# Keys, text widths, images (ImageMagick: Debian's python has no PIL by default)


_KEYS = {"=": "equal", "+": "plus", "-": "minus", ",": "comma", ".": "period", "/": "slash", ";": "semicolon",
         "'": "apostrophe", "[": "bracketleft", "]": "bracketright", "\\": "backslash", "`": "grave",
         "del": "Delete", "delete": "Delete", "esc": "Escape", "escape": "Escape", "return": "Return",
         "enter": "Return", "ins": "Insert", "insert": "Insert", "pgup": "Prior", "pgdown": "Next",
         "backspace": "BackSpace", "space": "space", "tab": "Tab", "home": "Home", "end": "End", "left": "Left",
         "right": "Right", "up": "Up", "down": "Down", "backtab": "ISO_Left_Tab", "print": "Print"}
_MODS = {"ctrl": "ctrl", "control": "ctrl", "shift": "shift", "alt": "alt", "meta": "super", "super": "super"}


def qt_key_to_xdotool(sequence: str) -> list[str]:
    """'Ctrl+Shift+Z' -> ['ctrl+shift+z']; 'Ctrl+K, Ctrl+D' -> two chords."""
    chords = []
    for chord in [c.strip() for c in sequence.split(", ") if c.strip()]:
        parts = re.split(r"(?<!^)\+(?!$)", chord) if chord != "+" else ["+"]
        out = []
        for p in parts:
            low = p.lower()
            if low in _MODS:
                out.append(_MODS[low])
            elif p in _KEYS:
                out.append(_KEYS[p])
            elif low in _KEYS:
                out.append(_KEYS[low])
            elif re.fullmatch(r"[Ff]\d{1,2}", p):
                out.append(p.upper())
            elif len(p) == 1:
                out.append(p.lower())
            else:
                out.append(p)
        chords.append("+".join(out))
    return chords


_WIDTHS: dict[tuple[str, float], int] = {}


def text_width(text: str, points: float = 9.0, font: str = "DejaVu-Sans") -> int:
    """Pixels the text takes in the UI font (Qt's default on a bare X server:
    DejaVu Sans 9 pt at 96 dpi), measured by ImageMagick."""
    key = (text, points)
    if key not in _WIDTHS:
        if not text.strip():
            return 0
        label = text.replace("%", "%%")
        if label.startswith("@"):
            label = "\\" + label
        r = _run(["convert", "-density", "96", "-pointsize", str(points), "-font", font, "label:" + label,
                  "-format", "%w", "info:"], timeout=10)
        try:
            _WIDTHS[key] = int(r.stdout.strip())
        except ValueError:
            _WIDTHS[key] = int(len(text) * points * 0.7)
    return _WIDTHS[key]


def edge_fraction(png: Path, region) -> float:
    """Share of the pixels of region (x, y, w, h) of a screenshot that are edges
    (text, lines, node outlines): 0 where there is only flat colour."""
    x, y, w, h = region
    if w <= 2 or h <= 2:
        return 0.0
    r = _run(["convert", str(png), "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-colorspace", "gray", "-edge", "1",
              "-threshold", "15%", "-format", "%[fx:mean]", "info:"], timeout=20)
    try:
        return float(r.stdout.strip())
    except ValueError:
        return 0.0
