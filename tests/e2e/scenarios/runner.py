"""Issue 33 item 3: the user's own ExecuTorch runner in the app, as a person
uses it, against the test stand-in (build/tests/runner-standin/executor_runner,
not ExecuTorch; PTESCOPE_TEST_RUNNER names another).

Contracts:
  - the Profile dialog's "Runtime" chooser offers "ExecuTorch runner…"; then
    a push button "Choose..." opens a file dialog, a label described "Runner
    check" says what the check of the chosen file found, a check box "Compare
    with as loaded …" runs the program as loaded too;
  - after a runner's profile the Transfers totals say "measured by ExecuTorch
    runner NAME"; after a compare they carry "measured per run", "predicted
    copy time per run" and "outputs: as loaded and as shown agree";
  - the status bar's "Cancel" (named "Cancel the profile") stops a runner that hangs, nothing is kept;
  - a fault is one line in a message box; the document stays open, unmodified.
"""

import json
import os
import time
from pathlib import Path

import harness
from harness import find, find_all, has_state, name_of, on_screen, role_of, wait_until
from scenario_support import (BOTH_SIZES, bottom_tab, choose_in_combo, dialog_text, label_text, labelled,
                              profile_menu_item, set_target_device, sizes, tab_table, timeout,
                              type_into_file_dialog)

# tests/runner-standin/delegate.json: a CUDA delegate reads x; y = relu(x) on
# the CPU. Setting the delegate's target device to none removes the one h2d
# copy (of x, float32[2,3]).
SPEC = json.loads((harness.REPO / "tests/runner-standin/delegate.json").read_text())


def standin() -> Path:
    path = Path(os.environ.get("PTESCOPE_TEST_RUNNER") or
                harness.gui_binary().resolve().parents[1] / "tests/runner-standin/executor_runner")
    if not path.exists():
        raise harness.E2EError(f"no runner stand-in at {path} (build the target ptescope_runner_standin)")
    return path


def open_profile_dialog(app):
    app.menu("Profile", "Profile Transfers...")
    return app.wait_dialog(what="the Profile transfers dialog")


def press(app, root, name: str) -> None:
    button = wait_until(lambda: next((b for b in find_all(root, role="push button")
                                      if name_of(b).replace("&", "") == name and on_screen(b)), None),
                        timeout=5, what=f"a push button {name!r}")
    app.click_widget(button)


def top_named(app, text: str):
    """A shown top-level window whose name contains `text` (several dialogs may be up at once)."""
    return next((t for t in app.toplevels() if text in name_of(t)
                 and (has_state(t, "showing") or has_state(t, "visible"))), None)


def runner_check(dialog) -> str:
    return label_text(labelled(None, "Runner check", root=dialog), "Runner check") or ""


def totals(app) -> str:
    return label_text(labelled(app, "Transfer totals"), "Transfer totals") or ""


def wait_profile_end(app, timeout_s: float = 60) -> None:
    item = profile_menu_item(app)
    wait_until(lambda: has_state(item, "enabled"), timeout=timeout_s, what="the profile to end")


