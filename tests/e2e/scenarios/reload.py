"""Issue 27, part 3: a program re-exported while it is open, as a person meets it.

Contracts:
  - with unsaved edits, a bar (a label named "File changed on disk" whose
    description is its text) says "<file> changed on disk" and that the edits
    stay; the program and the edits do not change until "Reload" is clicked;
  - Reload reads the new file, applies the edits to it (the title keeps its
    "*") and Ctrl+Z still takes the edit back;
  - without unsaved edits, the file is reloaded at once and the bar does not
    show.
"""

import time

from harness import on_screen, wait_until
from scenario_support import (BOTH_SIZES, check_box, is_checked, label_text, labelled, show_dock_tab, sizes,
                              timeout, toggle_check_box, wait_title)

BAR = "File changed on disk"


def bar_text(app) -> str | None:
    label = labelled(app, BAR)
    return label_text(label, BAR) if label is not None else None


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_reload_bar_keeps_the_edits(ctx):
    """Issue 27: re-exported while edited, the bar offers Reload; nothing changes until it is clicked; Reload keeps the edit, undoable."""
    program = ctx.synth("watched", "--scenario", "h2d_d2h")
    app = ctx.open(program)
    show_dock_tab(app, "Pass options")
    ctx.check(toggle_check_box(app, "skip_h2d_for_method_inputs"), "skip_h2d_for_method_inputs did not get set")
    wait_title(app, lambda t: "*" in t, what="the title to mark the edit")

    # A script exports the program again (written aside and renamed over it).
    time.sleep(0.2)
    ctx.cli("synth", "--scenario", "h2d_d2h", "-o", program)
    text = wait_until(lambda: bar_text(app), timeout=10, what="the bar saying the file changed on disk")
    ctx.note(f"bar: {text!r}")
    ctx.expect("watched.pte changed on disk" in text, f"the bar says {text!r}")
    ctx.expect("unsaved edits" in text, f"the bar does not mention the unsaved edits: {text!r}")
    ctx.expect(is_checked(check_box(app, "skip_h2d_for_method_inputs")), "the edit changed before Reload was chosen")
    ctx.shot("bar")

    reload = wait_until(lambda: next((b for b in app.find_all(role="push button", name="Reload") if on_screen(b)), None),
                        timeout=5, what="the bar's Reload button")
    app.click_widget(reload)
    wait_until(lambda: bar_text(app) is None, timeout=10, what="the bar to go after Reload")
    ctx.expect("*" in app.title(), f"after Reload the title no longer marks the edit: {app.title()!r}")
    show_dock_tab(app, "Pass options")
    ctx.expect(is_checked(check_box(app, "skip_h2d_for_method_inputs")), "Reload dropped the edit")
    ctx.shot("reloaded")

    # The history survived the reload.
    app.key("ctrl+z")
    wait_until(lambda: not is_checked(check_box(app, "skip_h2d_for_method_inputs")), timeout=5,
               what="Ctrl+Z after Reload to take the edit back")
    wait_title(app, lambda t: "*" not in t, what="the title to lose its * after undoing the only edit")

    # Unedited now: a new export is reloaded without asking.
    ctx.cli("synth", "--scenario", "h2d_d2h", "-o", program)
    time.sleep(1.5)
    ctx.expect(bar_text(app) is None, f"the bar showed for an unedited document: {bar_text(app)!r}")
