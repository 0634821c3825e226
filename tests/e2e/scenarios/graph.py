"""Issue 24 items 4, 6, 8, 18 and 20: the graph view.

Contracts these scenarios rely on (what the app must expose to the
accessibility tree), besides what Qt gives every widget:
  - the graph canvas's accessible name is "Graph" and its description says
    what is selected: "Selected: #2 aten::embedding.out", "Selected: %16 ·
    ← #2 embedding" (a stub), "Nothing selected";
  - item 6, its zoom: an accessible object named "Zoom" whose text reads
    "125%" (or the Graph's description "... zoom 125% ..."); 100% draws node
    titles at the UI font's size;
  - item 8, the legend and the overview (minimap): widgets named (or described)
    "Legend" and "Overview". One that lies over the canvas must be hideable
    through a checkable View menu item of that name, so that the suite can look
    at what it covers;
  - item 18, graph items: the Graph's accessible children are its stubs and
    device regions with their on-screen extents: a region named "cuda:0", a
    stub named "%16 ← #2 embedding" whose description names its region.
"""

import re
import time

import harness

from harness import (App, E2EError, children_of, contains, description_of, edge_fraction, extents, intersects, name_of,
                     on_screen, role_of, wait_until)
from scenario_support import (BOTH_SIZES, find_text, graph_selection, graph_view, sizes, timeout,
                              zoom_percent)


def graph_items(app: App) -> list:
    """The graph's items as accessible children of the Graph (contract); [] when not exposed."""
    try:
        g = graph_view(app)
    except E2EError:
        return []
    out = []
    stack = list(children_of(g, limit=2000))
    while stack:
        o = stack.pop()
        if role_of(o) == "scroll bar":
            continue
        if name_of(o):
            out.append(o)
        stack.extend(children_of(o, limit=2000))
    return out


def canvas_area(app: App):
    """The part of the screen the graph is drawn in: the Graph's unnamed
    viewport child where it has one (not the ones holding scroll bars), else
    the Graph itself (its named children are graph items)."""
    g = graph_view(app)
    for k in children_of(g):
        if name_of(k) or role_of(k) == "scroll bar" or not on_screen(k):
            continue
        if any(role_of(c) == "scroll bar" for c in children_of(k)):
            continue
        return extents(k)
    return extents(g)


STUB = re.compile(r"\u2190\s*#(\d+)")


