"""Issue 34, what the eighteenth walkthrough (a helper who wrote none of the fixes) found of its classes.

  - item 7's class (a figure that reads as what it is not): the Advisor's banner, notes and
    Undo named a candidate by its predicted rank under rows in measured order; an emulated
    profile's "Measured saving" did not say emulated.
  - item 4's class (a trace shown against the wrong thing): an imported ETDump of two methods
    kept only the method on screen; the other said "profile this method".
  - item 28's class (a refusal where the app knows the way): File > Open of a .ptd refused it
    although the program of the same name was beside it.
  - item 26's class (words for counts): "1 h2d / 1 d2h copies"; the legend asked to profile a
    method with nothing to time.
"""

import json
import shutil
import time

import harness
from harness import description_of, find, name_of, on_screen, table_headers, table_rows, wait_until
from scenario_support import (BOTH_SIZES, answer_file_dialog, choose_in_combo, file_dialog_open, label_text,
                              labelled, run_profile, sizes, status_bar, tab_table, timeout, wait_title)
from scenarios.round_two import ETDUMP_SAMPLES


def _method_box(app):
    return wait_until(lambda: find(app.frame, role="combo box", name="Method"), timeout=10, what="the Method box")


def _notes(app) -> str:
    return label_text(labelled(app, "Advisor notes"), "Advisor notes") or ""


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_advisor_rows_are_named_by_their_number(ctx):
    """Walkthrough nine (item 7's class): after a host-emulated profile of a+b on cuda:0 the Advisor's measured column is headed 'Measured saving (emulated)'; selecting each row, the notes begin 'Candidate N asks of the caller:' with N the row's # cell (they named the predicted rank)."""
    program = ctx.synth("h2d_d2h", "--scenario", "h2d_d2h")
    app = ctx.open(program)
    run_profile(app)
    table = tab_table(app, "Advisor", "Advisor")
    headers = wait_until(lambda: (h := table_headers(table)) and "Measured saving (emulated)" in h and h, timeout=30,
                         what="the Advisor's measured column")
    rows = wait_until(lambda: [r for r in table_rows(table) if len(r) > 1 and r[1]], timeout=30,
                      what="a candidate in the Advisor table")
    ctx.note(f"headers {headers}; # column {[r[0] for r in rows]}")
    ctx.check(len(rows) >= 2, f"the Advisor lists {len(rows)} candidates")
    # The first row by a click, the others by the Down key (at 1000x700 the
    # third row is partly below the table's edge).
    app.click_widget(table.queryTable().getAccessibleAt(0, 1))
    for row, cells in enumerate(rows[:3]):
        if row > 0:
            app.key("Down")
        number = cells[0].split(" ")[0]
        # (Waits for the row's own number: the notes of the row before start "Candidate " too.)
        said = ""
        for _ in range(50):
            said = _notes(app)
            if said.startswith(f"Candidate {number} "):
                break
            time.sleep(0.1)
        ctx.expect(said.startswith(f"Candidate {number} asks of the caller:"),
                   f"row #{number} selected, the notes say {said[:60]!r}")
    ctx.shot("advisor")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_every_method_of_a_trace_is_shown(ctx):
    """Walkthrough nine (item 4's class): upstream's ETDump of the demo (forward and prefill) imported on forward; the status names prefill; choosing prefill in the Method box shows its measured medians in Transfers, as `ptescope-cli etdump` reads them. Without the shared ETDump samples it is not checked (noted)."""
    trace, source = ETDUMP_SAMPLES / "demo.etdp", ETDUMP_SAMPLES / "demo.pte"
    if not (trace.exists() and source.exists()):
        ctx.note(f"no upstream trace in {ETDUMP_SAMPLES}: not checked")
        return
    program = ctx.tmp / "demo.pte"
    program.write_bytes(source.read_bytes())
    trace_json = ctx.tmp / "trace.json"
    ctx.cli("etdump", program, trace, "--json", trace_json)
    methods = {m["method"]: m for m in json.loads(trace_json.read_text())["methods"]}
    ctx.check("prefill" in methods and methods["prefill"]["copies"], f"the trace's methods: {list(methods)}")
    app = ctx.open(program)
    app.menu("File", "Import ETDump...")
    dialog = app.wait_dialog(what="the Import ETDump dialog")
    answer_file_dialog(ctx, app, dialog, trace, "Import ETDump")
    message = wait_until(lambda: label_text(labelled(app, "Status message", root=status_bar(app)), "Status message"),
                         timeout=10, what="the import's status message")
    ctx.note(f"status: {message!r}")
    ctx.expect("also 'prefill'" in message, f"the import's message does not name prefill: {message!r}")
    choose_in_combo(app, _method_box(app), "prefill")
    table = tab_table(app, "Transfers", "Transfers")
    headers = wait_until(lambda: (h := table_headers(table)) and any(x.startswith("Median") for x in h) and h,
                         timeout=15, what="prefill's measured columns")
    rows = [dict(zip(headers, r)) for r in table_rows(table)]
    median = next(h for h in headers if h.startswith("Median"))
    shown = {r["Instruction"]: r[median] for r in rows if r.get(median, "").strip() not in ("", "—")}
    ctx.note(f"prefill's medians shown: {shown}")
    want = {str(c["instruction"]) for c in methods["prefill"]["copies"]}
    ctx.expect(want <= set(shown), f"prefill's measured copies {sorted(want)}; Transfers shows medians for {sorted(shown)}")
    ctx.shot("prefill")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_open_a_ptd_opens_its_program(ctx):
    """Walkthrough nine (item 28's class): File > Open of model.ptd beside model.pte opens model.pte (the title names it); it said 'not a program: open the .pte that uses it'."""
    folder = ctx.tmp / "ptd"
    folder.mkdir()
    program = folder / "model.pte"
    ctx.cli("synth", "--demo", "-o", program)
    shutil.copy(folder / "aoti_cuda_blob.ptd", folder / "model.ptd")
    app = ctx.open(ctx.demo())
    file_dialog_open(app, folder / "model.ptd")
    title = wait_title(app, lambda t: "model.pte" in t, what="the title to name model.pte")
    ctx.note(f"title: {title!r}")
    ctx.expect(app.active_dialog() is None, f"a dialog is open: {name_of(app.active_dialog())!r}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_counts_and_a_method_with_nothing_to_time(ctx):
    """Walkthrough nine (item 26's class): a CPU-only program: the status bar's counts end 'copies: 0 h2d / 0 d2h'; with Copy time chosen the legend says 'no copies in this method: nothing to time' (it asked to profile it)."""
    spec = ctx.tmp / "cpu.json"
    spec.write_text(json.dumps({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
                                             "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]},
                                                         "y": {"dtype": "float32", "sizes": [2, 3]}},
                                             "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]}]}))
    program = ctx.tmp / "cpu.pte"
    ctx.cli("synth", spec, "-o", program)
    app = ctx.open(program)
    counts = wait_until(lambda: label_text(labelled(app, "Counts", root=status_bar(app)), "Counts"), timeout=10,
                        what="the status bar's counts")
    ctx.expect(counts.endswith("copies: 0 h2d / 0 d2h"), f"the counts read {counts!r}")
    colours = wait_until(lambda: next((c for c in app.find_all(role="combo box", name="Graph colours") if on_screen(c)), None),
                         timeout=10, what="the tool bar's Graph colours box")
    choose_in_combo(app, colours, "Copy time")
    legend = wait_until(lambda: next((o for o in app.find_all(name="Legend") if on_screen(o)), None), timeout=10,
                        what="the Legend")
    wait_until(lambda: "time" in description_of(legend) + " ".join(name_of(e) for e in harness.children_of(legend)),
               timeout=10, what="the legend to speak of copy time")
    said = " | ".join([description_of(legend)] + [name_of(e) for e in harness.children_of(legend)])
    ctx.note(f"legend: {said!r}")
    ctx.expect("no copies in this method: nothing to time" in said, f"the legend reads {said!r}")
    ctx.expect("profile it" not in said, f"the legend asks to profile a method without copies: {said!r}")
