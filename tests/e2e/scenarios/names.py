"""Issue 24 item 21: names from the file are text everywhere (never rich text)."""

import time

from harness import description_of, find_all, name_of, on_screen, role_of, table_rows, text_of
from scenario_support import (LABEL_CONTRACT, label_text, labelled, panel_table, property_value, status_bar, timeout)

METHOD = "fwd<b>x</b>&amp;<i>y"

SPEC = {
    "methods": [{
        "name": METHOD,
        "inputs": ["a"],
        "outputs": ["y"],
        "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "y": {"dtype": "float32", "sizes": [2, 2]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["y"]}],
    }],
}


@timeout(60)
def scenario_names_are_text(ctx):
    """Item 21: a method named fwd<b>x</b>&amp;<i>y shows literally in the status bar, the method chooser, Properties, Pass options and the program tree."""
    program = ctx.synth_spec("markup", SPEC)
    app = ctx.open(program)
    time.sleep(0.5)

    # The status bar: the label that names the method.
    bar = status_bar(app)
    texts = [name_of(o) for o in find_all(bar, role="label") if on_screen(o)]
    ctx.note(f"status bar: {texts}")
    marked = labelled(app, "Method", root=bar)
    if marked is not None:
        shown = label_text(marked, "Method")
        if shown is None:
            ctx.expect(False, f"the status bar's Method label hides its text ({LABEL_CONTRACT})")
        else:
            ctx.expect(METHOD in shown, f"the status bar's Method label reads {shown!r}")
    else:
        ctx.expect(any(METHOD in t for t in texts), f"no status bar label shows the method name literally: {texts}")
        for t in texts:
            if "fwd" in t:
                ctx.expect(METHOD in t, f"a status bar label reads {t!r}")

    # The method chooser (a combo box named "Method"; its value is its text).
    combos = [text_of(c) for c in app.find_all(role="combo box", name="Method")]
    ctx.expect(combos and all(METHOD in c for c in combos), f"the method chooser reads {combos}")

    # Properties (nothing selected: the method's summary).
    app.key("Escape")
    shown = property_value(app, "Method")
    ctx.expect(shown == METHOD, f"Properties' Method reads {shown!r}")

    # Every label (Pass options' title among them) and every cell of the program tree that shows the name.
    for label in app.find_all(role=("label", "heading", "text")):
        for t in (name_of(label), description_of(label)):
            if "fwd" in t:
                ctx.expect(METHOD in t, f"a {role_of(label)} reads {t!r}")
    try:
        tree = panel_table(app, "Program", timeout_s=3)
    except Exception:  # noqa: BLE001 - the name may be missing before the fix
        tree = None
    if tree is not None:
        cells = [c for row in table_rows(tree) for c in row if "fwd" in c]
        ctx.expect(cells, "the program tree shows no method named fwd...")
        for c in cells:
            ctx.expect(METHOD in c, f"the program tree reads {c!r}")
    ctx.shot("names")
