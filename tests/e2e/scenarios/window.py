"""Issue 24 items 3 and 11: the window keeps a size the screen can hold; panels do not squeeze the graph."""

import time

from harness import extents, find, find_all, text_of, wait_until
from scenario_support import bottom_tab, graph_view, run_profile, timeout, wait_title


def check_width(ctx, app, when: str) -> None:
    """The window is no wider than the screen, and can be made exactly as wide as it."""
    left, right, _, _ = app.frame_extents()
    width = ctx.width - left - right
    w = app.geometry()[2]
    ctx.expect(w + left + right <= ctx.width,
               f"{when}: the window is {w} px wide (+{left + right} px frame), wider than the {ctx.width} px screen")
    app.resize(width, app.geometry()[3])
    wait_until(lambda: app.geometry()[2] == width, timeout=3)
    w2 = app.geometry()[2]
    ctx.expect(w2 == width, f"{when}: asked for a {width} px wide window (the screen's width), it stays {w2} px wide")


@timeout(120)
def scenario_window_width_after_profile(ctx):
    """Item 3: at 1000x700 the window opens within the screen; two profiles on the NVLink-C2C link (the second with compare columns) leave it within the screen and resizable to the screen's width."""
    demo = ctx.demo()
    app = ctx.app(demo, "--link", "nvlink-c2c", fit=False)
    wait_title(app, lambda t: "demo.pte" in t, what="the title to name demo.pte")
    time.sleep(0.5)
    check_width(ctx, app, "at start")
    app.fit_to_screen()
    bottom_tab(app, "Transfers")
    chooser = wait_until(lambda: next((c for c in find_all(app.frame, role="combo box", name="Link profile")
                                       if "NVLink" in text_of(c)), None), timeout=5)
    ctx.expect(chooser is not None, "the Transfers panel's link chooser does not show NVLink-C2C (--link nvlink-c2c)")
    run_profile(app)
    ctx.shot("after-first-profile")
    check_width(ctx, app, "after the first profile")
    run_profile(app, expect_compare=True)
    ctx.shot("after-second-profile")
    check_width(ctx, app, "after the second profile (compare columns)")


@timeout(90)
def scenario_run_once_keeps_graph_height(ctx):
    """Item 11: Run > Run Once shows the outputs without shrinking the graph (its height stays within 10%, also back on Values)."""
    demo = ctx.demo()
    app = ctx.open(demo)
    before = extents(graph_view(app))
    ctx.check(before and before[3] > 0, "the graph view has no extents")
    app.menu("Run", "Run Once")
    bottom_tab(app, "Outputs")
    outputs = wait_until(lambda: find(app.frame, role="table", name="Outputs"), timeout=5)
    if outputs is not None:
        from harness import table_rows
        wait_until(lambda: table_rows(outputs), timeout=15, what="the outputs of Run Once")
    time.sleep(0.5)
    after = extents(graph_view(app))
    ctx.shot("after-run-once")
    ctx.expect(after[3] >= 0.9 * before[3], f"Run Once shrank the graph from {before[3]} px to {after[3]} px high")
    bottom_tab(app, "Values")
    time.sleep(0.5)
    later = extents(graph_view(app))
    ctx.expect(later[3] >= 0.9 * before[3],
               f"after Run Once and back on Values, the graph is {later[3]} px high (was {before[3]} px)")
