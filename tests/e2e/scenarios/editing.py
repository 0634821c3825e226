"""Issue 24 items 5 and 13: edits explain themselves.

Contracts:
  - item 5: in the Pass options panel, each delegate's target-device chooser
    is a combo box whose list items have an accessible description saying what
    the choice means ("none": the backend moves its own data; "cpu": invalid
    for a device backend, naming the lint finding); the diff banner (a label)
    counts the delegates an edit retargeted; Save As of a program with
    error-level lint findings asks first (a dialog whose text says "error").
  - item 13: when an option changes nothing, a label says so and why
    ("no changes in this method: ... because/read on the CPU ...").
"""

import re
import time

from harness import App, find_all, name_of, on_screen, table_rows, text_of, wait_until
from scenario_support import (bottom_tab, choose_in_combo, dialog_text, show_dock_tab, timeout, toggle_check_box,
                              type_into_file_dialog, wait_title)

DEVICES = re.compile(r"^(none|cpu|cuda:\d+)$")


def target_choosers(app: App) -> list:
    show_dock_tab(app, "Pass options")
    time.sleep(0.3)
    return [c for c in app.find_all(role="combo box")
            if name_of(c).startswith("Target device of delegate") and DEVICES.match(text_of(c)) and on_screen(c)]


def all_texts(app: App) -> list[str]:
    return [text_of(o) for o in app.find_all(role=("label", "text", "paragraph", "heading")) if on_screen(o)]


@timeout(120)
def scenario_cpu_target_is_explained_and_save_warns(ctx):
    """Item 5: the target-device choices say what they mean, one change reads "1 delegate retargeted", and Save As of a program with lint errors warns first."""
    demo = ctx.demo()
    app = ctx.open(demo)
    choosers = target_choosers(app)
    ctx.check(choosers, "no target-device chooser (a combo box reading none/cpu/cuda:N) in Pass options")
    descriptions = choose_in_combo(app, choosers[-1], "cpu")
    ctx.note(f"choices: {list(descriptions)}; cpu: {descriptions.get('cpu')!r}")
    ctx.expect("backend" in (descriptions.get("none") or "").lower(),
               f"the 'none' choice does not say what it means (description {descriptions.get('none')!r})")
    cpu = (descriptions.get("cpu") or "").lower()
    ctx.expect("invalid" in cpu or "pts" in cpu, f"the 'cpu' choice does not warn (description {cpu!r})")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after retargeting a delegate")
    time.sleep(1.0)
    banner = [t for t in all_texts(app) if "retarget" in t.lower()]
    ctx.note(f"banner: {banner}")
    ctx.expect(banner, "no banner says a delegate was retargeted")
    for t in banner:
        m = re.search(r"(\d+)\s+delegates?\s+retargeted", t)
        ctx.expect(m is None or m.group(1) == "1", f"one change, the banner says {t!r}")

    # Save As: a warning about the error-level findings before anything is written.
    app.menu("File", "Save As...")
    target = ctx.tmp / "cpu-target.pte"
    warned = False
    written_before_warning = False
    for _ in range(4):
        dialog = wait_until(app.active_dialog, timeout=5)
        if dialog is None:
            break
        fields = [f for f in find_all(dialog, role=("text", "entry")) if "name" in name_of(f).lower()]
        if fields:  # the file dialog
            type_into_file_dialog(app, dialog, str(target))
            continue
        text = dialog_text(dialog)
        ctx.note(f"dialog {name_of(dialog)!r}: {text[:200]!r}")
        if "error" in text.lower() or "lint" in text.lower() or "PTS" in text:
            warned = True
            written_before_warning = target.exists()
        button = next((b for b in find_all(dialog, role="push button")
                       if name_of(b).replace("&", "").lower() in ("save", "save anyway", "yes", "ok")), None)
        if button is None:
            app.key("Escape")
            break
        app.click_widget(button)
        time.sleep(0.5)
    ctx.expect(warned, "Save As wrote a program with error-level lint findings without a warning")
    ctx.expect(not written_before_warning, "the program was written before the warning")
    if warned:
        ctx.expect(wait_until(target.exists, timeout=5), "confirmed, Save As did not write the program")


@timeout(90)
def scenario_no_change_says_why(ctx):
    """Item 13: skip_h2d_for_method_inputs on an llm changes nothing; the app says so and why."""
    program = ctx.synth("llm2", "--shape", "llm", "--layers", "2")
    app = ctx.open(program)
    toggle_check_box(app, "skip_h2d_for_method_inputs")
    time.sleep(1.5)
    texts = all_texts(app)
    bottom_tab(app, "Changes")
    time.sleep(0.5)
    texts += all_texts(app)
    tab = next((t for t in app.find_all(role="page tab") if name_of(t).startswith("Changes")), None)
    if tab is not None:
        for t in find_all(tab, role=("table", "tree table", "tree", "list")):
            texts += [c for row in table_rows(t) for c in row]
    nothing = [t for t in texts if re.search(r"no changes?\b", t, re.I)]
    ctx.note(f"texts saying nothing changed: {nothing}")
    ctx.expect(nothing, "after skip_h2d_for_method_inputs, nothing says that the method did not change")
    for t in nothing:
        ctx.expect(re.search(r"because|read on the cpu|on the cpu|no .*input.* device|reason", t, re.I),
                   f"{t!r} does not say why")
