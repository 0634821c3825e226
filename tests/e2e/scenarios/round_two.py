"""Issue 34, items 15-28: what a new user meets, round two (the annoying and cosmetic ones).

Contracts these scenarios rely on, besides those of graph.py:
  - item 28: while no program is open, the graph area shows a label whose
    accessible name is its text, saying how to open one ("Ctrl+O");
  - item 23: the bar of a file that is gone is the reload bar (a label marked
    "File changed on disk" whose description is its text);
  - item 20: the Find status ("Find status") speaks of the picture shown;
  - item 26: the memory plan (painted) is named "Memory plan" and its
    description says its bands ("buffer 1 · cpu:0: 16.0 KiB, at most 16.0 KiB live, highest byte 16.0 KiB; ...");
    the Transfers totals are a label marked "Transfer totals";
  - item 19: the graph's selected node is an accessible child in the
    "selected" state; View has "Open All Groups" and "Fit to Window";
  - item 17: the Advisor table's cells (Table interface) have the extents of
    the cells as drawn.
"""

import json
import os
import re
import time

import harness
from harness import contains, extents, name_of, on_screen, role_of, table_headers, table_rows, wait_until
from scenario_support import (BOTH_SIZES, LINE_PX, SAMPLES, answer_file_dialog, bottom_tab, check_box, choose_in_combo,
                              find_status, find_text, graph_view, label_text, labelled, run_profile, show_dock_tab, sizes,
                              tab_table, timeout, toggle_check_box, wait_title, wrapped_lines, zoom_percent)
from graph import canvas_area, graph_items, overlay  # noqa: E402 (a sibling scenario file)

BAR = "File changed on disk"
ETDUMP_SAMPLES = SAMPLES.parent / "etdump-samples"


