"""Issue 34 items 1-13: the app never makes a new user believe something false.

Contracts:
  - item 1: every combo box is named by what it sets ("Target device of
    delegate 0 (CudaBackend)", "Method"), its value is its text; no label's
    name carries a mnemonic's raw "&";
  - items 2 and 3: after Save As the window is the saved file: the status
    bar's File label names it, the diff banner compares with it, a change of
    the original on disk is not loaded and a change of the saved file is;
  - item 4: the trace of a shorter program (upstream's runtime recorded it)
    is refused on a program whose calls it does not cover, in the app and in
    `ptescope-cli etdump`;
  - item 5: Run Once's "not executed" list is on screen, lines high;
  - item 6: a program written again in two writes is reloaded with no
    message box; the status bar's message ("Status message") says "Reloaded";
  - item 12: the Profile dialog's memory budget field is named "Memory
    budget"; a refused Run Once empties the Outputs table and its header
    reads "Run failed: ...";
  - item 7: an emulated profile's copy times on the graph say "emulated" in
    the legend;
  - item 11: the graph's description forgets the previous file's selection;
  - item 13: the Timeline's canvas is named "Timeline", described "Legend:
    ..." with the legend's entries in the order drawn.
"""

import re
import subprocess
import time

from harness import (description_of, extents, find, find_all, name_of, on_screen, role_of, table_rows, text_of,
                     wait_until)
from scenario_support import (BOTH_SIZES, SAMPLES, answer_file_dialog, bottom_tab, choose_in_combo, dialog_text, file_dialog_open,
                              find_status, find_text, graph_selection, label_text, labelled, run_profile, select_instruction,
                              show_dock_tab, sizes, status_bar, tab_is_current, tab_table, timeout, toggle_check_box,
                              type_into_file_dialog, wait_title)

ETDUMP_SAMPLES = SAMPLES.parent / "etdump-samples"


def combo_value(combo) -> str:
    """What a combo box is set to: its text (the app gives combo boxes a read-only Text interface)."""
    return text_of(combo)


