"""Issue 24 item 2: every shortcut works (none is bound twice); Ctrl+Z / Ctrl+Shift+Z undo and redo."""

import re
import time

from harness import App, actions_of, has_state, name_of, qt_key_to_xdotool, wait_until
from scenario_support import check_box, is_checked, timeout, toggle_check_box, wait_title

MNEMONIC = re.compile(r"^Alt\+\w$")
# Items whose shortcut must open a dialog: a dead key shows there.
OPENS_DIALOG = {"Open...", "Save As...", "Profile Transfers...", "Import ETDump..."}


def menu_shortcuts(app: App):
    """[(menu path, Qt key text)] of every menu item with a shortcut: the
    Action interface's key binding, or a key hint after a tab in the name."""
    found = []

    def walk(node, path):
        for item in App.menu_items(node):
            name = name_of(item)
            label = name.split("\t")[0].replace("&", "").replace("\u2026", "...")
            keys = set()
            for _, binding in actions_of(item):
                for b in (binding or "").split(";"):
                    b = b.strip()
                    if b and not MNEMONIC.match(b):
                        keys.add(b)
            if "\t" in name:
                keys.add(name.split("\t", 1)[1].strip())
            for k in sorted(keys):
                found.append((path + [label], k, has_state(item, "enabled") or has_state(item, "sensitive")))
            if App.menu_items(item):
                walk(item, path + [label])

    for top in app.top_menus():
        walk(top, [name_of(top)])
    return found


def close_dialogs(app: App, limit: int = 4) -> list[str]:
    """Escape whatever the key opened; returns the titles of what was open."""
    opened = []
    for _ in range(limit):
        dialog = app.active_dialog()
        if dialog is None:
            break
        opened.append(name_of(dialog))
        app.key("Escape")
        wait_until(lambda d=dialog: app.active_dialog() is not d, timeout=2)
    return opened


@timeout(120)
def scenario_shortcuts_unique(ctx):
    """Item 2: press every menu shortcut; the app never logs "Ambiguous shortcut" and the dialog ones open their dialog."""
    demo = ctx.demo()
    app = ctx.open(demo)
    shortcuts = menu_shortcuts(app)
    ctx.check(shortcuts, "no menu item has a shortcut")
    ctx.note("shortcuts: " + ", ".join(f"{' > '.join(p)}={k}" for p, k, _ in shortcuts))
    quit_keys = [s for s in shortcuts if s[0][-1].lower().startswith("quit")]
    for path, key, enabled in shortcuts:
        if (path, key, enabled) in quit_keys or path[-1].lower().startswith("close"):
            continue
        close_dialogs(app)
        app.activate()
        app.key(*qt_key_to_xdotool(key))
        time.sleep(0.4)
        opened = close_dialogs(app)
        if path[-1] in OPENS_DIALOG and enabled:
            ctx.expect(opened, f"{key} ({' > '.join(path)}) did nothing: its dialog did not open")
    log = app.log()
    ambiguous = sorted({line.strip() for line in log.splitlines() if "Ambiguous shortcut" in line})
    ctx.expect(not ambiguous, "the app logged: " + "; ".join(ambiguous))
    # Quit last: the key closes the window.
    if quit_keys:
        _, key, _ = quit_keys[0]
        close_dialogs(app)
        app.activate()
        app.key(*qt_key_to_xdotool(key))
        deadline = time.monotonic() + 8
        while app.alive() and time.monotonic() < deadline:
            dialog = app.active_dialog()
            if dialog is not None:  # a prompt about edits the keys made: discard them
                from harness import find
                button = find(dialog, role="push button", name="Discard")
                if button is not None:
                    app.click_widget(button)
            time.sleep(0.2)
        ctx.expect(not app.alive(), f"{key} (Quit) did not close the app")


@timeout(60)
def scenario_undo_redo_keys(ctx):
    """Item 2: an edit (a Pass options check box), Ctrl+Z undoes it, Ctrl+Shift+Z redoes it."""
    demo = ctx.demo()
    app = ctx.open(demo)
    option = "alloc_graph_output"
    before = is_checked(check_box(app, option))
    after = toggle_check_box(app, option)
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after the edit")
    app.key("ctrl+z")
    undone = wait_until(lambda: is_checked(check_box(app, option)) == before and "*" not in app.title(), timeout=5)
    ctx.expect(undone, f"Ctrl+Z did not undo the edit ({option} {'checked' if after else 'unchecked'}, "
                       f"title {app.title()!r})")
    app.key("ctrl+shift+z")
    redone = wait_until(lambda: is_checked(check_box(app, option)) == after and "*" in app.title(), timeout=5)
    ctx.expect(redone, f"Ctrl+Shift+Z did not redo the edit ({option} "
                       f"{'checked' if is_checked(check_box(app, option)) else 'unchecked'}, title {app.title()!r})")
    ambiguous = [line for line in app.log().splitlines() if "Ambiguous shortcut" in line]
    ctx.expect(not ambiguous, "the app logged: " + "; ".join(ambiguous))
