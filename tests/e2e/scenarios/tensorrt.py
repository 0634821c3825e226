"""Issue 35: a TensorRT delegate in the app.

Contracts:
  - selecting a TensorRTBackend delegate call, the Properties panel lists the
    blob under the delegate ("Payload" = "TensorRT engine (TR01)", its
    "Device id") and, where the backend stages host memory (device planning
    off), a "Copies inside delegate" row whose children read "inside
    delegate 0 (TensorRTBackend): input %N is host memory, staged
    host-to-device (...)" with the bytes: never an instruction.
"""

from harness import wait_until
from scenario_support import BOTH_SIZES, properties_rows, select_instruction, sizes, timeout

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