def bar_text(app):
    label = labelled(app, BAR)
    return label_text(label, BAR) if label is not None else None


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_overview_takes_no_strip(ctx):
    """Item 15: on an 8-layer llm (bigger than the window, so the overview shows) the canvas fills the graph view's width: no grey strip is kept beside it for the overview."""
    program = ctx.synth("llm8", "--shape", "llm", "--layers", "8")
    app = ctx.open(program)
    time.sleep(1.5)
    ctx.shot("overview")
    g = extents(graph_view(app))
    area = canvas_area(app)
    ov = overlay(app, "Overview")
    ctx.note(f"graph view {g}, canvas {area}, overview {extents(ov) if ov is not None else None}")
    ctx.check(ov is not None, "llm8 does not fit the window and no overview shows")
    # It floats over the canvas's corner; a strip kept beside the canvas for
    # it (15-25% of the width) put it outside the canvas.
    ctx.expect(contains(area, extents(ov), slack=2),
               f"the overview {extents(ov)} lies beside the canvas {area}, in a strip of its own")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_small_program_shows_its_delegates(ctx):
    """Item 21: a small program (8 instructions, two device delegates) opens legible with a device region in sight (at least 100 x 100 px of it inside the canvas)."""
    program = ctx.synth("small", "--scenario", ctx.pick_scenario(("cross_device", "single_delegate")))
    app = ctx.open(program)
    time.sleep(2.0)
    ctx.shot("first-picture")
    area = canvas_area(app)
    regions = [i for i in graph_items(app) if name_of(i).startswith("cuda")]
    ctx.check(regions, "the graph exposes no device region (contract: Graph children named 'cuda:0')")
    rects = [(name_of(r), extents(r)) for r in regions]
    seen = [n for n, e in rects if (i := harness.intersection(area, e)) and i[2] >= 100 and i[3] >= 100]
    ctx.expect(seen, f"no device region is in sight in the canvas {area}: {rects} (zoom {zoom_percent(app)}%)")
    zoom = zoom_percent(app)
    ctx.expect(zoom is None or zoom >= 99.5, f"the first picture is at {zoom}%: node titles smaller than the UI font")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_reload_finds_again(ctx):
    """Item 20: a program re-exported as a smaller one reloads with the Find status of the new picture ("Not found" for #60) and the new picture's first zoom, not the old ones."""
    small = ctx.demo("small-demo")
    fresh = ctx.open(small)
    time.sleep(1.0)
    fresh_zoom = zoom_percent(fresh)
    fresh.quit()

    program = ctx.synth("reloaded", "--shape", "llm", "--layers", "8")
    app = ctx.open(program)
    time.sleep(1.0)
    find_text(app, "#60", enter=True)
    time.sleep(1.0)
    before = label_text(find_status(app), "Find status")
    ctx.expect(before and "1 of 1" in before, f"Find '#60' on the llm reads {before!r}")
    for _ in range(3):
        app.key("ctrl+equal")  # the Find box has the focus: the graph zooms (item 18)
        time.sleep(0.1)
    zoomed = zoom_percent(app)
    # The exporter writes the smaller program over it.
    ctx.cli("synth", "--demo", "-o", program)
    wait_until(lambda: "Not found" in (label_text(find_status(app), "Find status") or ""), timeout=15,
               what="the Find status to say 'Not found' after the reload")
    time.sleep(1.0)
    ctx.shot("reloaded")
    after = zoom_percent(app)
    ctx.note(f"zoom: fresh {fresh_zoom}%, zoomed {zoomed}%, after the reload {after}%")
    if fresh_zoom is not None and after is not None:
        ctx.expect(abs(after - fresh_zoom) <= 1, f"after the reload the zoom is {after}% (the old picture's "
                                                 f"{zoomed}%); opened, the program starts at {fresh_zoom}%")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_file_moved_back_clears_the_bar(ctx):
    """Item 23: an edited program's file moved away shows "deleted or moved"; moved back, the bar goes and the edit stays."""
    program = ctx.synth("moved", "--scenario", "h2d_d2h")
    app = ctx.open(program)
    show_dock_tab(app, "Pass options")
    ctx.check(toggle_check_box(app, "skip_h2d_for_method_inputs"), "skip_h2d_for_method_inputs did not get set")
    wait_title(app, lambda t: "*" in t, what="the title to mark the edit")
    away = program.with_suffix(".away")
    os.rename(program, away)
    text = wait_until(lambda: bar_text(app), timeout=10, what="the bar saying the file is gone")
    ctx.expect("deleted or moved" in text, f"the bar says {text!r}")
    ctx.shot("gone")
    os.rename(away, program)
    wait_until(lambda: bar_text(app) is None, timeout=10, what="the bar to go when the file is back")
    ctx.shot("back")
    show_dock_tab(app, "Pass options")
    ctx.expect(harness.has_state(check_box(app, "skip_h2d_for_method_inputs"), "checked"), "the edit is gone")
    ctx.expect("*" in app.title(), f"the title no longer marks the edit: {app.title()!r}")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_empty_window_says_how_to_open(ctx):
    """Item 28: a window whose file cannot be read shows, where the graph would be, how to open a program (Ctrl+O), read back through AT-SPI."""
    bad = ctx.tmp / "not-a-program.pte"
    bad.write_bytes(b"this is not an ExecuTorch program\n" * 4)
    app = ctx.app(bad, fit=False)
    time.sleep(1.5)
    # "Cannot open program" says what is wrong with the file first.
    for _ in range(4):
        boxes = [c for c in harness.children_of(app.acc) if role_of(c) in ("dialog", "alert")
                 and (harness.has_state(c, "showing") or harness.has_state(c, "visible"))]
        if not boxes:
            break
        ctx.note(f"dialog {name_of(boxes[0])!r}")
        app.key("Escape")
        time.sleep(0.8)
    app._frame = None
    app.fit_to_screen()
    hint = wait_until(lambda: next((o for o in app.find_all(role="label", name_contains="Ctrl+O") if on_screen(o)),
                                   None), timeout=10, what="a label saying how to open a program (Ctrl+O)")
    ctx.shot("empty")
    ctx.note(f"hint: {name_of(hint)!r}")
    ctx.expect("Open" in name_of(hint), f"the hint reads {name_of(hint)!r}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_pass_options_inside_the_dock_with_many_delegates(ctx):
    """Item 24: with 40 delegates every target device chooser and check box of Pass options is whole inside the dock (nothing runs past its right edge)."""
    nodes, tensors, previous = [], {"x": {"dtype": "float32", "sizes": [4]}}, "x"
    for d in range(40):
        out = f"y{d}"
        tensors[out] = {"dtype": "float32", "sizes": [4]}
        nodes.append({"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "blob": f"b{d}",
                      "inputs": [previous], "outputs": [out]})
        previous = out
    spec = {"methods": [{"name": "forward", "inputs": ["x"], "outputs": [previous], "tensors": tensors, "nodes": nodes}]}
    program = ctx.synth_spec("delegates40", spec)
    app = ctx.open(program)
    show_dock_tab(app, "Pass options")
    time.sleep(1.0)
    ctx.shot("pass-options")
    pane = next((p for p in app.find_all(name="Pass options") if on_screen(p) and role_of(p) != "page tab"), None)
    ctx.check(pane is not None, "no Pass options panel on screen")
    dock = extents(pane)
    boxes = [b for b in app.find_all(role="check box") if on_screen(b) and "_" in name_of(b)]
    # Named "Target device of delegate N" (issue 34 item 1), or by the device they show.
    choosers = [c for c in app.find_all(role="combo box")
                if "Target device of delegate" in name_of(c) or re.fullmatch(r"cuda:\d+|cpu|none", name_of(c))]
    ctx.check(choosers, "no target device chooser in Pass options")
    app.scroll_into_view(choosers[0])
    time.sleep(0.5)
    ctx.shot("choosers")
    # The rows in sight, top to bottom (those scrolled out of sight are not in question).
    def in_sight(w):
        rect = harness.visible_rect(w)
        return rect is not None and rect[3] >= extents(w)[3] - 1
    combos = [c for c in choosers if on_screen(c) and in_sight(c)]
    ctx.check(combos, "no target device chooser can be scrolled into sight")
    for widget in combos[:6] + [b for b in boxes if in_sight(b)]:
        rect = harness.visible_rect(widget)
        whole = extents(widget)
        ctx.expect(rect is not None and rect[2] >= whole[2] - 1,
                   f"{name_of(widget)!r} shows {rect[2] if rect else 0} of its {whole[2]} px: it runs past the dock's "
                   f"edge (dock {dock})")


# A method name a mutated file could carry: a newline, U+0001 and a terminal's
# "red" escape sequence; every message must print it as \xNN, on one line.
CONTROL_NAME = "for\nward\x01\x1b[31m"
CONTROL_NAME_PRINTED = "for\\x0Award\\x01\\x1B[31m"


def aoti_chain(ctx, name: str, delegates: int, method: str = "forward"):
    """A chain of `delegates` CUDA delegates, each with AOTI weights in the .ptd that
    synth writes beside the program; the .ptd is removed, so each misses one entry."""
    tensors, nodes, previous = {"x": {"dtype": "float32", "sizes": [4]}}, [], "x"
    for d in range(delegates):
        out = f"y{d}"
        tensors[out] = {"dtype": "float32", "sizes": [4]}
        nodes.append({"delegate": "CudaBackend", "compile_specs": {"method_name": f"part{d}", "target_device": "cuda:0"},
                      "aoti": {"so": f"so {d}", "weights": f"weights {d}"}, "inputs": [previous], "outputs": [out]})
        previous = out
    spec = {"methods": [{"name": method, "inputs": ["x"], "outputs": [previous], "tensors": tensors, "nodes": nodes}]}
    program = ctx.synth_spec(name, spec)
    for ptd in program.parent.glob("*.ptd"):
        ptd.unlink()
    return program


@timeout(90)
def scenario_cli_messages_one_line_and_counted(ctx):
    """Item 25: `ptescope-cli info` on a program whose 40 delegates miss their named data prints one warning line with the count (not 40); every message of info, render, report, lint, propagate, export, profile, predict, advise, diff, run and a refused edit prints the method's name (newline, U+0001, an escape sequence) escaped, one line each, and their text reports on stdout print no control character but their own line ends."""
    program = aoti_chain(ctx, "missing40", 40, method=CONTROL_NAME)
    info = ctx.cli("info", program)
    # One line for the 40 entries, and one saying that the method's name
    # holds control characters (shown escaped).
    lines = info.stderr.splitlines()
    ctx.note(f"info says: {lines}")
    missing = [l for l in lines if "named data" in l]
    ctx.expect(len(lines) == 2 and len(missing) == 1,
               f"info prints {len(lines)} lines on stderr for 40 missing entries: {lines[:3]}")
    ctx.expect(missing and re.match(r"ptescope-cli: warning: 40 named data entries\b", missing[0]),
               f"info's warning does not count the 40 missing entries: {missing[:1]}")
    ctx.expect(any("control characters" in l for l in lines), f"info does not say the name is shown escaped: {lines}")
    ctx.expect(CONTROL_NAME_PRINTED in info.stderr, f"info's warning does not name the method as {CONTROL_NAME_PRINTED!r}")
    out = ctx.tmp / "out"
    out.mkdir(exist_ok=True)
    commands = [("info", program), ("info", "--json", program), ("lint", program),
                ("render", program, "-o", out / "g.svg"), ("report", program, "-o", out / "r.html"),
                ("propagate", program, "-o", out / "p.pte"), ("export", program, "-o", out / "e.pte"),
                ("predict", program), ("profile", program, "--iterations", "1"), ("advise", program),
                ("diff", program, out / "p.pte"), ("run", program),
                # A refused edit: an error that quotes the method's name, exit 2.
                ("propagate", "--set-device", "99=cuda:1", "-o", out / "bad.pte", program)]
    for args in commands:
        r = ctx.cli(*args, check=False)
        what = "ptescope-cli " + " ".join(str(a) for a in args[:2])
        ctx.expect(r.returncode in (0, 1, 2), f"{what} exited {r.returncode}")
        for line in r.stderr.splitlines():
            ctx.expect(line.startswith("ptescope-cli: "), f"{what}: a message line does not start with "
                                                          f"'ptescope-cli: ' (a name broke it): {line[:120]!r}")
            raw = [hex(ord(c)) for c in line if ord(c) < 0x20 or ord(c) == 0x7F]
            ctx.expect(not raw, f"{what}: a message prints control characters {raw}: {line[:120]!r}")
        # A text report on stdout keeps its own lines; nothing else reaches the terminal raw.
        if "--json" not in args:
            raw = sorted({hex(ord(c)) for c in r.stdout if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7F})
            ctx.expect(not raw, f"{what}: its report prints control characters {raw}")
        ctx.note(f"{what}: exit {r.returncode}, {len(r.stderr.splitlines())} message lines")
    bad = ctx.cli(*commands[-1], check=False)
    ctx.expect(bad.returncode == 2 and CONTROL_NAME_PRINTED in bad.stderr,
               f"the refused edit exits {bad.returncode} and says {bad.stderr.strip()[:200]!r}")


def kib_program(ctx):
    """x float32[2048] -> relu (CPU) -> r -> CUDA delegate -> y: each tensor 2048 x 4 B = 8192 B = "8.0 KiB"."""
    tensors = {n: {"dtype": "float32", "sizes": [2048]} for n in ("x", "r", "y")}
    spec = {"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"], "tensors": tensors, "nodes": [
        {"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
        # Its .so and weights (written to the .ptd beside the program): without them the backend's
        # init fails, an error (PTS020) besides the one warning the scenario counts.
        {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "aoti": {"so": "so", "weights": "w"},
         "inputs": ["r"], "outputs": ["y"]}]}]}
    return ctx.synth_spec("kib", spec)