@sizes(*BOTH_SIZES)
@timeout(300)
def scenario_runner_profile_compare_cancel_and_a_fault(ctx):
    """Issue 33 item 3: choose the runner in the Profile dialog (checked, remembered), profile the program as shown, compare with as loaded after an edit (measured and predicted saving, outputs agree), cancel a hanging runner, and a crash is one line with the document unchanged; no temporary file is left."""
    runner = standin()
    program = ctx.synth_spec("delegate", SPEC)
    home = ctx.new_home()
    scratch = ctx.tmp / "runner-tmp"
    scratch.mkdir(exist_ok=True)
    env = {"TMPDIR": str(scratch)}

    # 1. Choose the runner: the file dialog, then the check's verdict.
    app = ctx.open(program, home=home, env=env)
    dialog = open_profile_dialog(app)
    runtime = wait_until(lambda: next((c for c in find_all(dialog, role="combo box")
                                       if name_of(c) == "Runtime" and on_screen(c)), None),
                         timeout=5, what="the Runtime chooser")
    choose_in_combo(app, runtime, "ExecuTorch runner\u2026")
    press(app, dialog, "Choose...")
    chooser = wait_until(lambda: top_named(app, "ExecuTorch runner"), timeout=10, what="the runner's file dialog")
    type_into_file_dialog(app, chooser, str(runner))
    verdict = wait_until(lambda: (lambda t: t if "event tracer" in t or "not" in t else None)(runner_check(dialog)),
                         timeout=20, what="the runner check's verdict")
    ctx.note(f"runner check: {verdict}")
    ctx.expect(verdict.startswith(str(runner)) and "with the event tracer" in verdict, f"runner check: {verdict!r}")
    ctx.shot("dialog-runner-chosen")
    press(app, dialog, "Profile")
    app.wait_no_dialog(timeout=20)
    wait_profile_end(app)
    table = tab_table(app, "Transfers", "Transfers")
    wait_until(lambda: "median" in " ".join(harness.table_headers(table)).lower(), timeout=10,
               what="the Transfers table's measured columns")
    text = totals(app)
    ctx.note(f"totals: {text}")
    ctx.expect("measured by ExecuTorch runner executor_runner (host clock)" in text, f"totals: {text!r}")
    rows = harness.table_rows(table)
    ctx.expect(len(rows) == 1 and "h2d" in rows[0], f"one h2d copy expected, rows {rows}")
    ctx.shot("profiled")

    # 2. An edit (the delegate's target device none), then Compare with as loaded.
    set_target_device(app, 0, "none")
    dialog = open_profile_dialog(app)
    compare = wait_until(lambda: next((c for c in find_all(dialog, role="check box")
                                       if name_of(c).replace("&", "").startswith("Compare with as loaded")
                                       and on_screen(c)), None),
                         timeout=5, what="the 'Compare with as loaded' check box")
    if not has_state(compare, "checked"):
        app.click_widget(compare, dx=9)
    wait_until(lambda: has_state(compare, "checked"), timeout=5, what="Compare with as loaded to be checked")
    ctx.shot("dialog-compare")
    press(app, dialog, "Profile")
    app.wait_no_dialog(timeout=20)
    wait_profile_end(app)
    text = wait_until(lambda: (lambda t: t if "outputs:" in t else None)(totals(app)), timeout=20,
                      what="the compare's totals")
    ctx.note(f"compare totals: {text}")
    for part in ("measured per run (ExecuTorch runner", "predicted copy time per run of method 'forward'",
                 "outputs: as loaded and as shown agree bit for bit"):
        ctx.expect(part in text, f"the compare's totals lack {part!r}: {text!r}")
    headers = " | ".join(harness.table_headers(table))
    ctx.expect("\u0394" in headers or "previous" in headers.lower(), f"no compare columns: {headers}")
    rows = harness.table_rows(table)
    ctx.note(f"compare rows: {rows}")
    ctx.expect(any("removed" in " ".join(r).lower() for r in rows) or len(rows) == 1,
               f"the h2d the edit removed is not shown as removed: {rows}")
    ctx.shot("compared")
    ctx.expect(list(scratch.iterdir()) == [], f"left in TMPDIR: {list(scratch.iterdir())}")
    app.kill()

    # 3. Cancel a runner that hangs; the runner chosen before is remembered.
    app = ctx.open(program, home=home, env={**env, "PTESCOPE_TEST_RUNNER_FAULT": "hang"})
    dialog = open_profile_dialog(app)
    field = wait_until(lambda: next((f for f in find_all(dialog, role=("text", "entry"))
                                     if name_of(f) == "ExecuTorch runner"), None), timeout=5,
                       what="the runner's path field")
    remembered = harness.field_text(field)
    ctx.expect(remembered == str(runner), f"the runner is not remembered: the field reads {remembered!r}")
    runtime = next((c for c in find_all(dialog, role="combo box") if name_of(c) == "Runtime"), None)
    if runtime is not None and harness.text_of(runtime) != "ExecuTorch runner\u2026":
        choose_in_combo(app, runtime, "ExecuTorch runner\u2026")
    press(app, dialog, "Profile")
    app.wait_no_dialog(timeout=20)
    wait_until(lambda: any(p.is_dir() for p in scratch.iterdir()), timeout=20, what="the runner's private folder")
    cancel = wait_until(lambda: next((b for b in app.find_all(role="push button", name="Cancel the profile") if on_screen(b)), None),
                        timeout=10, what="the status bar's Cancel")
    ctx.shot("running")
    app.click_widget(cancel)
    wait_profile_end(app, timeout_s=20)
    status = label_text(labelled(app, "Status message"), "Status message") or ""
    ctx.note(f"after cancel: {status}")
    ctx.expect("cancelled" in status.lower(), f"the status does not say the profile was cancelled: {status!r}")
    wait_until(lambda: list(scratch.iterdir()) == [], timeout=10, what="the runner's folder to be removed")
    app.kill()

    # 4. A runner that crashes: one line in a message box, the document unchanged.
    app = ctx.open(program, home=home, env={**env, "PTESCOPE_TEST_RUNNER_FAULT": "crash"})
    title = app.title()
    dialog = open_profile_dialog(app)
    runtime = next((c for c in find_all(dialog, role="combo box") if name_of(c) == "Runtime"), None)
    if runtime is not None and harness.text_of(runtime) != "ExecuTorch runner\u2026":
        choose_in_combo(app, runtime, "ExecuTorch runner\u2026")
    press(app, dialog, "Profile")
    box = wait_until(lambda: top_named(app, "Profile failed"), timeout=30, what="the 'Profile failed' message")
    message = dialog_text(box)
    ctx.note(f"fault: {message}")
    ctx.shot("fault")
    line = next((m for m in message.split("\n") if "crashed" in m), "")
    ctx.expect(line.startswith(f"{runner} on delegate.pte: the runner crashed (signal 11, SIGSEGV)"),
               f"the fault is not one line naming runner, program and what happened: {message!r}")
    app.key("Return")
    app.wait_no_dialog(timeout=10)
    ctx.expect(app.title() == title and "*" not in app.title(), f"the title changed: {title!r} -> {app.title()!r}")
    ctx.expect(list(scratch.iterdir()) == [], f"left in TMPDIR: {list(scratch.iterdir())}")
    ctx.finish()
