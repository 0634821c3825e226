"""Issue 24 item 9: Find says what it found and reaches what collapsed groups hide.

Contracts: a label next to the Find box marked "Find status" (accessible
description; its name is its text) reading "1 of 3" (match i of n) or "Not
found"; the Graph's accessible description says what is selected ("Selected:
#2 aten::embedding.out", "Nothing selected"); an exact "#K" query selects
instruction K (Properties then shows "Instruction | K").
"""

import re
import time

from harness import wait_until
from scenario_support import (LABEL_CONTRACT, find_status, find_text, graph_selection, label_text, property_value,
                              timeout)


def status_text(ctx, app) -> str:
    label = find_status(app)
    if label is None:
        ctx.fail("no 'Find status' next to the Find box (contract: a label marked 'Find status')")
    text = label_text(label, "Find status")
    if text is None:
        ctx.fail(f"the Find status label's text cannot be read ({LABEL_CONTRACT})")
    return text


@timeout(150)
def scenario_find_feedback(ctx):
    """Item 9: Find shows "1 of N" for a match and "Not found" (clearing the selection) for none; #200 on a 2,000-instruction fanout program selects instruction 200 inside a collapsed group."""
    demo = ctx.demo()
    dump = ctx.dump(demo)
    app = ctx.open(demo)
    # An operator of the demo, as Find takes it.
    ops = dump["execution_plan"][0].get("operators", [])
    op = ops[0]["name"].split("::")[-1] if ops else "copy"
    find_text(app, op)
    time.sleep(0.5)
    text = status_text(ctx, app)
    ctx.expect(re.search(r"\b1\s+of\s+\d+", text), f"Find {op!r}: the status reads {text!r}, not '1 of N'")
    # Select instruction 0 first, then look for nothing: the selection goes.
    find_text(app, "#0", enter=True)
    wait_until(lambda: property_value(app, "Instruction") == "0", timeout=5, what="Find '#0' to select instruction 0")
    find_text(app, "zzz_nothing_is_called_this", enter=True)
    time.sleep(0.5)
    text = status_text(ctx, app)
    ctx.expect("not found" in text.lower(), f"Find of nothing: the status reads {text!r}, not 'Not found'")
    ctx.expect(property_value(app, "Instruction") is None and "#0" not in graph_selection(app),
               f"after a Find that matches nothing, the previous selection stays ({graph_selection(app)!r})")
    app.quit()

    big = ctx.synth("fanout2k", "--shape", "fanout", "--instructions", "2000")
    app = ctx.open(big, timeout_s=30)
    time.sleep(1.0)
    find_text(app, "#200", enter=True)
    reached = wait_until(lambda: property_value(app, "Instruction") == "200", timeout=15)
    ctx.shot("fanout-200")
    ctx.expect(reached, f"Find '#200' on a 2,000-instruction program did not select instruction 200 "
                        f"(Properties: {property_value(app, 'Instruction')!r}; graph: {graph_selection(app)!r})")