# Item 26's spellings. A zero duration is "0" (a unit on it read like a whole
# second among µs cells); bytes are "8.0 KiB" as everywhere else; a count of
# one takes the singular.
ZERO_WITH_UNIT = re.compile(r"(?<![\d.,])0(?:\.0+)? ?(?:s|ms|µs|us|ns)\b")
ONE_PLURAL = re.compile(r"(?<![\d.,#%])1 (?:warnings|errors|copies|instructions|delegates|values|iterations|methods|"
                        r"nodes|edits|runs|candidates|entries|bytes|outputs|inputs|rows|matches|groups|buffers|"
                        r"tensors|kernels|items|devices|findings|calls)\b")
BYTES = re.compile(r"\d+(?:\.\d)? (?:B|KiB|MiB|GiB)")


def spelling_problems(where: str, text: str) -> list[str]:
    out = []
    for pattern, what in ((ZERO_WITH_UNIT, "a zero with a unit"), (ONE_PLURAL, "one with a plural")):
        m = pattern.search(text or "")
        if m:
            out.append(f"{where} reads {what} ({m.group(0)!r}): {text[:160]!r}")
    return out


def shown_texts(app) -> list[tuple[str, str]]:
    """(where, text) of every on-screen label, tab and status text, name and description."""
    out = []
    for o in app.find_all(predicate=lambda o: role_of(o) in ("label", "page tab", "status bar", "push button",
                                                             "menu item", "check box", "panel", "filler")):
        if on_screen(o):
            for text in (name_of(o), harness.description_of(o)):
                if text:
                    out.append((role_of(o), text))
    return out


