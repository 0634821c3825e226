"""Issue 24 items 14, 15, 16 and 17 (and issue 34 item 27): panels show their texts whole.

Contracts:
  - item 14: the Diagnostics table (a table in the "Diagnostics" tab) has
    columns Rule, Location, Finding and Fix;
  - item 17: the temporary status message is an accessible label inside the
    status bar marked "Status message" (accessible description; its name is its
    text) or named "Message": QStatusBar's own message is only painted, so its
    place cannot be checked.
"""

import os
import re
import time

import harness
from harness import (clipping_area, extents, visible_rect, find_all, has_state, intersects, name_of, on_screen, role_of,
                     table_headers, table_rows, text_of, text_width, wait_until)
from scenario_support import (BOTH_SIZES, LINE_PX, label_text, labelled, run_profile, show_dock_tab, sizes,
                              status_bar, tab_table, timeout, toggle_check_box, wrapped_lines)


def fit_window(ctx, app):
    app.move_window(0, 0)
    app.resize(ctx.width, ctx.height - 40)
    time.sleep(0.5)


def cells_with_extents(table):
    """[(row, column, text, extents)] of the table's cells (the Table interface)."""
    out = []
    t = table.queryTable()
    for r in range(min(t.nRows, 50)):
        for c in range(t.nColumns):
            cell = t.getAccessibleAt(r, c)
            if cell is not None:
                out.append((r, c, text_of(cell), extents(cell)))
    return out


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_diagnostics_columns_readable(ctx):
    """Item 14 (and issue 34 item 27): in Diagnostics, the Rule, Location, Finding and Fix texts are whole in their cells, on one line or wrapped at their spaces into a row as high as they need."""
    demo = ctx.demo()
    app = ctx.open(demo)
    fit_window(ctx, app)
    toggle_check_box(app, "skip_d2h_for_method_outputs")  # PTS002: outputs memory-planned on the device
    time.sleep(1.0)
    table = tab_table(app, "Diagnostics", "Diagnostics")
    wait_until(lambda: table_rows(table), timeout=5, what="a finding in Diagnostics")
    headers = table_headers(table)
    ctx.note(f"headers {headers}")
    ctx.shot("diagnostics")
    view = extents(table)
    wanted = {h: i for i, h in enumerate(headers) if h in ("Rule", "Location", "Finding", "Fix")}
    ctx.check(len(wanted) == 4, f"Diagnostics has columns {headers}, not Rule, Location, Finding and Fix")
    for r, c, text, ext in cells_with_extents(table):
        if c not in wanted.values() or not text or not ext:
            continue
        column = headers[c]
        visible = min(ext[0] + ext[2], view[0] + view[2]) - max(ext[0], view[0])
        # The text area: the cell less the item's margins (3 px a side); ImageMagick
        # measures up to 5% wider than Qt draws.
        lines = wrapped_lines(text, int((visible - 6) / 0.95), hyphens=True)
        longest = max(text_width(word) for word in text.split())
        ctx.note(f"row {r} {column}: {visible} x {ext[3]} px, {lines} lines of {text!r}")
        ctx.expect(lines * LINE_PX <= ext[3] + 1 and 0.95 * longest <= visible - 6,
                   f"Diagnostics row {r}: {column} {text!r} needs {lines} lines ({lines * LINE_PX} px) in its "
                   f"{visible} px; the row is {ext[3]} px high")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_pass_options_not_cut(ctx):
    """Item 15: every Pass options check box shows its whole text inside the panel, also after "Pair the skips"."""
    demo = ctx.demo()
    app = ctx.open(demo)
    fit_window(ctx, app)

    def check(when: str) -> None:
        show_dock_tab(app, "Pass options")
        boxes = [b for b in app.find_all(role="check box") if on_screen(b) and "_" in name_of(b)]
        ctx.check(boxes, "no Pass options check box on screen")
        panes = [p for p in app.find_all(name="Pass options") if on_screen(p) and role_of(p) != "page tab"]
        for box in boxes:
            e = extents(box)
            seen = visible_rect(box)
            need = text_width(name_of(box)) + 18  # the text and the box
            area = clipping_area(box)
            if area is not None and seen is not None:
                ctx.expect(e[0] >= area[0] - 1,
                           f"{when}: {name_of(box)!r} starts left of the panel (it scrolls sideways)")
            shown = seen[2] if seen else 0
            ctx.expect(shown >= need, f"{when}: {name_of(box)!r} shows {shown} of the {need} px it needs")
        bars = [b for b in app.find_all(role="scroll bar") if on_screen(b) and has_state(b, "horizontal")
                and any(harness.contains(extents(p), extents(b)) for p in panes)]
        ctx.expect(not bars, f"{when}: the Pass options panel scrolls sideways")

    check("at start")
    toggle_check_box(app, "skip_h2d_for_method_inputs")
    time.sleep(1.0)
    fix = wait_until(lambda: next((b for b in app.find_all(role="push button", name_contains="Pair")
                                   if on_screen(b)), None), timeout=5)
    ctx.check(fix is not None, "skip_h2d_for_method_inputs with planned inputs offers no 'Pair the skips' fix")
    app.click_widget(fix)
    time.sleep(1.0)
    ctx.shot("after-pair")
    check("after 'Pair the skips'")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_emulated_profile_has_no_ratio(ctx):
    """Item 16 (and issue 34 item 27): an emulated profile (no GPU) shows no "Measured / predicted" ratio and no "% of peak" in Transfers: the columns are hidden, not "—" on every row."""
    demo = ctx.demo()
    app = ctx.open(demo)
    run_profile(app)
    table = tab_table(app, "Transfers", "Transfers")
    headers = table_headers(table)
    ctx.note(f"Transfers headers: {headers}")
    ctx.shot("transfers")
    if not any("memcpy" in h.lower() for h in headers) and os.path.exists("/dev/nvidia0"):
        ctx.note("a GPU measured this profile (no 'memcpy' column): not emulated, nothing to check")
        return
    rows = table_rows(table)
    # A hidden column's cells are not showing (extents 0 x 0); the Median column's are.
    t = table.queryTable()
    for c, h in enumerate(headers):
        if h in ("% of peak", "Measured / predicted", "Median") and t.nRows:
            cell = t.getAccessibleAt(0, c)
            shown = visible_rect(cell) if cell is not None and on_screen(cell) else None
            ctx.note(f"{h!r}: row 0's cell shows {shown}")
            if h == "Median":
                ctx.check(shown and shown[2] > 1, f"the Median cell reads as not shown ({shown}): cannot tell hidden")
            else:
                ctx.expect(not shown or shown[2] <= 1, f"an emulated profile shows the column {h!r} ({shown})")
    for c, h in enumerate(headers):
        if "measured" in h.lower() and "predicted" in h.lower():
            values = [row[c] for row in rows if c < len(row)]
            numbers = [v for v in values if re.search(r"\d", v or "")]
            ctx.expect(not numbers, f"an emulated profile shows {h!r}: {numbers[:4]}")
            if not numbers:
                ctx.note(f"the {h!r} column is there, without values ({values[:4]})")
    texts = [c for row in rows for c in row]
    tab = next((t for t in app.find_all(role="page tab") if name_of(t).startswith("Transfers")), None)
    if tab is not None:
        texts += [text_of(o) for o in find_all(harness.parent_of(harness.parent_of(tab)), role="label")
                  if on_screen(o)]
    ratio = [t for t in texts if re.search(r"measured\s*/\s*predicted|\d\s*\u00d7", t, re.I)]
    ctx.expect(not ratio, f"an emulated profile shows a measured / predicted ratio: {ratio[:3]}")
    # README: "Emulated tables show memcpy GB/s and no share of a peak".
    for c, h in enumerate(headers):
        if "peak" in h.lower():
            values = [row[c] for row in rows if c < len(row) and re.search(r"\d", row[c] or "")]
            ctx.expect(not values, f"an emulated profile shows {h!r}: {values[:3]}")


@timeout(90)
def scenario_status_message_does_not_overlap(ctx):
    """Item 17: a temporary status message (after a profile) does not overlap the permanent labels (contract: label "Status message")."""
    demo = ctx.demo()
    app = ctx.open(demo)
    fit_window(ctx, app)
    run_profile(app)
    bar = status_bar(app)
    message = wait_until(lambda: labelled(app, "Status message", root=bar) or labelled(app, "Message", root=bar),
                         timeout=3)
    ctx.shot("status-message")
    if message is None:
        ctx.fail(f"the status message {name_of(bar)!r} is not an accessible label in the status bar "
                 "(contract: a label marked 'Status message')")
    m = extents(message)
    text = label_text(message, "Status message") or label_text(message, "Message") or ""
    ctx.note(f"message {text!r} at {m}")
    drawn = (m[0], m[1], min(m[2], text_width(text) + 4), m[3]) if text else m
    for other in find_all(bar, role=("label", "push button", "progress bar")):
        if other is message or not on_screen(other) or role_of(other) == "status bar":
            continue
        o = extents(other)
        ctx.expect(not intersects(drawn, o), f"the status message {text!r} {drawn} overlaps "
                                             f"{name_of(other)!r} {o}")
