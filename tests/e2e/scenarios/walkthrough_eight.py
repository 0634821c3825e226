"""Issue 34, what the seventh walkthrough left and the eighth found of its classes.

  - item 16's class (a panel that takes the graph's room): a profile made the Details dock
    taller at 1000x700; the Timeline's lanes now scroll between a pinned axis and legend.
  - item 7's class (a figure that reads as what it is not): a delegate's target device taken
    away moved its copies inside the delegate; the Changes list priced only the et_copy
    copies (a saving the banner did not see) and listed none of those inside.
  - item 27's class (cut or squeezed texts): a long method name, once shown, widened the
    right docks for good (the graph lost a third of its width at 1000x700).
"""

import time

from harness import description_of, extents, find, name_of, on_screen, role_of, table_rows, text_of, wait_until
from scenario_support import (BOTH_SIZES, bottom_tab, choose_in_combo, graph_view, run_profile,
                              set_target_device, sizes, timeout)


def _details_height(app) -> int:
    """The Details dock's height (its frame, named "Details")."""
    frame = wait_until(lambda: next((o for o in app.find_all(role="frame", name="Details") if on_screen(o)), None),
                       timeout=5, what="the Details dock")
    return extents(frame)[3]


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_a_profile_leaves_the_details_dock_its_height(ctx):
    """Walkthrough eight (item 16's class): on the demo, with the Timeline shown, the Details dock keeps its height through Profile (at 1000x700 it grew from 200 to 319 px and the graph lost a third); the Timeline's legend is read back (its description)."""
    app = ctx.open(ctx.demo())
    bottom_tab(app, "Timeline")
    time.sleep(0.5)
    before = _details_height(app)
    run_profile(app)
    bottom_tab(app, "Timeline")

    def legend():
        for o in app.find_all(name="Timeline"):
            d = description_of(o)
            if role_of(o) != "page tab" and on_screen(o) and d.startswith("Legend:"):
                return d
        return None
    said = wait_until(legend, timeout=20, what="the Timeline's legend (described 'Legend: ...')")
    time.sleep(0.5)
    after = _details_height(app)
    ctx.note(f"Details {before} -> {after} px high; {said[:80]!r}")
    ctx.shot("timeline")
    ctx.expect(after <= before + 2, f"the Details dock went from {before} to {after} px high after Profile")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_changes_list_the_copies_inside_a_delegate(ctx):
    """Walkthrough eight (item 7's class): the demo's delegate 1 (CudaBackend) set to target device 'none': the diff banner counts '+2 copies inside delegates' and predicts no change; the Changes list has a '+ inside delegate 1 (CudaBackend): cuda staging ...' row per copy and its method line predicts what the banner does (it said a saving)."""
    app = ctx.open(ctx.demo())
    set_target_device(app, 1, "none")

    def banner():
        for o in app.find_all(role="label"):
            t = text_of(o) or name_of(o)
            if on_screen(o) and "Diff against the file as loaded" in t and "predicted" in t:
                return t
        return None
    said = wait_until(banner, timeout=20, what="the diff banner's prediction")
    ctx.note(f"banner: {said!r}")
    ctx.expect("+2 copies inside delegates" in said, f"the banner does not count the copies inside the delegate: {said!r}")
    bottom_tab(app, "Changes")
    time.sleep(0.5)
    items = []
    for t in app.find_all(role=("list", "table", "tree table")):
        if on_screen(t):
            items += [c for row in table_rows(t) for c in row]
    for o in app.find_all(role="list item"):
        items.append(name_of(o))
    inside = [i for i in dict.fromkeys(items) if "inside delegate 1 (CudaBackend): cuda staging" in i]
    header = next((i for i in items if i.startswith("method 'forward'")), "")
    ctx.note(f"Changes: {header!r}; inside: {inside}")
    ctx.shot("changes")
    ctx.expect(len(inside) == 2, f"the Changes list shows {len(inside)} copies inside delegate 1, not 2: {items[:12]}")
    ctx.expect("no change in copy time" in header and "no change in copy time" in said,
               f"the Changes line {header!r} and the banner {said!r} do not predict alike")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_a_long_method_name_widens_nothing(ctx):
    """Walkthrough eight (item 27's class): a program with 'forward' and two methods of 58-character names differing at their ends; shown and left through the Method box, the graph keeps its width (the right docks widened for good, 411 -> 233 px at 1000x700) and the Pass options title keeps the name's end."""
    methods = []
    for name in ("forward", "encode_image_patches_with_a_very_long_method_name_v2_final",
                 "encode_image_patches_with_a_very_long_method_name_v2_draft"):
        methods.append({"name": name, "inputs": ["x"], "outputs": ["y"],
                        "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]}},
                        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]})
    app = ctx.open(ctx.synth_spec("long-twins", {"methods": methods}))
    combo = wait_until(lambda: find(app.frame, role="combo box", name="Method"), timeout=10, what="the Method box")
    time.sleep(0.5)
    before = extents(graph_view(app))[2]
    choose_in_combo(app, combo, "encode_image_patches_with_a_very_long_method_name_v2_draft")
    time.sleep(1.0)
    ctx.shot("draft")
    choose_in_combo(app, combo, "forward")
    time.sleep(1.0)
    after = extents(graph_view(app))[2]
    ctx.note(f"graph width {before} -> {after} px")
    ctx.shot("forward-again")
    ctx.expect(after >= before - 2, f"the graph went from {before} to {after} px wide after a long method was shown")