def table_texts(app, tab: str) -> tuple[list[str], list[list[str]]]:
    table = tab_table(app, tab, tab)
    return table_headers(table), table_rows(table)


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_numbers_spelled_alike(ctx):
    """Item 26: on a program of 8 KiB tensors, the Values and Transfers Bytes cells read "8.0 KiB" (not 8192), the memory plan's bands "16.0 KiB"; one finding is "1 warning"; no table cell, tab, label or status text reads a zero with a unit ("0 s") or a count of one with a plural, read back through AT-SPI, before and after an edit and a profile."""
    app = ctx.open(kib_program(ctx))
    problems: list[str] = []

    def sweep(when: str, tabs) -> dict:
        seen = {}
        for tab in tabs:
            headers, rows = table_texts(app, tab)
            seen[tab] = (headers, rows)
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    column = headers[c] if c < len(headers) else str(c)
                    problems.extend(spelling_problems(f"{when}: {tab} row {r} {column}", cell))
                    if column in ("Bytes", "Size") and cell:
                        ctx.expect(BYTES.fullmatch(cell), f"{when}: {tab} row {r} {column} reads {cell!r}, not as "
                                                          "'8.0 KiB'")
        for where, text in shown_texts(app):
            problems.extend(spelling_problems(f"{when}: a {where}", text))
        return seen

    seen = sweep("opened", ("Values", "Diagnostics"))
    headers, rows = seen["Values"]
    ctx.check("Bytes" in headers, f"Values has no Bytes column: {headers}")
    # 2048 float32 elements, 4 bytes each: 8192 B, 8.0 KiB.
    sizes = {row[headers.index("Bytes")] for row in rows if row and row[1] == "Tensor"}
    ctx.expect(sizes == {"8.0 KiB"}, f"the Values Bytes cells read {sorted(sizes)}, not 8.0 KiB")
    # The memory plan is painted; its description says what the bands do.
    bottom_tab(app, "Memory plan")
    plan = wait_until(lambda: next((o for o in app.find_all(name="Memory plan")
                                    if on_screen(o) and role_of(o) != "page tab"), None), timeout=5,
                      what="the memory plan (accessible name 'Memory plan')")
    said = harness.description_of(plan)
    ctx.note(f"memory plan: {said!r}")
    # Each buffer holds two 8 KiB tensors live at once (x and r; the copy of r and y).
    ctx.expect(said.count("16.0 KiB, at most 16.0 KiB live, highest byte 16.0 KiB") == 2, f"the memory plan says {said!r}")
    ctx.shot("memory-plan")

    # One finding: output y planned on cuda:0 (PTS002, a warning).
    toggle_check_box(app, "skip_d2h_for_method_outputs")
    tab = wait_until(lambda: next((name_of(t) for t in app.find_all(role="page tab")
                                   if name_of(t).startswith("Diagnostics (")), None), timeout=10,
                     what="the Diagnostics tab to count the finding")
    ctx.expect(tab == "Diagnostics (0 errors, 1 warning)", f"the Diagnostics tab reads {tab!r}")
    run_profile(app)
    seen = sweep("after an edit and a profile", ("Values", "Transfers", "Changes", "Diagnostics"))
    headers, rows = seen["Transfers"]
    ctx.note(f"Transfers: {headers} {rows}")
    ctx.expect(rows and all(row[headers.index("Bytes")] == "8.0 KiB" for row in rows),
               f"the Transfers Bytes cells read {[row[headers.index('Bytes')] for row in rows]}, not 8.0 KiB")
    bottom_tab(app, "Transfers")
    totals = label_text(labelled(app, "Transfer totals"), "Transfer totals")
    ctx.note(f"totals: {totals!r}")
    ctx.expect(totals and "1 copy" in totals and "8.0 KiB" in totals, f"the Transfer totals read {totals!r}")
    # No d2h copy is left (the output stays on the device): no time or
    # bandwidth is given for it, and its predicted time is "none", the time
    # of no copy everywhere (never "0 s"; walkthrough 19 asked one spelling).
    ctx.expect(totals and "d2h 0 copies · 0 B  ·" in totals and "d2h none" in totals.split("predicted")[-1]
               and "0 s" not in totals, f"the Transfer totals spell no d2h as {totals!r}")
    problems.extend(spelling_problems("the Transfer totals", totals or ""))
    bottom_tab(app, "Timeline")
    time.sleep(0.3)
    for where, text in shown_texts(app):
        problems.extend(spelling_problems(f"Timeline: a {where}", text))
    ctx.shot("timeline")
    for problem in dict.fromkeys(problems):
        ctx.expect(False, problem)


