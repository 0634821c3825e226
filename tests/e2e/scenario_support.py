"""What scenarios share: the context a scenario gets, and helpers that know
where things are in ptescope's window (found through the accessibility tree,
by the accessible names a person or a screen reader would use)."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import harness
from harness import (App, E2EError, extents, find, find_all, has_state, name_of, role_of, table_headers,
                     table_rows, text_of, wait_until)

SAMPLES = harness.REPO.parent / "shared" / "pte-samples"


def sizes(*pairs):
    """@sizes((1000, 700), (1600, 1000)): run the scenario at each window size."""
    def mark(fn):
        fn.sizes = list(pairs)
        return fn
    return mark


def timeout(seconds: int):
    def mark(fn):
        fn.timeout = seconds
        return fn
    return mark


BOTH_SIZES = ((1000, 700), (1600, 1000))


class Ctx:
    """What a scenario function gets: ctx.session, ctx.app(...), ctx.cli(...), ctx.tmp, checks."""

    def __init__(self, session: harness.Session, name: str, artifacts: Path):
        self.session = session
        self.name = name
        self.artifacts = artifacts
        self.width, self.height = session.width, session.height
        self.tmp = session.tmp / "work"
        self.tmp.mkdir(exist_ok=True)
        self.notes: list[str] = []
        self.problems: list[str] = []
        self.apps: list[App] = []
        self._programs: dict[str, Path] = {}

    # -- apps and programs
    def app(self, *args, home=None, env=None, cwd=None, wait=True, fit=True) -> App:
        """Start the app (in ctx.tmp); with fit, its window then fills the
        screen, as a person maximising it would."""
        app = App(self.session, args=list(args), home=home, env=env, cwd=cwd or self.tmp, wait=wait, fit=fit)
        self.apps.append(app)
        return app

    def open(self, program, home=None, env=None, timeout_s: float = 10.0) -> App:
        """Start the app on `program` and wait until its title names the file
        (the program is then loaded and shown)."""
        app = self.app(program, home=home, env=env)
        name = Path(program).name
        wait_title(app, lambda t: name in t, timeout_s=timeout_s, what=f"the title to name {name}")
        return app

    def new_home(self) -> Path:
        return harness.make_home(self.session.tmp)

    def cli(self, *args, check=True, timeout=120.0):
        return harness.cli(*args, check=check, timeout=timeout)

    def synth(self, name: str, *args) -> Path:
        """ptescope-cli synth ARGS -o TMP/name.pte (cached within the scenario)."""
        key = name + " " + " ".join(map(str, args))
        if key not in self._programs:
            out = self.tmp / (name if name.endswith(".pte") else name + ".pte")
            self.cli("synth", *args, "-o", out)
            self._programs[key] = out
        return self._programs[key]

    def demo(self, name: str = "demo") -> Path:
        return self.synth(name, "--demo")

    def synth_spec(self, name: str, spec: dict, *args) -> Path:
        spec_path = self.tmp / f"{name}.json"
        spec_path.write_text(json.dumps(spec))
        return self.synth(name, str(spec_path), *args)

    def dump(self, program: Path) -> dict:
        return json.loads(self.cli("dump", program, "--json").stdout)

    # -- checks
    def check(self, condition, message: str) -> None:
        if not condition:
            raise E2EError(message)

    def fail(self, message: str):
        raise E2EError(message)

    def expect(self, condition, message: str) -> bool:
        """A soft check: recorded, the scenario goes on; finish() fails with all of them."""
        if not condition:
            self.problems.append(message)
            self.note("problem: " + message)
        return bool(condition)

    def finish(self) -> None:
        if self.problems:
            more = f" (+{len(self.problems) - 1} more: " + "; ".join(self.problems[1:4]) + ")" \
                if len(self.problems) > 1 else ""
            raise E2EError(self.problems[0] + more)

    def note(self, message: str) -> None:
        self.notes.append(message)

    def shot(self, name: str) -> Path:
        return self.session.screenshot(self.artifacts / f"{name}.png")

    # -- artifacts
    def save_failure_artifacts(self) -> None:
        for i, app in enumerate(self.apps):
            if app.alive() and app.acc is not None:
                app.dump_tree(self.artifacts / ("tree.txt" if i == len(self.apps) - 1 else f"tree-app{i}.txt"))

    def save_logs(self) -> None:
        for app in self.apps:
            self.notes.extend(app.session_notes)
            app.session_notes = []
        for i, app in enumerate(self.apps):
            try:
                shutil.copyfile(app.log_path, self.artifacts / f"app{i}.log")
            except OSError:
                pass
        if self.notes:
            (self.artifacts / "notes.txt").write_text("\n".join(self.notes) + "\n")


# --------------------------------------------------------------------------
# ptescope's window, as the accessibility tree shows it

_TABLE_LIKE = ("tree table", "table", "tree", "list")


def panel_table(app: App, name: str, timeout_s: float = 10.0):
    """The table or tree table with this accessible name; else the one inside
    a container (dock, tab page) of that name."""
    def look():
        direct = app.find(role=_TABLE_LIKE, name=name)
        if direct is not None:
            return direct
        for holder in app.find_all(name=name):
            if role_of(holder) in _TABLE_LIKE:
                return holder
            inner = find(holder, role=_TABLE_LIKE)
            if inner is not None and has_state(inner, "showing"):
                return inner
        return None
    return wait_until(look, timeout=timeout_s, what=f"a table named {name!r}")


def properties_panel(app: App):
    """The Properties panel (a tree table, accessible name "Properties"; before
    it had that name, the tree inside the dock titled Properties)."""
    cached = getattr(app, "_properties", None)
    if cached is not None and role_of(cached) and harness.on_screen(cached):
        return cached
    show_dock_tab(app, "Properties")
    app._properties = panel_table(app, "Properties")
    return app._properties


def properties_rows(app: App) -> list[list[str]]:
    rows = table_rows(properties_panel(app))
    return [r + [""] * (2 - len(r)) for r in rows]


def property_value(app: App, key: str) -> str | None:
    for row in properties_rows(app):
        if row[0] == key:
            return row[1]
    return None


def show_dock_tab(app: App, name: str) -> None:
    """Raise a tabified dock (Properties / Pass options) by clicking its tab."""
    for tab in app.find_all(role="page tab", name=name):
        if harness.on_screen(tab) and not tab_is_current(tab):
            app.click_widget(tab)
            time.sleep(0.3)
            return


def tab_is_current(tab) -> bool:
    # Qt marks the current tab of a tab bar "focused" (and not "selected").
    return has_state(tab, "selected") or has_state(tab, "focused")


def bottom_tab(app: App, name: str):
    """Bring a panel of the Details dock to the front (Values, Transfers, ...); returns the page tab."""
    tab = app.cached("tab " + name, lambda: wait_until(
        lambda: next((t for t in app.find_all(role="page tab") if name_of(t).startswith(name)), None),
        timeout=5, what=f"the {name!r} tab"), valid=lambda t: name_of(t).startswith(name))
    if not tab_is_current(tab):
        app.click_widget(tab)
        wait_until(lambda: tab_is_current(tab), timeout=5, what=f"the {name!r} tab to be selected")
    return tab


def tab_table(app: App, tab_name: str, table_name: str | None = None):
    """The table shown in a Details tab (Qt puts the pages beside the tab bar,
    not under the tab: the showing table in the tab widget)."""
    tab = bottom_tab(app, tab_name)
    holder = harness.parent_of(harness.parent_of(tab))  # page tab -> page tab list -> tab widget

    def look():
        if table_name:
            named = [t for t in app.find_all(role=_TABLE_LIKE, name=table_name) if harness.on_screen(t)]
            if named:
                return named[0]
        inner = [t for t in find_all(holder if holder is not None else app.frame, role=_TABLE_LIKE)
                 if harness.on_screen(t)]
        return inner[0] if inner else None
    return wait_until(look, timeout=5, what=f"the table of the {tab_name!r} tab")


def choose_in_combo(app: App, combo, value: str) -> dict:
    """Open a combo box with a click, click the item named value; returns
    {item name: its accessible description} of the open list."""
    app.scroll_into_view(combo)
    app.click_widget(combo)
    lst = wait_until(lambda: next((c for c in harness.children_of(combo) if role_of(c) in ("list", "menu")), None),
                     timeout=3, what="the combo box's list")
    items = wait_until(lambda: [i for i in harness.children_of(lst) if harness.on_screen(i)], timeout=3,
                       what="the combo box's list to open")
    descriptions = {name_of(i): harness.description_of(i) for i in items}
    item = next((i for i in items if name_of(i) == value), None)
    if item is None:
        app.key("Escape")
        raise E2EError(f"no {value!r} in the combo box; it offers {list(descriptions)}")
    app.click_widget(item)
    time.sleep(0.3)
    return descriptions


def find_field(app: App):
    """The Find box of the tool bar."""
    return app.cached("find field", lambda: _find_field(app))


def _find_field(app: App):
    def look():
        for field in app.find_all(role=("text", "entry")):
            label = (name_of(field) + " " + harness.description_of(field)).lower()
            if "find" in label:
                return field
        return None
    return wait_until(look, timeout=5, what="the Find box (a text field named 'Find')")


def labelled(app: App, key: str, root=None):
    """The on-screen object the app marks as `key`: its accessible description
    is `key` (then its name is its text, what a screen reader reads), or else
    its accessible name is `key`."""
    base = root if root is not None else app.frame
    for o in harness.walk(base):
        if harness.description_of(o) == key and harness.on_screen(o):
            return o
    for o in find_all(base, name=key):
        if harness.on_screen(o) and role_of(o) not in ("page tab", "menu item"):
            return o
    return None


def label_text(obj, key: str) -> str | None:
    """What a label shows, as AT-SPI gives it: its name, unless the name is
    only the key that marks it; then its description, unless that is the key
    or empty. Qt 6.4 gives a QLabel no Text interface, so a label whose
    accessible name is set to "Find status" and whose description is not its
    text hides its text from screen readers (and from this suite): None then."""
    if obj is None:
        return None
    name = name_of(obj)
    if name and name != key:
        return name
    description = harness.description_of(obj)
    if description and description != key:
        return description
    text = harness.field_text(obj)
    return text or None


LABEL_CONTRACT = ("Qt 6.4 gives a QLabel no Text interface: a label whose accessible name is set to its role hides "
                  "its text. Contract: the label's name stays its text and its accessible description names its "
                  "role, or the name names the role and the description carries the text")


def wrapped_lines(text: str, width: int, hyphens: bool = False) -> int:
    """Lines `text` takes wrapped at its spaces (and after its hyphens, as Qt's
    item views break "ptescope-cli") in `width` px of the UI font (ImageMagick's measure)."""
    lines, line = 1, ""
    for word in (re.sub(r"-(?=\w)", "- ", text) if hyphens else text).split():
        trial = f"{line} {word}" if line else word
        if line and harness.text_width(trial) > width:
            lines, line = lines + 1, word
        else:
            line = trial
    return lines


# A line of the UI font (DejaVu Sans 9 pt at 96 dpi), in pixels.
LINE_PX = 14


def find_status(app: App):
    """The label next to Find that says "1 of 3" / "Not found" (contract: description or name "Find status")."""
    return labelled(app, "Find status")


def graph_selection(app: App) -> str:
    """What the graph says is selected: its accessible description ("Selected: #2 embedding", "Nothing selected")."""
    return harness.description_of(graph_view(app))


def find_text(app: App, text: str, enter: bool = False) -> None:
    app.key("ctrl+f")
    field = find_field(app)
    wait_until(lambda: has_state(field, "focused"), timeout=3, what="the Find box to take the focus (Ctrl+F)")
    app.key("ctrl+a", "BackSpace")
    if text:
        app.type_text(text)
    if enter:
        app.key("Return")


def select_instruction(app: App, k: int, timeout_s: float = 6.0) -> None:
    """Select instruction K as a person does: Ctrl+F, type #K, Enter; the
    Properties panel then shows "Instruction | K"."""
    find_text(app, f"#{k}", enter=True)
    def shown():
        return property_value(app, "Instruction") == str(k)
    if wait_until(shown, timeout=timeout_s / 2):
        return
    # Pre-fix builds select the first of several matches as one types and
    # go to the next on Enter: step through them.
    for _ in range(4):
        app.key("Return")
        if wait_until(shown, timeout=1.0):
            return
    raise E2EError(f"Find '#{k}' + Enter did not select instruction {k} (Properties shows instruction "
                   f"{property_value(app, 'Instruction')!r})")


def check_box(app: App, name_contains: str):
    """A check box of the Pass options panel (raised first)."""
    def look():
        return app.cached("check box " + name_contains,
                          lambda: next((c for c in app.find_all(role="check box", name_contains=name_contains)
                                        if harness.on_screen(c)), None),
                          valid=harness.on_screen)
    box = wait_until(look, timeout=1)
    if box is None:
        show_dock_tab(app, "Pass options")
        box = wait_until(look, timeout=5, what=f"a check box {name_contains!r} in Pass options")
    return box


def is_checked(obj) -> bool:
    return has_state(obj, "checked")


def toggle_check_box(app: App, name_contains: str) -> bool:
    """Click it; returns the new state once the app shows it."""
    box = check_box(app, name_contains)
    before = is_checked(box)
    app.scroll_into_view(box)
    app.click_widget(box, dx=9)  # the box itself, at the left
    wait_until(lambda: is_checked(check_box(app, name_contains)) != before, timeout=5,
               what=f"{name_contains} to change state")
    return not before


def wait_title(app: App, predicate, timeout_s: float = 10.0, what: str = "the window title"):
    return wait_until(lambda: predicate(app.title()), timeout=timeout_s, what=what)


def status_bar(app: App):
    return app.cached("status bar", lambda: app.wait_find(role="status bar", timeout=5))


def file_dialog_open(app: App, path: Path, how: str = "menu") -> None:
    """File > Open..., type the path into the dialog's file-name field, Enter."""
    if how == "menu":
        app.menu("File", "Open...")
    else:
        app.key("ctrl+o")
    dialog = app.wait_dialog(what="the Open dialog")
    type_into_file_dialog(app, dialog, str(path))


def answer_file_dialog(ctx, app: App, dialog, path, what: str) -> None:
    """Type `path` into a file dialog and accept it; a question the app asks
    after that (overwrite, findings) fails the scenario, saying what it was."""
    type_into_file_dialog(app, dialog, str(path))
    time.sleep(0.5)
    extra = app.active_dialog()
    if extra is not None:
        ctx.fail(f"after {what}, a dialog {name_of(extra)!r} asks: {dialog_text(extra)[:200]!r}")


def type_into_file_dialog(app: App, dialog, text: str) -> None:
    """Type a path into a file dialog's file-name field and press Enter; waits
    until that dialog is gone (another one, such as a question, may follow)."""
    title = name_of(dialog)
    field = None
    for f in find_all(dialog, role=("text", "entry")):
        label = name_of(f).lower()
        if "name" in label or "file" in label:
            field = f
            break
    if field is None:
        fields = [f for f in find_all(dialog, role=("text", "entry")) if has_state(f, "showing")]
        field = fields[-1] if fields else None
    if field is not None and not has_state(field, "focused"):
        app.click_widget(field)
    app.key("ctrl+a", "BackSpace")
    app.type_text(text)
    time.sleep(0.3)
    app.key("Return")
    def closed():
        shown = app.active_dialog()
        return shown is None or name_of(shown) != title
    wait_until(closed, timeout=10, what=f"the {title!r} dialog to close")


def dialog_text(dialog) -> str:
    parts = []
    for o in find_all(dialog, role=("label", "text", "paragraph")):
        parts.append(text_of(o))
    return "\n".join(p for p in parts if p)


def push_buttons(root) -> list[str]:
    return [name_of(b) for b in find_all(root, role="push button")]


def profile_menu_item(app: App):
    entry = app._menu_entry(app.menu_bar(), "Profile")
    for item in App.menu_items(entry):
        if name_of(item).replace("&", "").startswith("Profile Transfers"):
            return item
    raise E2EError("no Profile > Profile Transfers... menu item")


def run_profile(app: App, expect_compare: bool = False, timeout_s: float = 60.0) -> None:
    """Profile > Profile Transfers..., accept the dialog's defaults, wait for the
    run to end (the menu item is enabled again) and the Transfers table's measured
    columns; with expect_compare, for the totals to compare with the previous run."""
    app.menu("Profile", "Profile Transfers...")
    dialog = app.wait_dialog(what="the Profile transfers dialog")
    button = find(dialog, role="push button", name="Profile")
    if button is not None:
        app.click_widget(button)
    else:
        app.key("Return")
    app.wait_no_dialog(timeout=10)
    item = profile_menu_item(app)
    wait_until(lambda: has_state(item, "enabled"), timeout=timeout_s, what="the profile to finish")
    table = tab_table(app, "Transfers", "Transfers")
    wait_until(lambda: "median" in " ".join(table_headers(table)).lower(), timeout=10,
               what="the Transfers table's measured columns")
    if expect_compare:
        def compared():
            headers = " | ".join(table_headers(table)).lower()
            if "previous" in headers or "\u0394" in headers:
                return "columns"
            totals = label_text(labelled(app, "Transfer totals"), "Transfer totals")
            if totals is None:
                return "unreadable"
            return "totals" if "previous" in totals.lower() else None
        how = wait_until(compared, timeout=10)
        if how is None:
            raise E2EError("after a second profile, Transfers shows no comparison with the previous one "
                           "(no 'previous' column, no 'vs previous' in the totals)")
        if how == "unreadable":
            app.session_notes.append("the Transfers totals label's text cannot be read: the comparison is not checked")
    time.sleep(0.3)


# --------------------------------------------------------------------------
# Programs

SCALAR_TYPES = {"BYTE": "uint8", "CHAR": "int8", "SHORT": "int16", "INT": "int32", "LONG": "int64",
                "HALF": "float16", "FLOAT": "float32", "DOUBLE": "float64", "BOOL": "bool", "BFLOAT16": "bfloat16"}


def instruction_values(dump: dict, k: int, plan: int = 0) -> tuple[list[int], set[int], set[int], str]:
    """(args in order, every value the instruction refers to (args + list members),
    the tensor-typed ones of those, kind) of instruction K of the plan's first chain."""
    method = dump["execution_plan"][plan]
    values = method.get("values", [])
    ins = method["chains"][0]["instructions"][k]
    kind = ins.get("instr_args_type", "")
    a = ins.get("instr_args", {})
    if kind in ("KernelCall", "DelegateCall"):
        args = list(a.get("args", []))
    elif kind == "MoveCall":
        args = [a.get("move_from"), a.get("move_to")]
    elif kind == "JumpFalseCall":
        args = [a.get("cond_value_index")]
    elif kind == "FreeCall":
        args = [a.get("value_index")]
    else:
        args = []
    args = [v for v in args if isinstance(v, int)]
    referred: set[int] = set()
    tensors: set[int] = set()
    for v in args:
        referred.add(v)
        if 0 <= v < len(values):
            value = values[v]
            vt = value.get("val_type")
            if vt == "Tensor":
                tensors.add(v)
            elif vt in ("TensorList", "OptionalTensorList", "IntList"):
                for item in value.get("val", {}).get("items", []):
                    if isinstance(item, int) and item >= 0:
                        referred.add(item)
                        if 0 <= item < len(values) and values[item].get("val_type") == "Tensor":
                            tensors.add(item)
    return args, referred, tensors, kind


def tensor_type_text(dump: dict, v: int, plan: int = 0) -> str | None:
    """float32[1,64] for a tensor value."""
    values = dump["execution_plan"][plan].get("values", [])
    if not (0 <= v < len(values)) or values[v].get("val_type") != "Tensor":
        return None
    t = values[v]["val"]
    dtype = SCALAR_TYPES.get(str(t.get("scalar_type", "")), str(t.get("scalar_type", "")).lower())
    return f"{dtype}[{','.join(str(s) for s in t.get('sizes', []))}]"


VALUE_REF = re.compile(r"%(\d+)")


def instruction_count(dump: dict, plan: int = 0) -> int:
    return len(dump["execution_plan"][plan]["chains"][0].get("instructions", []))


def graph_view(app: App):
    """The graph (the central widget; contract: accessible name "Graph"). Before
    it had that name: the largest on-screen pane that holds no table."""
    return app.cached("graph", lambda: _graph_view(app), valid=harness.on_screen)


def _graph_view(app: App):
    named = [o for o in app.find_all(name="Graph") if harness.on_screen(o) and role_of(o) != "page tab"]
    if named:
        return named[0]
    best, area = None, -1
    for o in app.find_all(role=("scroll pane", "canvas", "layered pane", "viewport", "image")):
        if not harness.on_screen(o) or find(o, role=_TABLE_LIKE) is not None:
            continue
        e = extents(o)
        if e[2] * e[3] > area:
            best, area = o, e[2] * e[3]
    if best is None:
        raise E2EError("cannot find the graph view (contract: accessible name 'Graph')")
    return best


_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")


def zoom_percent(app: App) -> float | None:
    """The graph's zoom as the app shows it, None when it does not (or hides
    the number). Contract: an accessible object marked "Zoom" (its name, or
    a description starting with "Zoom" or speaking of the graph's scale) whose
    name or description reads "125%"; 100% draws node titles at the UI font's
    size. The Graph's own description may say "zoom 125%" instead."""
    def marked(o):
        d = harness.description_of(o).lower()
        return name_of(o) == "Zoom" or d.startswith("zoom") or "graph's scale" in d
    texts = []
    for o in app.find_all(predicate=marked):
        if role_of(o) in ("menu item", "push button") or not harness.on_screen(o):
            continue
        texts += [name_of(o), harness.description_of(o)]
        try:
            texts.append(str(o.queryValue().currentValue) + "%")
        except Exception:  # noqa: BLE001 - no Value interface
            pass
    try:
        d = harness.description_of(graph_view(app))
        if "zoom" in d.lower():
            texts.append(d[d.lower().index("zoom"):])
    except E2EError:
        pass
    for t in texts:
        m = _PERCENT.search(t or "")
        if m:
            return float(m.group(1))
    return None


def set_target_device(app: App, delegate: int, value: str) -> None:
    """Pass options, the chooser "Target device of delegate N (...)": picks `value` and waits
    for the title's '*' (the edit made)."""
    show_dock_tab(app, "Pass options")
    time.sleep(0.3)
    prefix = f"Target device of delegate {delegate}"
    target = wait_until(lambda: next((c for c in app.find_all(role="combo box")
                                      if name_of(c).startswith(prefix) and harness.on_screen(c)), None),
                        timeout=5, what=f"the target-device chooser of delegate {delegate}")
    choose_in_combo(app, target, value)
    wait_title(app, lambda t: "*" in t, what="the title to show the edit")


def focused_widget(app: App):
    """The object that has the keyboard focus (the innermost focused one; a
    table counts as itself, not its cell). Tabs of a tab bar are skipped: Qt
    marks the current tab "focused"."""
    last = None
    for top in [app.frame] + [t for t in app.toplevels() if t is not app.frame]:
        for o in harness.walk(top):
            if role_of(o) in ("page tab", "frame", "dialog", "window", "application"):
                continue
            if has_state(o, "focused") and harness.on_screen(o):
                last = o
    return last


_SCENARIOS: list[str] | None = None


def synth_scenarios() -> list[str]:
    global _SCENARIOS
    if _SCENARIOS is None:
        out = harness.cli("synth", "--list-scenarios").stdout
        _SCENARIOS = [line.split()[0] for line in out.splitlines() if line.strip() and not line.startswith(" ")]
    return _SCENARIOS


def _pick_scenario(self, preferred=("cross_device", "single_delegate")) -> str:
    names = synth_scenarios()
    for p in preferred:
        if p in names:
            return p
    if not names:
        raise E2EError("ptescope-cli synth --list-scenarios lists nothing")
    return names[0]


Ctx.pick_scenario = _pick_scenario