@timeout(120)
def scenario_stub_double_click_selects_producer(ctx):
    """Item 4: double-clicking a stub ("%N ← #K op") selects its producer #K, not whatever lands under the pointer."""
    program = ctx.synth("llm8", "--shape", "llm", "--layers", "8")
    app = ctx.open(program)
    time.sleep(1.0)
    area = canvas_area(app)
    producer, target, selected = None, None, ""
    # The Graph's items (contract): a stub "%18 ← #3 embedding" fully in view.
    for item in graph_items(app):
        m = STUB.search(name_of(item))
        rect = extents(item)
        if m and rect and contains(area, rect):
            centre = (rect[0] + rect[2] // 2, rect[1] + rect[3] // 2)
            app.click(*centre)
            time.sleep(0.4)
            selected = graph_selection(app)
            if STUB.search(selected):
                producer, target = int(m.group(1)), centre
                break
    # Else Find "stub": it selects a stub and centres the view on it; Enter goes
    # to the next. A stub fed by an instruction reads "← #K ...".
    if producer is None:
        find_text(app, "stub")
        centre = (area[0] + area[2] // 2, area[1] + area[3] // 2)
        for _ in range(25):
            time.sleep(0.4)
            selected = graph_selection(app)
            m = STUB.search(selected)
            if m:
                # Is it under the centre of the view? A click there keeps it selected.
                app.click(*centre)
                time.sleep(0.4)
                if graph_selection(app) == selected:
                    producer, target = int(m.group(1)), centre
                    break
            app.key("ctrl+f")
            app.key("Return")
    if producer is None:
        ctx.fail(f"no stub fed by an instruction could be brought under the pointer (Graph items or Find 'stub'; "
                 f"the Graph's description: {graph_selection(app)!r})")
    centre = target
    ctx.note(f"stub {selected!r}, producer #{producer}")
    app.click(*centre, double=True)
    time.sleep(1.5)
    ctx.shot("after-double-click")
    after = graph_selection(app)
    # "Selected: embedding · #0 · cpu:0" (an instruction), not a stub "← #0 ...".
    ctx.expect(after.startswith("Selected:") and "\u2190" not in after and re.search(rf"#{producer}\b", after),
               f"double-clicking the stub {selected!r} selected {after!r}, not its producer #{producer}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_first_picture_legible(ctx):
    """Item 6: the demo and an 8-layer llm open at a zoom where node titles are at least the UI font's size (zoom >= 100%, contract "Zoom"), with an overview for the rest."""
    for name, args in (("demo", ("--demo",)), ("llm8", ("--shape", "llm", "--layers", "8"))):
        program = ctx.synth(name, *args)
        app = ctx.open(program)
        time.sleep(1.5)
        ctx.shot(f"first-picture-{name}")
        zoom = zoom_percent(app)
        if zoom is None:
            ctx.fail("the app does not show its zoom readably (contract: an accessible marked 'Zoom' whose name or "
                     "description reads 'N%')")
        ctx.expect(zoom >= 99.5, f"{name}: the first picture is at {zoom}% zoom; node titles are smaller "
                                 f"than the UI font")
        if name == "llm8":
            overview = overlay(app, "Overview")
            ctx.expect(overview is not None, "llm8 does not fit at a legible zoom, and no overview shows the rest")
        app.quit()


def overlay(app: App, name: str):
    """The legend / the overview: named or described so, beside the Graph (in
    the graph view's container), else anywhere in the window."""
    def is_it(x):
        return (name_of(x) == name or description_of(x).startswith(name)) and \
            role_of(x) not in ("menu item", "check menu item", "page tab")
    try:
        container = harness.parent_of(graph_view(app))
    except E2EError:
        container = None
    for root in ([container] if container is not None else []) + [app.frame]:
        for o in app.find_all(root=root, predicate=is_it):
            if on_screen(o):
                return o
    return None


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_legend_and_overview_leave_graph_visible(ctx):
    """Item 8: on the demo, the legend and the overview do not cover the graph: outside the canvas, or (hidden through the View menu) nothing is drawn where they sit. A device region's empty corner under the overview is no part of the graph hidden: at 1000x700 the first picture holds the start and the first device step clear of the overview's column, the region's edge runs under it (walkthrough twenty-three); then no node, edge label or mark of the graph is under it."""
    program = ctx.demo()
    app = ctx.open(program)
    time.sleep(1.5)
    area = canvas_area(app)
    ctx.shot("with-overlays")
    covering = {}
    for name in ("Legend", "Overview"):
        o = overlay(app, name)
        if o is None:
            ctx.note(f"no {name} on screen")
            continue
        rect = extents(o)
        ctx.note(f"{name} at {rect}, canvas {area}")
        if intersects(rect, area):
            covering[name] = rect
    if not covering:
        return
    view_items = [name_of(i).split("\t")[0].replace("&", "") for i in App.menu_items(
        app._menu_entry(app.menu_bar(), "View"))]
    for name, rect in covering.items():
        toggle = next((i for i in view_items if i.lower() in (name.lower(), "show " + name.lower())), None)
        if toggle is None:
            ctx.expect(False, f"the {name} {rect} lies over the graph canvas {area} and the View menu cannot hide "
                              f"it to show what is under it (contract: View > {name} or Show {name})")
            continue
        app.menu("View", toggle)
        wait_until(lambda n=name: overlay(app, n) is None, timeout=5, what=f"View > {name} to hide it")
        bare = ctx.shot(f"without-{name.lower()}")
        inside = (max(rect[0], area[0]), max(rect[1], area[1]),
                  min(rect[0] + rect[2], area[0] + area[2]) - max(rect[0], area[0]),
                  min(rect[1] + rect[3], area[1] + area[3]) - max(rect[1], area[1]))
        share = edge_fraction(bare, inside)
        ctx.note(f"{name}: {share:.4f} of the canvas under it is drawing")
        under = [name_of(i) for i in graph_items(app)
                 if not name_of(i).startswith(("cpu", "cuda")) and harness.intersection(extents(i), inside)]
        if share >= 0.004:
            ctx.note(f"graph items under the {name}: {under}")
            ctx.expect(not under, f"the {name} covers part of the graph ({share:.1%} of the area under it is "
                                  f"drawing when it is hidden): {under}")
        app.menu("View", toggle)


@timeout(90)
def scenario_stubs_inside_their_region(ctx):
    """Item 18: every stub lies inside the device region it belongs to (contract: stub and region items in the Graph)."""
    program = ctx.synth("llm8", "--shape", "llm", "--layers", "8")
    app = ctx.open(program)
    time.sleep(1.0)
    app.menu("View", "Fit to Window")  # every item in view
    time.sleep(1.0)
    items = graph_items(app)
    regions = {name_of(o): extents(o) for o in items if re.fullmatch(r"(cpu|cuda):\d+( region)?", name_of(o))}
    stubs = [o for o in items if "\u2190" in name_of(o)]
    if not regions or not stubs:
        ctx.fail(f"the Graph exposes {len(regions)} device regions and {len(stubs)} stubs (contract: items named "
                 "'cuda:0' and '%N ← #K op', the stub's description naming its region)")
    for stub in stubs:
        device = re.search(r"(cpu|cuda):\d+", description_of(stub) or "")
        if device is None:
            ctx.expect(False, f"stub {name_of(stub)!r} does not say which region it belongs to (description)")
            continue
        region = next((r for n, r in regions.items() if n.startswith(device.group(0))), None)
        ctx.expect(region is not None and contains(region, extents(stub), slack=1),
                   f"stub {name_of(stub)!r} at {extents(stub)} lies outside its region {device.group(0)} {region}")


@timeout(90)
def scenario_layer_groups_for_8_layer_llm(ctx):
    """Item 20: an 8-layer llm (253 instructions) opens with layer groups (Find 'layers' selects a group 'layers …')."""
    program = ctx.synth("llm8", "--shape", "llm", "--layers", "8")
    app = ctx.open(program)
    time.sleep(1.5)
    ctx.shot("llm8")
    groups = [name_of(o) for o in graph_items(app) if name_of(o).lower().startswith("layer")]
    if groups:
        ctx.note(f"groups: {groups[:5]}")
        return
    # A group's title reads "layers 2–7" (tensor names read "layers.2.…"): Find
    # "layers K" selects the group that starts at layer K.
    found = None
    for k in (1, 2, 0, 3):
        find_text(app, f"layers {k}")
        found = wait_until(lambda: re.search(r"Selected:.*\blayers?\s+\d", graph_selection(app)), timeout=1.0)
        if found:
            break
    ctx.expect(found, f"an 8-layer llm shows no layer groups (Find 'layers 0'..'layers 3' selects "
                      f"{graph_selection(app)!r})")