def chromium_loader():
    """tests/browser/report_in_chromium.py's load(chromium, html, fragment, work) and
    the Chromium it found, or (None, None) without one."""
    import importlib.util
    path = harness.REPO / "tests" / "browser" / "report_in_chromium.py"
    spec = importlib.util.spec_from_file_location("report_in_chromium", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    chromium = module.chromium_binary()
    return (module.load, chromium) if chromium else (None, None)


def measured_cells(html: str, method: int, column: str = "Measured") -> list[tuple[str, float]]:
    """(instruction, seconds) of each copy row of method M's Copies table that has a cell in
    COLUMN ("Measured", or "Measured (before the edits)" in a report exported after an edit)."""
    start = html.find(f'<section class="method" id="m{method}">')
    section = html[start:html.find("</section>", start)] if start >= 0 else ""
    header = re.search(r"<table class=\"sortable copies\"[^>]*><thead><tr>(.*?)</tr></thead>", section)
    if not header:
        return []
    columns = re.findall(r"<th[^>]*>([^<]*)</th>", header.group(1))
    if column not in columns:
        return []
    at = columns.index(column)
    out = []
    for row in re.findall(r'<tr class="copy"[^>]*>(.*?)</tr>', section):
        cells = re.findall(r'<td[^>]*?(?: data-v="([^"]*)")?>([^<]*)</td>', row)
        if len(cells) > at and cells[at][0]:
            out.append((cells[0][1], float(cells[at][0])))
    return out


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_report_has_what_the_window_shows(ctx):
    """Item 22: File > Export Report... after importing upstream's ETDump of the demo and an edit holds the trace's measured medians (as `ptescope-cli etdump` reads them) and the edits' before/after ("Compared with demo.pte as loaded"); the report opened with #find=%0 (headless Chromium) shows %0 in its Find box and the match in sight. Without the shared ETDump samples the measurements are not checked (noted); without Chromium the #find= part is not (noted)."""
    trace = ETDUMP_SAMPLES / "demo.etdp"
    program = ctx.tmp / "demo.pte"
    if trace.exists() and (ETDUMP_SAMPLES / "demo.pte").exists():
        program.write_bytes((ETDUMP_SAMPLES / "demo.pte").read_bytes())
    else:
        ctx.note(f"no upstream trace in {ETDUMP_SAMPLES} (the shared ETDump samples): the measurements are not checked")
        trace = None
        ctx.cli("synth", "--demo", "-o", program)
    app = ctx.open(program)
    medians = {}
    if trace is not None:
        app.menu("File", "Import ETDump...")
        dialog = app.wait_dialog(what="the Import ETDump dialog")
        answer_file_dialog(ctx, app, dialog, trace, "Import ETDump")
        table = tab_table(app, "Transfers", "Transfers")
        wait_until(lambda: "median" in " ".join(table_headers(table)).lower(), timeout=15,
                   what="the Transfers table's measured columns after the import")
        # What upstream's runtime recorded, as the CLI reads it: forward's copy medians.
        trace_json = ctx.tmp / "trace.json"
        ctx.cli("etdump", program, trace, "--json", trace_json)
        forward = next(m for m in json.loads(trace_json.read_text())["methods"] if m["method"] == "forward")
        medians = {f"#{c['instruction']}": c["median_us"] * 1e-6 for c in forward["copies"]}
        ctx.note(f"forward's medians in the trace: {medians}")
    # An edit: forward's outputs stay on the device (its last d2h copy goes).
    toggle_check_box(app, "skip_d2h_for_method_outputs")
    wait_title(app, lambda t: "*" in t, what="the title to mark the edit")
    app.menu("File", "Export Report...")
    dialog = app.wait_dialog(what="the Export Report dialog")
    ctx.note(f"the dialog's title: {name_of(dialog)!r}")
    target = ctx.tmp / "shown.html"
    answer_file_dialog(ctx, app, dialog, target, "Export Report")
    ctx.check(wait_until(lambda: target.exists(), timeout=20), "Export Report wrote no shown.html")
    html = target.read_text(encoding="utf-8")
    ctx.expect("<h2>Compared with demo.pte as loaded</h2>" in html,
               "the report does not compare the edited program with demo.pte as loaded (no 'Compared with' section)")
    if trace is not None:
        ctx.expect("Measured: ETDump, host clock (3 iterations)" in html,
                   "the report does not say it holds the imported ETDump's 3 iterations (the trace's manifest)")
        # The trace measured the program as loaded; the report is of the edited one, and says so.
        cells = measured_cells(html, 0, "Measured (before the edits)")
        ctx.note(f"the report's Measured (before the edits) cells of forward: {cells}")
        # The edit removed #7 (forward's last copy); #0, #2 and #5 stay, each with its median.
        ctx.expect([i for i, _ in cells] == ["#0", "#2", "#5"], f"forward's measured copies in the report: {cells}")
        for instruction, seconds in cells:
            want = medians.get(instruction)
            ctx.expect(want is not None and abs(seconds - want) <= 1e-3 * want,
                       f"copy {instruction}: the report says {seconds} s measured, the trace's median is {want}")
    load, chromium = chromium_loader()
    if load is None:
        ctx.note("no Chromium: #find= in the exported report is not checked (tests/browser checks the CLI's report)")
        return
    body, console = load(chromium, str(target), "#find=%250", str(ctx.tmp))
    ctx.note(f"Chromium: {body}")
    ctx.expect(not console, f"the exported report logs in Chromium: {console[:3]}")
    ctx.expect(body.get("data-report") == "ready", f"the report's script did not finish: {body.get('data-report')!r}")
    ctx.expect(body.get("data-find-box") == "%0", f"after #find=%0 the Find box reads {body.get('data-find-box')!r}")
    ctx.expect(int(body.get("data-find-matches", "0")) >= 1, f"#find=%0 matched {body.get('data-find-matches')!r}")
    ctx.expect(body.get("data-find-in-view") == "yes", "#find=%0: the first match is out of sight")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_open_all_groups_keeps_the_selection_and_fit_shows_all(ctx):
    """Item 19: on a 6,000-instruction llm, select #3000 (Find opens its group), View > Open All Groups: #3000 stays selected and in sight; View > Fit to Window: every device region and node exposed lies inside the canvas (Fit went below 1%, it stopped there and showed an eighth)."""
    from scenario_support import graph_selection, select_instruction
    program = ctx.synth("llm6000", "--shape", "llm", "--instructions", "6000")
    app = ctx.open(program, timeout_s=30)
    select_instruction(app, 3000, timeout_s=15)
    before = graph_selection(app)
    ctx.note(f"selected: {before!r}")
    ctx.check("#3000" in before, f"Find '#3000' left the graph at {before!r}")
    app.menu("View", "Open All Groups")
    # The layout of every node takes a moment; the graph says what is selected once it is drawn.
    time.sleep(0.5)
    wait_until(lambda: not [b for b in app.find_all(role="push button", name="Cancel the graph layout") if on_screen(b)],
               timeout=60, what="the layout of all groups to end")
    time.sleep(0.5)
    ctx.shot("all-open")
    after = graph_selection(app)
    ctx.note(f"after Open All Groups: {after!r}")
    ctx.expect("#3000" in after, f"after Open All Groups the graph says {after!r}, not #3000")
    area = canvas_area(app)
    chosen = [i for i in graph_items(app) if harness.has_state(i, "selected")]
    ctx.expect(chosen and harness.intersects(area, extents(chosen[0])),
               f"the selected node is out of sight: {[(name_of(i), extents(i)) for i in chosen]} in {area}")
    app.menu("View", "Fit to Window")
    time.sleep(1.0)
    ctx.shot("fit")
    area = canvas_area(app)
    zoom = zoom_percent(app)
    items = [(name_of(i), extents(i)) for i in graph_items(app) if role_of(i) in ("list item", "grouping", "panel",
                                                                                   "filler", "section")]
    outside = [(n, e) for n, e in items if not harness.contains(area, e, slack=3)]
    regions = [(n, e) for n, e in items if n.startswith(("cuda", "cpu"))]
    ctx.note(f"fit at {zoom}%: canvas {area}, {len(items)} items, regions {regions[:4]}, outside {outside[:4]}")
    ctx.check(items, "the graph exposes nothing after Fit")
    ctx.expect(not outside, f"after Fit {len(outside)} of {len(items)} items lie outside the canvas {area} "
                            f"(zoom {zoom}%): {outside[:3]}")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_advisor_edits_are_whole(ctx):
    """Item 17: on the cross_device program (delegates on cuda:0 and cuda:1) the Advisor's candidates 1 and 2, which differ only in their last flag, read differently in the Edits column; each candidate's Edits fit their cell (the lines they wrap to are as high as the row), more than 2½ rows are in sight, and the status line above them is whole."""
    from advisor import advisor_rows  # noqa: E402 (a sibling scenario file)
    from scenario_support import tab_table
    program = ctx.synth("cross", "--scenario", "cross_device")
    app = ctx.open(program)
    table = tab_table(app, "Advisor", "Advisor")
    rows = advisor_rows(app, table)
    time.sleep(1.0)
    rows = harness.table_rows(table)
    headers = harness.table_headers(table)
    ctx.check(len(headers) > 1 and headers[1] == "Edits", f"the Advisor's columns are {headers}")
    ctx.check(len(rows) >= 2, f"the Advisor lists {len(rows)} candidates")
    edits = [r[1] for r in rows]
    ctx.note(f"{len(rows)} candidates; edits {edits[:3]}")
    ctx.expect(edits[0] != edits[1], f"candidates 1 and 2 read alike: {edits[0]!r}")
    ctx.shot("advisor")
    grid = table.queryTable()
    ctx.note("columns: " + str([(h, extents(grid.getAccessibleAt(0, c))[2]) for c, h in enumerate(headers)]))
    # Where rows show: the table in sight, less its header row and, when
    # the columns are wider than the table, its horizontal scroll bar (Qt
    # exposes neither: the header's bottom from the column headers, the
    # bar's height from another horizontal scroll bar of the same style).
    box = harness.visible_rect(table) or extents(table)
    heads = [extents(h) for h in harness.children_of(table) if role_of(h) == "table column header"]
    heads = [h for h in heads if h and h[2] > 0]
    top = max(h[1] + h[3] for h in heads) if heads else box[1]
    bottom = box[1] + box[3]
    if heads and sum(h[2] for h in heads) > box[2]:
        bars = [extents(b) for b in app.find_all(role="scroll bar") if on_screen(b)]
        bottom -= min([b[3] for b in bars if b[2] > b[3]] or [16])
    view = (box[0], top, box[2], bottom - top)
    whole_rows = 0
    for row in range(min(len(rows), 6)):
        cell = grid.getAccessibleAt(row, 1)
        e = extents(cell)
        rect = harness.visible_rect(cell)
        if rect is not None and rect[3] >= e[3] - 1 and harness.contains(view, e, slack=1):
            whole_rows += 1
        else:
            continue
        # The cell's width (Qt keeps 3 px a side, ImageMagick's measure is
        # a pixel or two off: a cut text is far wider); a line of the 9 pt UI
        # font is 14 px high (DejaVu Sans at 96 dpi).
        lines = wrapped_lines(edits[row], e[2])
        ctx.note(f"row {row + 1}: cell {e}, {lines} lines of {edits[row]!r}")
        ctx.expect(e[3] >= lines * LINE_PX, f"candidate {row + 1}'s Edits need {lines} lines ({lines * LINE_PX} px) "
                                            f"and the row is {e[3]} px: {edits[row]!r} is cut")
    # The status line beside the buttons: whole in its label (the 9 pt UI
    # font measured by ImageMagick, a few pixels of slack).
    status = labelled(app, "Advisor status")
    said = label_text(status, "Advisor status") if status is not None else None
    ctx.check(said, "no label marked 'Advisor status'")
    ctx.note(f"status {said!r}: {harness.text_width(said)} px in {extents(status)}")
    ctx.expect(harness.text_width(said) <= extents(status)[2] + 4,
               f"the Advisor's status line needs {harness.text_width(said)} px and has {extents(status)[2]}: {said!r} is cut")
    ctx.note(f"table in sight {view}, {whole_rows} whole rows in sight")
    ctx.expect(whole_rows >= 3 or whole_rows == len(rows), f"only {whole_rows} whole candidates are in sight "
                                                           f"in {view}")




LONG_METHOD = "forward_with_a_rather_long_method_name"
LONG_DELEGATE = "VulkanBackendForAdrenoGPUs"


def shown_width(obj) -> int:
    rect = harness.visible_rect(obj)
    return rect[2] if rect else 0


def column_header_cells(table) -> list:
    t = table.queryTable()
    return [t.getColumnHeader(c) for c in range(t.nColumns)]


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_texts_whole_where_there_is_room(ctx):
    """Item 27: a delegate named VulkanBackendForAdrenoGPUs is whole in Pass options and on the graph (looked at: the node is painted); after retargeting it in a method with a long name, the Edit menu's Undo item stays inside its menu and the screen; the Profile, Export Report and Import ETDump dialogs are wide enough for their titles; after Run Once every Outputs header and cell text is whole in its column. (The Diagnostics Fix column: panels.py diagnostics_columns_readable.)"""
    tensors = {n: {"dtype": "float32", "sizes": [4]} for n in ("x", "r", "y", "z")}
    spec = {"methods": [{"name": LONG_METHOD, "inputs": ["x"], "outputs": ["z"], "tensors": tensors, "nodes": [
        {"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
        {"delegate": LONG_DELEGATE, "compile_specs": {"target_device": "cuda:0"}, "inputs": ["r"], "outputs": ["y"]},
        {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["y"], "outputs": ["z"]}]}]}
    app = ctx.open(ctx.synth_spec("long-names", spec))
    show_dock_tab(app, "Pass options")
    find_text(app, LONG_DELEGATE, enter=True)
    time.sleep(1.0)
    ctx.shot("delegate-on-graph")  # looked at: the node reads VulkanBackendForAdrenoGPUs whole
    label = wait_until(lambda: next((o for o in app.find_all(role="label", name_contains=LONG_DELEGATE)
                                     if on_screen(o)), None), timeout=5, what=f"Pass options' label of {LONG_DELEGATE}")
    app.scroll_into_view(label)
    need = int(0.95 * harness.text_width(name_of(label)))
    ctx.expect(shown_width(label) >= need, f"Pass options shows {shown_width(label)} px of {name_of(label)!r}, "
                                           f"which needs {need} px")
    combo = next(c for c in app.find_all(role="combo box") if LONG_DELEGATE in name_of(c))
    choose_in_combo(app, combo, "cuda:1")
    wait_title(app, lambda t: "*" in t, what="the title to mark the retarget")

    entry = app.open_menu("Edit")
    undo = next((i for i in app.menu_items(entry) if name_of(i).startswith("Undo")), None)
    ctx.check(undo is not None, "the Edit menu has no Undo item")
    popup = next((c for c in harness.children_of(entry) if role_of(c) in ("popup menu", "menu")), None)
    ctx.note(f"Undo item {name_of(undo)!r} at {extents(undo)} in {extents(popup) if popup else None}")
    ctx.shot("edit-menu")
    screen = (0, 0, ctx.width, ctx.height)
    ctx.expect(contains(screen, extents(undo)), f"the Undo item {extents(undo)} runs off the screen")
    if popup is not None:
        ctx.expect(contains(extents(popup), extents(undo), slack=1),
                   f"the Undo item {extents(undo)} runs off its menu {extents(popup)}")
    ctx.expect(extents(undo)[2] <= 0.7 * ctx.width, f"the Undo item is {extents(undo)[2]} px wide: "
                                                    f"{name_of(undo)!r}")
    app.key("Escape")
    time.sleep(0.3)

    for menu, item in (("Profile", "Profile Transfers..."), ("File", "Export Report..."), ("File", "Import ETDump...")):
        app.menu(menu, item)
        dialog = app.wait_dialog(what=f"the {item} dialog")
        title, e = name_of(dialog), extents(dialog)
        # The title bar holds an icon and three buttons (about 80 px) beside the
        # centred title, drawn bold (about 10% wider).
        need = int(1.1 * harness.text_width(title)) + 80
        ctx.note(f"{item}: {title!r} in {e}")
        ctx.expect(title and e[2] >= need, f"the {item} dialog is {e[2]} px wide; its title {title!r} needs {need}")
        ctx.expect(contains(screen, e), f"the {item} dialog {e} runs off the screen")
        if item.startswith("Profile"):
            ctx.shot("profile-dialog")
        app.key("Escape")
        app.wait_no_dialog()

    app.menu("Run", "Run Once")
    table = tab_table(app, "Outputs", "Outputs")
    wait_until(lambda: table_rows(table), timeout=30, what="Run Once's outputs")
    time.sleep(0.5)
    ctx.shot("outputs")
    headers = table_headers(table)
    for header, cell in zip(headers, column_header_cells(table)):
        if header and cell is not None:
            need = int(0.95 * harness.text_width(header))
            ctx.expect(shown_width(cell) >= need, f"the Outputs header {header!r} shows {shown_width(cell)} of "
                                                  f"{need} px")
    t = table.queryTable()
    for r in range(min(t.nRows, 5)):
        for c in range(t.nColumns):
            cell = t.getAccessibleAt(r, c)
            text = name_of(cell) or harness.text_of(cell)
            if text:
                need = int(0.95 * harness.text_width(text)) + 6
                ctx.expect(shown_width(cell) >= need, f"Outputs row {r} {headers[c]}: {text!r} shows "
                                                      f"{shown_width(cell)} of {need} px")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_empty_diagnostics_say_so(ctx):
    """Issue 34, seen in round two: on a program no lint rule fires on (h2d_d2h) the empty Diagnostics table says "No findings" (drawn in it; read back as the table's description, a table's accessible children being its cells); after an edit that draws a finding (skip_h2d_for_method_inputs with planned inputs) the row shows and the words go."""
    from scenario_support import bottom_tab, tab_table
    program = ctx.synth("clean", "--scenario", "h2d_d2h")
    app = ctx.open(program)
    table = tab_table(app, "Diagnostics", "Diagnostics")
    text = wait_until(lambda: harness.description_of(table), timeout=5, what="the empty Diagnostics table's description")
    png = ctx.shot("no-findings")
    ctx.note(f"empty table says {text!r}")
    ctx.expect(not harness.table_rows(table), f"the Diagnostics of h2d_d2h list {harness.table_rows(table)}")
    ctx.expect(text.startswith("No findings"), f"the empty Diagnostics table says {text!r}")
    # Drawn: the table's middle under its header has text in it.
    x, y, w, h = extents(table)
    middle = (x + w // 4, y + 20, w // 2, h - 24)
    ctx.expect(harness.edge_fraction(png, middle) > 0.002, f"nothing is drawn in the empty table's middle {middle}")
    show_dock_tab(app, "Pass options")
    ctx.check(toggle_check_box(app, "skip_h2d_for_method_inputs"), "skip_h2d_for_method_inputs did not get set")
    wait_title(app, lambda t: "*" in t, what="the title to mark the edit")
    bottom_tab(app, "Diagnostics")
    rows = wait_until(lambda: harness.table_rows(table), timeout=10, what="a finding after the edit")
    ctx.note(f"after the edit: {rows[:2]}")
    ctx.expect(not harness.description_of(table).startswith("No findings"), "the table says 'No findings' over a finding")
    ctx.shot("a-finding")
