"""Issue 24 item 10: the keyboard reaches every panel, and the View menu offers what the graph's keys do."""

import time

from harness import App, extents, has_state, name_of, role_of
from scenario_support import (find_field, focused_widget, panel_table, properties_panel, tab_table, timeout)


def describe(obj) -> str:
    return f"[{role_of(obj)}] {name_of(obj)!r}" if obj is not None else "nothing"


@timeout(90)
def scenario_keyboard_leaves_values_table(ctx):
    """Item 10: Tab from inside the Values table reaches a widget outside it within 4 presses (Ctrl+Tab too), and Tab alone tours the Find box, the program tree and Properties."""
    demo = ctx.demo()
    app = ctx.open(demo)
    table = tab_table(app, "Values", "Values")
    e = extents(table)
    # A person clicks into the table (a cell of the first rows).
    app.click(e[0] + min(60, e[2] // 4), e[1] + min(40, e[3] // 3))
    ctx.check(has_state(table, "focused") or focused_widget(app) is table,
              f"clicking the Values table did not focus it (focus: {describe(focused_widget(app))})")

    def left_table(key: str) -> bool:
        app.click(e[0] + min(60, e[2] // 4), e[1] + min(40, e[3] // 3))
        time.sleep(0.2)
        for _ in range(4):
            app.key(key)
            time.sleep(0.15)
            if not has_state(table, "focused"):
                return True
        return False

    ctx.expect(left_table("Tab"), "4 x Tab inside the Values table never left it")
    ctx.expect(left_table("ctrl+Tab"), "4 x Ctrl+Tab inside the Values table never left it")

    # A tour with Tab only, from the Values table: which of the panels get the focus.
    stops = {"Find box": find_field(app), "program tree": panel_table(app, "Program"),
             "Properties": properties_panel(app), "Values table": table}
    app.click(e[0] + min(60, e[2] // 4), e[1] + min(40, e[3] // 3))
    visited = []
    for _ in range(24):
        app.key("Tab")
        time.sleep(0.1)
        here = next((name for name, obj in stops.items() if has_state(obj, "focused")), None)
        visited.append(here or "-")
        if here == "Values table" and len(visited) > 3:  # round the whole window
            break
    tour = " -> ".join(visited)
    ctx.note("Tab tour: " + tour)
    for stop in ("Find box", "program tree", "Properties"):
        ctx.expect(stop in visited, f"Tab from the Values table never reaches the {stop}: {tour}")


@timeout(60)
def scenario_view_menu_offers_graph_keys(ctx):
    """Item 10: the View menu has Zoom In, Zoom Out, Fit, Find and Open All Groups."""
    demo = ctx.demo()
    app = ctx.open(demo)
    entry = app.open_menu("View")
    names = [name_of(i).split("\t")[0].replace("&", "").lower() for i in App.menu_items(entry)]
    ctx.shot("view-menu")
    app.key("Escape")
    ctx.note(f"View menu: {names}")
    for wanted in ("zoom in", "zoom out", "fit", "find", "open all groups"):
        ctx.expect(any(n.startswith(wanted) for n in names), f"the View menu has no {wanted!r} item: {names}")
