"""Issue 35: a TensorRT delegate in the app.

Contracts:
  - selecting a TensorRTBackend delegate call, the Properties panel lists the
    blob under the delegate ("Payload" = "TensorRT engine (TR01)", its
    "Device id") and, where the backend stages host memory (device planning
    off), a "Copies inside delegate" row whose children read "inside
    delegate 0 (TensorRTBackend): input %N is host memory, staged
    host-to-device (...)" with the bytes: never an instruction.
  - the graph marks those copies on the delegate's boundary edges: one
    accessible item per copy, named by its badge "inside delegate 0: h2d
    64 B" (direction and bytes) and described by its whole line, drawn in
    the canvas, never a node ("list item") of its own; the delegate node's
    description lists them and the legend names the mark.
  - the Transfers table lists those copies as rows of their own: "Where"
    reads "inside delegate 0 (TensorRTBackend)" (et_copy rows read
    "et_copy"), with direction, bytes and the delegate's instruction; the
    totals below count them apart ("h2d inside delegates 1 copy · 64 B");
    clicking such a row selects the delegate call (Properties: Instruction 1).
  - the check box "CUDA graph replay in forward" beside the link (Transfers)
    is the app's --cuda-graph: on, the demo's CudaBackend delegates get
    their replay copies marked "... d2d ... (CUDA graph replay)" and the
    legend says the setting is on; off, they go.
"""

import time

from harness import (children_of, contains, description_of, extents, intersects, name_of, role_of, table_headers,
                     table_rows, wait_until)
from scenario_support import (BOTH_SIZES, bottom_tab, graph_view, label_text, labelled, properties_rows, property_value,
                              select_instruction, sizes, tab_table, timeout, toggle_check_box)

