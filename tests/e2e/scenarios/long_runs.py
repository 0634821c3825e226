"""Issue 34 item 14: a long Run Once keeps saying how far it is, and Cancel stops it at once.

Contracts:
  - while Run Once runs, the Outputs header (a label whose name is its text)
    reads "Running 'forward'… instruction K of N, S s so far; Cancel stops
    it", and S keeps counting while one kernel takes all the time (a timer of
    the UI thread, not the kernel, moves it);
  - Cancel (a push button "Cancel", named "Cancel Run Once", beside the header) stops the run inside
    that kernel: the header then reads "Run cancelled: no outputs", the
    status bar's message "Run Once cancelled", and the Outputs table is empty.
"""

import re

from harness import find, name_of, on_screen, table_rows, wait_until
from scenario_support import BOTH_SIZES, bottom_tab, label_text, labelled, sizes, status_bar, timeout

# One [4096, 4096] @ [4096, 4096] matrix product, 2^36 multiply-adds: minutes
# on the CPU kernels, so the run is in that one kernel whenever the scenario
# looks.
LONG_PRODUCT = {
    "methods": [{
        "name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
        "tensors": {"a": {"dtype": "float32", "sizes": [4096, 4096]}, "b": {"dtype": "float32", "sizes": [4096, 4096]},
                    "y": {"dtype": "float32", "sizes": [4096, 4096]}},
        "nodes": [{"op": "aten::mm.out", "inputs": ["a", "b"], "outputs": ["y"]}],
    }],
}

SO_FAR = re.compile(r"(\d+) s so far")


def _header(app):
    """The Outputs header while it says how long the run has taken."""
    for o in app.find_all(role="label"):
        if SO_FAR.search(name_of(o)) and on_screen(o):
            return o
    return None


def _seconds(text: str) -> int:
    m = SO_FAR.search(text)
    return int(m.group(1)) if m else -1


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_long_run_once_counts_and_cancels(ctx):
    """Issue 34 item 14: Run Once of a one-kernel program that takes minutes: the header's 'S s so far' counts up while the kernel runs, and Cancel stops it within seconds: 'Run cancelled', outputs cleared."""
    program = ctx.synth_spec("long-product", LONG_PRODUCT)
    app = ctx.open(program, timeout_s=20)
    app.menu("Run", "Run Once")
    bottom_tab(app, "Outputs")
    header = wait_until(lambda: _header(app), timeout=20, what="the Outputs header to say how long the run has taken")
    # The inputs are filled first (seconds on a busy machine), then the product runs.
    first = wait_until(lambda: (lambda t: t if "instruction 1 of 1" in t else None)(name_of(header)), timeout=60,
                       what="the header to say the product runs")
    ctx.note(f"first: {first!r}")
    # Read again: the count has moved on (the run is inside the product all along).
    later = wait_until(lambda: (lambda t: t if _seconds(t) > _seconds(first) else None)(name_of(header)), timeout=10,
                       what=f"the header's seconds to count on from {first!r}")
    ctx.note(f"later: {later!r}")
    ctx.expect("instruction 1 of 1" in later, f"the header does not say which instruction runs: {later!r}")
    ctx.shot("running")

    cancel = wait_until(lambda: next((b for b in app.find_all(role="push button", name="Cancel Run Once") if on_screen(b)), None),
                        timeout=5, what="the Outputs panel's Cancel button")
    app.click_widget(cancel)

    # Seconds, not the minutes the product would take to finish.
    def cancelled():
        for o in app.find_all(role="label"):
            if name_of(o).startswith("Run cancelled") and on_screen(o):
                return name_of(o)
        return None
    text = wait_until(cancelled, timeout=10, what="the Outputs header to say the run was cancelled")
    ctx.expect("failed" not in text, f"a cancel is no failure: {text!r}")
    outputs = find(app.frame, role="table", name="Outputs")
    ctx.check(outputs is not None, "no table 'Outputs'")
    ctx.expect(not table_rows(outputs), f"the Outputs table keeps rows after the cancel: {table_rows(outputs)[:2]}")
    bar = status_bar(app)
    message = labelled(app, "Status message", root=bar)
    shown = label_text(message, "Status message") if message is not None else None
    ctx.expect(shown == "Run Once cancelled", f"the status bar says {shown!r}, not 'Run Once cancelled'")
    ctx.shot("cancelled")
