"""Issue 34, items 15-28: what a new user meets, round two (the annoying and cosmetic ones).

Contracts these scenarios rely on, besides those of graph.py:
  - item 28: while no program is open, the graph area shows a label whose
    accessible name is its text, saying how to open one ("Ctrl+O");
  - item 23: the bar of a file that is gone is the reload bar (a label marked
    "File changed on disk" whose description is its text);
  - item 20: the Find status ("Find status") speaks of the picture shown.
"""

import os
import re
import time

import harness
from harness import contains, extents, name_of, on_screen, role_of, wait_until
from scenario_support import (BOTH_SIZES, check_box, find_status, find_text, graph_view, label_text, labelled,
                              show_dock_tab, sizes, timeout, toggle_check_box, wait_title, zoom_percent)
from graph import canvas_area, graph_items, overlay  # noqa: E402 (a sibling scenario file)

BAR = "File changed on disk"


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