def shown_combos(app) -> list:
    return [c for c in app.find_all(role="combo box") if on_screen(c)]


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_controls_named_by_what_they_set(ctx):
    """Issue 34 item 1: each delegate's target-device combo is named by its delegate and backend, not by 'cuda:0'; after retargeting one, the two still differ; the method combo is 'Method'; no label reads a raw '&'."""
    app = ctx.open(ctx.demo())
    show_dock_tab(app, "Pass options")
    time.sleep(0.5)
    targets = [c for c in shown_combos(app) if name_of(c).startswith("Target device of delegate")]
    names = [name_of(c) for c in targets]
    ctx.note(f"target combos: {[(name_of(c), combo_value(c)) for c in targets]}")
    ctx.check(len(targets) >= 2, f"expected two target-device combos named 'Target device of delegate N (...)', "
                                 f"the combos read {[name_of(c) for c in shown_combos(app)]}")
    ctx.expect(len(set(names)) == len(names), f"two target-device combos share a name: {names}")
    ctx.expect(all("CudaBackend" in n for n in names), f"a target-device combo does not name its backend: {names}")
    ctx.expect(all(combo_value(c) == "cuda:0" for c in targets),
               f"the combos' values read {[combo_value(c) for c in targets]}, not cuda:0")
    choose_in_combo(app, targets[0], "cuda:1")
    wait_title(app, lambda t: "*" in t, what="the title to mark the retarget")
    time.sleep(0.5)
    show_dock_tab(app, "Pass options")
    after = [c for c in shown_combos(app) if name_of(c).startswith("Target device of delegate")]
    after_names = [name_of(c) for c in after]
    ctx.expect(len(set(after_names)) == len(after_names) == len(names), f"after one retarget the combos read {after_names}")
    ctx.expect(sorted(combo_value(c) for c in after) == ["cuda:0", "cuda:1"],
               f"after one retarget the values read {[combo_value(c) for c in after]}")
    method = [c for c in shown_combos(app) if name_of(c) == "Method"]
    ctx.expect(method and combo_value(method[0]) == "forward",
               f"no combo named 'Method' set to forward: {[(name_of(c), combo_value(c)) for c in shown_combos(app)]}")
    for combo in shown_combos(app):
        ctx.expect(name_of(combo) and name_of(combo) != combo_value(combo),
                   f"a combo box is named by its value: {name_of(combo)!r}")
    for label in app.find_all(role="label"):
        name = name_of(label)
        ctx.expect("&" not in name.replace("&&", "") or " & " in name, f"a label reads {name!r}")
    ctx.shot("names")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_save_as_follows_the_saved_file(ctx):
    """Issue 34 items 2 and 3: after Save As the File label names the saved file, the diff compares with it, a change of the original is not loaded, a change of the saved file is."""
    original = ctx.demo("original")
    app = ctx.open(original)
    toggle_check_box(app, "alloc_graph_output")
    wait_title(app, lambda t: "*" in t, what="the title to mark the edit")
    app.menu("File", "Save As...")
    dialog = app.wait_dialog(what="the Save As dialog")
    answer_file_dialog(ctx, app, dialog, ctx.tmp / "saved.pte", "Save As")
    wait_title(app, lambda t: "saved.pte" in t and "*" not in t, what="the title to name saved.pte without '*'")
    time.sleep(0.5)
    # The File label is back once the "Saved ..." message (5 s) has gone.
    bar = status_bar(app)
    file_label = wait_until(lambda: labelled(app, "File", root=bar), timeout=10)
    shown = label_text(file_label, "File") if file_label is not None else None
    ctx.expect(shown is not None and "saved.pte" in shown, f"the status bar's File label reads {shown!r}")
    banners = [text_of(o) or name_of(o) for o in app.find_all(role="label") if on_screen(o)
               and "diff against" in (text_of(o) or name_of(o)).lower()]
    ctx.expect(all("no changes" in b.lower() for b in banners), f"after Save As the diff banner reads {banners}")
    show_dock_tab(app, "Pass options")
    ctx.shot("saved")

    # The original is re-exported as another program: not this window's file any more.
    ctx.cli("synth", "--scenario", "cross_device", "-o", original)
    time.sleep(2.0)
    ctx.expect("saved.pte" in app.title() and "*" not in app.title(), f"the title reads {app.title()!r}")
    messages = [label_text(o, "Status message") for o in [labelled(app, "Status message")] if o is not None]
    ctx.expect(not any(m and "Reloaded" in m for m in messages), f"a change of the original was loaded: {messages}")
    # The saved file changes: that one is reloaded.
    ctx.cli("synth", "--scenario", "cross_device", "-o", ctx.tmp / "saved.pte")

    def reloaded():
        o = labelled(app, "Status message")
        m = label_text(o, "Status message") if o is not None else None
        return m if m and "Reloaded saved.pte" in m else None
    ctx.expect(wait_until(reloaded, timeout=10), "a change of the saved file was not reloaded")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_trace_of_another_program_is_refused(ctx):
    """Issue 34 item 4: upstream's trace of the 4-instruction h2d_d2h program, imported on the 8-instruction cross_device program (whose first instructions it fits), is refused as another program's, in the app and the CLI; passes with a note when the samples are absent."""
    trace = ETDUMP_SAMPLES / "scenario_h2d_d2h.etdp"
    if not trace.exists() or not (ETDUMP_SAMPLES / "scenario_h2d_d2h.pte").exists():
        ctx.note(f"no upstream trace in {ETDUMP_SAMPLES} (the shared ETDump samples): nothing to check")
        return
    program = ctx.synth("cross", "--scenario", "cross_device")
    cli = ctx.cli("etdump", program, trace, check=False)
    ctx.note(f"cli: {cli.returncode} {cli.stderr.strip()}")
    ctx.expect(cli.returncode == 2 and "does not describe this program" in cli.stderr,
               f"ptescope-cli etdump exits {cli.returncode}: {(cli.stderr or cli.stdout).strip()[:300]!r}")
    own = ctx.cli("etdump", ETDUMP_SAMPLES / "scenario_h2d_d2h.pte", trace, check=False)
    ctx.expect(own.returncode == 0, f"the trace on its own program exits {own.returncode}: {own.stderr.strip()[:200]!r}")

    app = ctx.open(program)
    app.menu("File", "Import ETDump...")
    dialog = app.wait_dialog(what="the Import ETDump dialog")
    type_into_file_dialog(app, dialog, str(trace))
    box = wait_until(app.active_dialog, timeout=10, what="a message about the trace")
    text = dialog_text(box)
    ctx.note(f"dialog {name_of(box)!r}: {text[:300]!r}")
    ctx.expect("does not describe this program" in text, f"importing another program's trace says {text[:300]!r}")
    ctx.shot("refused")
    app.key("Return")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_not_executed_list_is_seen(ctx):
    """Issue 34 item 5: after Run Once on the demo (its CUDA delegates cannot run here) the 'Not executed' list is on screen, at least two lines high, under the outputs; each line names its delegate's backend once."""
    app = ctx.open(ctx.demo())
    app.menu("Run", "Run Once")
    bottom_tab(app, "Outputs")

    def listed():
        for o in app.find_all(role="label"):
            t = name_of(o) + " " + description_of(o)
            if "Not executed" in t and on_screen(o):
                return o
        return None
    label = wait_until(listed, timeout=30, what="the 'Not executed' list on screen")
    e = extents(label)
    line = 12
    ctx.note(f"not executed: {e} {name_of(label)[:120]!r}")
    ctx.expect(e[3] >= 2 * line, f"the 'Not executed' list is {e[3]} px high")
    ctx.expect("CudaBackend" in name_of(label) + description_of(label), "the list does not name the delegates' backend")
    # Each delegate's line says its backend once (it said "delegate CudaBackend: delegate 0 (CudaBackend): ...").
    lines = [t for t in name_of(label).splitlines()[1:] if t.strip()]
    ctx.expect(lines and all(t.count("CudaBackend") == 1 for t in lines), f"the list's lines read {lines}")
    ctx.shot("not-executed")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_emulated_times_say_so(ctx):
    """Issue 34 item 7: with no GPU, a profile's copy times coloured on the graph are labelled emulated in the legend."""
    demo = ctx.demo()
    # Profiled at start, the graph coloured by copy time (the tool bar's "Graph colours" may be folded away at 1000 px).
    app = ctx.app(demo, "--profile", "--overlay", "time")
    wait_title(app, lambda t: "demo.pte" in t, what="the title to name demo.pte")
    legend = wait_until(lambda: next((o for o in app.find_all(name="Legend") if on_screen(o)), None), timeout=10,
                        what="the Legend")
    text = wait_until(lambda: description_of(legend) if "copy time" in description_of(legend) else None, timeout=60,
                      what="the legend's copy time scale")
    ctx.note(f"legend: {text!r}")
    ctx.expect("emulated copy time" in text, f"the legend reads {text!r}")
    overlay = next((c for c in shown_combos(app) if name_of(c) == "Graph colours"), None)
    if overlay is not None:
        ctx.expect(combo_value(overlay) == "Copy time", f"'Graph colours' reads {combo_value(overlay)!r}")
    ctx.shot("emulated")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_graph_forgets_the_last_files_selection(ctx):
    """Issue 34 item 11: after selecting #1 in one file and opening another, the graph's description says nothing is selected."""
    first = ctx.demo("first")
    second = ctx.synth("second", "--scenario", "h2d_d2h")
    app = ctx.open(first)
    select_instruction(app, 1)
    before = graph_selection(app)
    ctx.note(f"selected in first.pte: {before!r}")
    ctx.check(before.startswith("Selected:"), f"selecting #1 left the graph's description at {before!r}")
    file_dialog_open(app, second)
    wait_title(app, lambda t: "second.pte" in t, what="the title to name second.pte")
    after = wait_until(lambda: graph_selection(app) if graph_selection(app) != before else None, timeout=10)
    ctx.expect(after == "Nothing selected", f"after opening second.pte the graph says {graph_selection(app)!r}")