# x (2x8 float32, 64 B) -> relu -> r -> TensorRTBackend -> y -> relu -> z, device planning off:
# the delegate stages r host-to-device and y device-to-host (TensorRTBackend.cpp 720-745, 883-900).
SPEC = {
    "methods": [{
        "name": "forward", "inputs": ["x"], "outputs": ["z"],
        "tensors": {n: {"dtype": "float32", "sizes": [2, 8]} for n in ("x", "r", "y", "z")},
        "nodes": [
            {"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
            {"delegate": "TensorRTBackend", "compile_specs": {"target_device": "cuda:0"},
             "tensorrt": {"engine": "engine-bytes"}, "inputs": ["r"], "outputs": ["y"]},
            {"op": "aten::relu.out", "inputs": ["y"], "outputs": ["z"]},
        ],
    }],
    "options": {"enable_non_cpu_memory_planning": False},
}


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_tensorrt_properties(ctx):
    """Issue 35: Properties shows a TensorRT delegate's blob and the copies it makes inside itself, with their mark."""
    program = ctx.synth_spec("trt_legacy", SPEC)
    app = ctx.open(program)
    select_instruction(app, 1)
    rows = wait_until(lambda: (lambda r: r if any(k == "Copies inside delegate" for k, *_ in r) else None)(
        properties_rows(app)), timeout=10, what="the Copies inside delegate row in Properties")
    values = {k: v for k, v, *_ in rows if k}
    ctx.expect(values.get("Payload") == "TensorRT engine (TR01)", f"Payload row reads {values.get('Payload')!r}")
    ctx.expect(values.get("Device id") == "0", f"Device id row reads {values.get('Device id')!r}")
    copies = [(k, v) for k, v, *_ in rows if v.startswith("inside delegate 0 ")]
    texts = [v for _, v in copies]
    ctx.expect(len(copies) == 2, f"two copies inside the delegate listed, got {texts}")
    ctx.expect(any(k == "h2d" and "staged host-to-device" in v and v.endswith("64 B") for k, v in copies),
               f"an h2d row 'staged host-to-device ... 64 B', got {copies}")
    ctx.expect(any(k == "d2h" and "staged device-to-host" in v and v.endswith("64 B") for k, v in copies),
               f"a d2h row 'staged device-to-host ... 64 B', got {copies}")
    ctx.expect(all("(TensorRTBackend)" in v for v in texts), f"each row names the backend: {texts}")
    ctx.shot(f"tensorrt-properties-{ctx.width}x{ctx.height}")
    ctx.finish()


def graph_children(app):
    """(role, name, description, extents) of the Graph's accessible children."""
    return [(role_of(o), name_of(o), description_of(o), extents(o)) for o in children_of(graph_view(app), limit=2000)]


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_tensorrt_graph_marks(ctx):
    """Issue 35: the graph draws the copies inside a TensorRT delegate on its boundary with their own mark, never as nodes."""
    program = ctx.synth_spec("trt_legacy", SPEC)
    app = ctx.open(program)
    marks = wait_until(lambda: [c for c in graph_children(app) if c[1].startswith("inside delegate ")] or None,
                       timeout=10, what="the marks of the copies inside delegate 0 in the graph")
    names = sorted(n for _, n, _, _ in marks)
    # Hand count (SPEC above): r (2x8 float32 = 64 B) staged h2d, y (64 B) staged d2h.
    ctx.expect(names == ["inside delegate 0: d2h 64 B", "inside delegate 0: h2d 64 B"], f"the two marks, got {names}")
    ctx.expect(all(role != "list item" for role, *_ in marks), f"a mark is not a node: {[m[0] for m in marks]}")
    ctx.expect(all(d.startswith("inside delegate 0 (TensorRTBackend): ") and d.endswith(", 64 B") for _, _, d, _ in marks),
               f"each mark described by its whole line: {[m[2] for m in marks]}")
    canvas = extents(graph_view(app))
    # Offered while in sight: each at least partly in the graph's viewport (the small screen may cut one).
    ctx.expect(all(e and e[2] > 0 and intersects(canvas, e) for *_, e in marks),
               f"the marks are drawn in the graph {canvas}: {[m[3] for m in marks]}")
    ctx.expect(any(contains(canvas, e, slack=2) for *_, e in marks), f"one mark wholly in sight: {[m[3] for m in marks]}")
    nodes = [c for c in graph_children(app) if c[0] == "list item"]
    ctx.expect(not any(n.startswith(("h2d", "d2h")) for _, n, _, _ in nodes),
               f"no copy node (no et_copy in legacy mode): {[n for _, n, _, _ in nodes]}")
    delegate = [c for c in nodes if "instruction #1" in c[2]]
    ctx.expect(len(delegate) == 1 and "copies inside the delegate (no instruction): " in delegate[0][2]
               and "inside delegate 0: h2d 64 B" in delegate[0][2] and "inside delegate 0: d2h 64 B" in delegate[0][2],
               f"the delegate node lists its copies inside: {delegate}")
    legend = [o for o in app.find_all(name="Legend")]
    ctx.expect(any("copy inside a delegate" in description_of(o) for o in legend),
               f"the legend names the mark: {[description_of(o) for o in legend]}")
    ctx.shot(f"tensorrt-graph-{ctx.width}x{ctx.height}")
    ctx.finish()


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_tensorrt_transfers_rows(ctx):
    """Issue 35: the Transfers table lists the copies inside a TensorRT delegate as rows marked "inside delegate 0 (TensorRTBackend)", the totals count them apart, and a click on one selects the delegate."""
    program = ctx.synth_spec("trt_legacy", SPEC)
    app = ctx.open(program)
    table = tab_table(app, "Transfers", "Transfers")
    headers = wait_until(lambda: (lambda h: h if "Where" in h else None)(table_headers(table)), timeout=10,
                         what="the Transfers table's Where column")
    column = {h: c for c, h in enumerate(headers)}
    rows = wait_until(lambda: table_rows(table) or None, timeout=10, what="the Transfers rows")
    ctx.note(f"Transfers rows: {rows}")
    # Hand count (SPEC above): legacy mode has no et_copy; r (64 B) staged h2d, y (64 B) staged d2h by delegate
    # 0, the call at instruction 1.
    inside = [r for r in rows if r[column["Where"]] == "inside delegate 0 (TensorRTBackend)"]
    ctx.expect(len(rows) == 2 and len(inside) == 2, f"two rows, both inside delegate 0: {rows}")
    ctx.expect(sorted(r[column["Direction"]] for r in inside) == ["d2h", "h2d"], f"h2d and d2h: {inside}")
    ctx.expect(all(r[column["Bytes"]] == "64 B" and r[column["Instruction"]] == "1" for r in inside),
               f"64 B each, at the delegate's instruction 1: {inside}")
    text = wait_until(lambda: label_text(labelled(app, "Transfer totals"), "Transfer totals") or None, timeout=5,
                      what="the Transfer totals")
    ctx.note(f"totals: {text}")
    ctx.expect("h2d inside delegates 1 copy · 64 B" in text and "d2h inside delegates 1 copy · 64 B" in text,
               f"the totals count the staging apart: {text!r}")
    cell = table.queryTable().getAccessibleAt(0, column["Direction"])
    app.click_widget(cell)
    ctx.expect(wait_until(lambda: property_value(app, "Instruction") == "1", timeout=5) is not None,
               f"a click on a row inside the delegate selects its call: Properties shows instruction "
               f"{property_value(app, 'Instruction')!r}")
    ctx.shot(f"tensorrt-transfers-{ctx.width}x{ctx.height}")
    ctx.finish()


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_cuda_graph_toggle(ctx):
    """Issue 35: the CUDA-graph toggle beside the link adds the replay copies inside the demo's CudaBackend delegates to the graph."""
    app = ctx.open(ctx.demo())
    bottom_tab(app, "Transfers")
    ctx.expect(not any(n.startswith("inside delegate ") for _, n, _, _ in graph_children(app)),
               "no copies inside delegates before the toggle")
    ctx.check(toggle_check_box(app, "CUDA graph replay in forward"), "the toggle turned on")
    # The whole graph in sight: at 1000x700 the first picture holds the start and delegate 0's step only.
    app.menu("View", "Fit to Window")
    time.sleep(0.5)
    marks = wait_until(lambda: [c for c in graph_children(app) if c[1].startswith("inside delegate ")] or None,
                       timeout=15, what="the CUDA graph replay marks in the graph")
    names = sorted(n for _, n, _, _ in marks)
    # Hand count (resources/demo.json, forward): delegate 0 x 1x64 float32 in (256 B), hidden out (256 B);
    # delegate 1 activated in (256 B), logits 1x16 out (64 B); each copied d2d per replay
    # (cuda_backend.cpp 573-590, 600-610). Only the marks in sight are offered: at least one per delegate.
    expected = {"inside delegate 0: d2d 256 B (CUDA graph replay)", "inside delegate 1: d2d 256 B (CUDA graph replay)",
                "inside delegate 1: d2d 64 B (CUDA graph replay)"}
    ctx.expect(set(names) <= expected and len(names) >= 2, f"replay marks, got {names}")
    ctx.expect(all(d.endswith(("256 B", "64 B")) and "CudaBackend" in d for _, _, d, _ in marks),
               f"described by their whole line: {[m[2] for m in marks]}")
    legend = [description_of(o) for o in app.find_all(name="Legend")]
    ctx.expect(any("CUDA graph replay is on" in d for d in legend), f"the legend says the setting is on: {legend}")
    ctx.shot(f"cuda-graph-toggle-{ctx.width}x{ctx.height}")
    ctx.check(not toggle_check_box(app, "CUDA graph replay in forward"), "the toggle turned off")
    wait_until(lambda: not any(n.startswith("inside delegate ") for _, n, _, _ in graph_children(app)) or None,
               timeout=15, what="the replay marks to go")
    ctx.finish()
