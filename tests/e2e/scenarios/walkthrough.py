"""Issue 34, a third walkthrough of its classes on programs the fixes were not made with.

Item 21's class: the first picture shows where the program starts. A program whose one
delegate call reads 24 method inputs (as a QNN or XNNPACK program's does) is too wide to
fit at a legible scale; its first picture showed the row of inputs and no instruction.
"""

import time

from harness import extents, name_of
from scenario_support import BOTH_SIZES, sizes, timeout, zoom_percent
from graph import canvas_area, graph_items  # noqa: E402 (a sibling scenario file)


def wide_call_spec(inputs: int) -> dict:
    names = [f"i{k}" for k in range(inputs)]
    tensors = {n: {"dtype": "float32", "sizes": [4]} for n in names}
    tensors["y"] = {"dtype": "float32", "sizes": [4]}
    return {"methods": [{"name": "forward", "inputs": names, "outputs": ["y"], "tensors": tensors,
                         "nodes": [{"delegate": "QnnBackend", "blob": "q", "inputs": names, "outputs": ["y"]}]}]}


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_first_picture_shows_the_first_call(ctx):
    """Item 21 (class): a program whose one delegate call reads 24 inputs opens with that call (#0) whole in the canvas, legible."""
    program = ctx.synth_spec("wide-call", wide_call_spec(24))
    app = ctx.open(program)
    time.sleep(2.0)
    ctx.shot("first-picture")
    area = canvas_area(app)
    items = [(name_of(i), extents(i)) for i in graph_items(app)]
    calls = [(n, e) for n, e in items if "QnnBackend" in n and "#0" in n]
    ctx.note(f"canvas {area}; items in sight: {[n for n, _ in items][:30]}")
    ctx.check(items, "the Graph exposes no items (contract: its nodes in sight are accessible children)")
    ctx.expect(calls, f"the delegate call #0 is not in sight in the first picture; in sight: {[n for n, _ in items][:12]}")
    for n, (x, y, w, h) in calls:
        ax, ay, aw, ah = area
        ctx.expect(x >= ax - 1 and y >= ay - 1 and x + w <= ax + aw + 1 and y + h <= ay + ah + 1,
                   f"{n!r} at {(x, y, w, h)} is cut by the canvas {area}")
    zoom = zoom_percent(app)
    ctx.expect(zoom is None or zoom >= 99.5, f"the first picture is at {zoom}%: node titles smaller than the UI font")