def _dialog_seen(app):
    """The title and text of a message box the app shows now, else None."""
    box = app.active_dialog()
    return (name_of(box), dialog_text(box)[:200]) if box is not None else None


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_program_written_in_two_parts_reloads_quietly(ctx):
    """Issue 34 item 6: an exporter writes the shown program again in two writes, first half of it and the whole a second and a half later: no "Cannot open program" (nor any message box) at any moment, and the window then shows the new program ("Reloaded ...")."""
    program = ctx.demo("exported")
    # The next export: another program (h2d_d2h, 4 instructions), so the reload shows.
    whole = ctx.synth("next-export", "--scenario", "h2d_d2h").read_bytes()
    app = ctx.open(program)
    time.sleep(1.0)
    seen = []

    def watch(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            box = _dialog_seen(app)
            if box is not None and box not in seen:
                seen.append(box)
            time.sleep(0.1)
    with open(program, "wb") as f:  # the first part: no program yet
        f.write(whole[: len(whole) // 2])
    watch(1.5)  # five times the time the app lets a file settle
    with open(program, "wb") as f:  # the whole, in a second write
        f.write(whole)

    def reloaded():
        o = labelled(app, "Status message")
        m = label_text(o, "Status message") if o is not None else None
        return m if m and "Reloaded exported.pte" in m else None
    message = wait_until(reloaded, timeout=10)
    watch(1.0)
    ctx.shot("reloaded")
    ctx.note(f"status {message!r}; message boxes {seen}")
    ctx.expect(not seen, f"the file written in two parts popped {seen}")
    ctx.expect(message, "the whole program, written a second later, was not reloaded (no 'Reloaded exported.pte')")
    ctx.expect("*" not in app.title() and "exported.pte" in app.title(), f"the title reads {app.title()!r}")
    # The program shown is the new one: h2d_d2h's 4 instructions, not the demo's.
    find_text(app, "#7", enter=True)
    status = wait_until(lambda: label_text(find_status(app), "Find status"), timeout=5, what="the Find status")
    ctx.expect("Not found" in status, f"Find '#7' on the 4-instruction reload reads {status!r}: the demo is shown")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_failed_run_once_shows_no_earlier_outputs(ctx):
    """Issue 34 item 12: Run Once lists the demo's outputs; with the memory budget lowered to 1K (Profile dialog, which Run Once shares) Run Once is refused, and the Outputs table is then empty, its header says the run failed. Walkthrough twenty-one, finding 7 (item 12's class): the refusal is said in the panel (the empty table's note, whole, naming the budget) and the status bar, with no dialog on top to dismiss."""
    app = ctx.open(ctx.demo())
    app.menu("Run", "Run Once")
    table = tab_table(app, "Outputs", "Outputs")
    first = wait_until(lambda: table_rows(table), timeout=30, what="the first run's outputs")
    ctx.note(f"first run: {len(first)} outputs, {first[:2]}")
    ctx.shot("first-run")

    # The memory budget is set in the Profile dialog (the profile is refused too).
    app.menu("Profile", "Profile Transfers...")
    dialog = app.wait_dialog(what="the Profile transfers dialog")
    field = next((f for f in find_all(dialog, role=("text", "entry")) if "budget" in name_of(f).lower()), None)
    ctx.check(field is not None, "no 'Memory budget' field in the Profile dialog: "
                                 f"{[name_of(f) for f in find_all(dialog, role=('text', 'entry'))]}")
    app.click_widget(field)
    app.key("ctrl+a", "BackSpace")
    app.type_text("1K")
    button = find(dialog, role="push button", name="Profile")
    app.click_widget(button) if button is not None else app.key("Return")
    box = wait_until(lambda: (lambda d: d if d is not None and name_of(d) != name_of(dialog) else None)(app.active_dialog()),
                     timeout=30, what="the profile's refusal")
    ctx.note(f"profile: {name_of(box)!r} {dialog_text(box)[:200]!r}")
    app.key("Return")
    app.wait_no_dialog(timeout=5)

    bottom_tab(app, "Values")
    app.menu("Run", "Run Once")
    said = wait_until(lambda: (d := description_of(table)) and "Run failed" in d and d, timeout=30,
                      what="the Outputs table to say the run failed")
    ctx.note(f"run once: {said[:200]!r}")
    ctx.expect("budget" in said.lower(), f"the refusal does not name the memory budget: {said[:200]!r}")
    time.sleep(1.0)
    box = app.active_dialog()
    ctx.expect(box is None, f"a dialog came up on top of the panel's message: {name_of(box) if box else ''!r}")
    if box is not None:
        app.key("Return")
        app.wait_no_dialog(timeout=5)
    ctx.expect(tab_is_current(next((t for t in app.find_all(role="page tab", name="Outputs")), None)),
               "the Outputs tab was not brought forward with the refusal")
    status = label_text(labelled(app, "Status message"), "Status message") or ""
    ctx.expect(status.startswith("Run Once failed") and "budget" not in status,
               f"the status bar says {status!r}: the whole message is the Outputs tab's (walkthrough twenty-two, finding 9)")
    ctx.shot("failed-run")
    rows = table_rows(table)
    ctx.expect(not rows, f"after the failed run the Outputs table still lists {len(rows)} outputs: {rows[:2]}")
    header = next((name_of(o) for o in app.find_all(role="label") if on_screen(o) and "Run failed" in name_of(o)), None)
    ctx.expect(header is not None, "no label on screen says 'Run failed'")
    ctx.expect(header is None or "budget" not in header, f"the header repeats the table's message: {header!r}")
    stale = [name_of(o) for o in app.find_all(role="label") if on_screen(o) and "Not executed" in name_of(o)]
    ctx.expect(not stale, f"the earlier run's 'Not executed' list is still shown: {stale[:1]}")


def _saturated_pixels(png, region):
    """{(r, g, b): [x, ...]} of the coloured (not grey) pixels of region (x, y, w, h) of a screenshot."""
    x, y, w, h = region
    out = subprocess.run(["convert", str(png), "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-depth", "8", "txt:-"],
                         capture_output=True, text=True, timeout=30).stdout
    colours: dict = {}
    for line in out.splitlines()[1:]:
        m = re.match(r"(\d+),(\d+):\s*\((\d+),(\d+),(\d+)", line)
        if not m:
            continue
        px, _, r, g, b = (int(v) for v in m.groups())
        if max(r, g, b) - min(r, g, b) >= 24:
            colours.setdefault((r, g, b), []).append(px)
    return colours


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_timeline_colours_each_delegate_by_its_device(ctx):
    """Issue 34 item 13: upstream's trace of cross_device (a delegate on cuda:0, one on cuda:1), imported on its program: the Timeline's legend names 'delegate call (cuda:0)' and 'delegate call (cuda:1)' (its accessible description), their swatches differ, and each swatch's colour is painted on the lanes (the cuda:1 call in cuda:1's colour); passes with a note when the shared ETDump samples are absent."""
    trace = ETDUMP_SAMPLES / "scenario_cross_device.etdp"
    if not trace.exists() or not (ETDUMP_SAMPLES / "scenario_cross_device.pte").exists():
        ctx.note(f"no upstream trace in {ETDUMP_SAMPLES} (the shared ETDump samples): nothing to check")
        return
    program = ctx.tmp / "cross_device.pte"
    program.write_bytes((ETDUMP_SAMPLES / "scenario_cross_device.pte").read_bytes())
    app = ctx.open(program)
    app.menu("File", "Import ETDump...")
    dialog = app.wait_dialog(what="the Import ETDump dialog")
    type_into_file_dialog(app, dialog, str(trace))
    time.sleep(0.5)
    box = app.active_dialog()
    ctx.check(box is None, f"importing the trace says {name_of(box) if box else ''!r}: {dialog_text(box)[:200] if box else ''!r}")
    bottom_tab(app, "Timeline")

    def legend_text():
        for o in app.find_all(name="Timeline"):
            if role_of(o) != "page tab" and on_screen(o) and description_of(o).startswith("Legend:"):
                return o, description_of(o)
        return None
    canvas, legend = wait_until(legend_text, timeout=10, what="the Timeline's legend (described 'Legend: ...')")
    entries = [e.strip() for e in legend[len("Legend:"):].split(",")]
    ctx.note(f"legend: {entries}")
    ctx.expect("delegate call (cuda:0)" in entries and "delegate call (cuda:1)" in entries,
               f"the Timeline's legend reads {entries}")
    time.sleep(0.5)
    png = ctx.shot("timeline")
    # The legend is drawn in a strip 26 px high at the canvas's bottom (the
    # whole iteration is shown: no scroll bar): its swatches are the only
    # blocks of one colour (16 x 11 px) there, left to right in the order
    # of the entries.
    x, y, w, h = extents(canvas)
    strip = (x, y + h - 28, w, 28)
    blocks = {c: xs for c, xs in _saturated_pixels(png, strip).items() if len(xs) >= 60}
    swatches = sorted(blocks, key=lambda c: sum(blocks[c]) / len(blocks[c]))
    ctx.note(f"swatches left to right: {swatches}")
    ctx.check(len(swatches) == len(entries), f"{len(swatches)} swatches under the lanes for the {len(entries)} "
                                             f"entries {entries}")
    colour = dict(zip(entries, swatches))
    ctx.expect(colour.get("delegate call (cuda:0)") != colour.get("delegate call (cuda:1)"),
               "the legend draws cuda:0's and cuda:1's delegate calls in one colour")
    lanes = _saturated_pixels(png, (x, y, w, h - 28))
    for entry in ("delegate call (cuda:0)", "delegate call (cuda:1)"):
        painted = len(lanes.get(colour.get(entry), []))
        ctx.note(f"{entry}: {colour.get(entry)}, {painted} px on the lanes")
        ctx.expect(painted > 0, f"no bar on the lanes is painted in the colour of {entry!r} {colour.get(entry)}")
