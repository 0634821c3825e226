"""Issue 25: the Advisor panel as a person uses it.

Contracts:
  - the Details dock has an "Advisor" tab; its table is named "Advisor" with the
    columns "#", "Edits", "Copies after", "Bytes after", "Saves per call",
    "Device memory", "Asks of the caller";
  - a label described "Advisor status" says the method's copies now;
  - clicking a row previews it in the graph (the diff banner says "preview of
    advisor candidate"), the button "Apply" applies it as one edit, Ctrl+Z
    takes it back;
  - with a measured profile of the method open (Profile > Profile Transfers...),
    the table gains the column "Measured saving" beside "Predicted saving", the
    rows follow the measured ranking and the status says "Ranked by the
    measured profile".
"""

import time

import harness
from harness import has_state, name_of, on_screen, table_headers, table_rows, wait_until
from scenario_support import (BOTH_SIZES, check_box, is_checked, label_text, labelled, run_profile, show_dock_tab,
                              sizes, tab_table, timeout, wait_title)


def advisor_rows(app, table):
    return wait_until(lambda: [r for r in table_rows(table) if len(r) > 1 and r[1]], timeout=30,
                      what="a candidate in the Advisor table")


def texts_containing(app, needle: str) -> list[str]:
    out = []
    for obj in harness.walk(app.frame, deep=True, showing_only=True):
        for text in (name_of(obj), harness.description_of(obj)):
            if needle in text:
                out.append(text)
    return out


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_advisor_ranks_previews_applies(ctx):
    """Issue 25: the Advisor lists both skips first for a+b on cuda:0, previews it, applies it as one undoable edit."""
    program = ctx.synth("h2d_d2h", "--scenario", "h2d_d2h")
    app = ctx.open(program)
    table = tab_table(app, "Advisor", "Advisor")
    rows = advisor_rows(app, table)
    headers = table_headers(table)
    ctx.note(f"headers {headers}; first row {rows[0]}")
    ctx.check(headers[:3] == ["#", "Edits", "Copies after"] and "Asks of the caller" in headers,
              f"the Advisor table has columns {headers}")
    first = dict(zip(headers, rows[0]))
    ctx.expect("--skip-h2d-inputs" in first["Edits"] and "--skip-d2h-outputs" in first["Edits"],
               f"the best candidate is {first['Edits']!r}, not both skips")
    ctx.expect(first["Copies after"].endswith("none"), f"the best candidate leaves copies: {first['Copies after']!r}")
    ctx.expect("cuda:0" in first["Asks of the caller"], f"the caller contract is {first['Asks of the caller']!r}")
    status = wait_until(lambda: label_text(labelled(app, "Advisor status"), "Advisor status"), timeout=5,
                        what="the Advisor status label")
    ctx.expect("3 copies" in status, f"the Advisor status says {status!r}")

    # A click on the row previews it in the graph; the document is not edited.
    cell = table.queryTable().getAccessibleAt(0, 1)
    app.click_widget(cell)
    wait_until(lambda: texts_containing(app, "preview of advisor candidate 1"), timeout=15,
               what="the graph's banner to say it previews candidate 1")
    ctx.expect("*" not in app.title(), f"a preview marked the document edited: {app.title()!r}")
    ctx.shot("preview")

    apply = wait_until(lambda: next((b for b in app.find_all(role="push button", name="Apply") if on_screen(b)), None),
                       timeout=5, what="the Apply button")
    ctx.check(has_state(apply, "enabled"), "Apply is disabled with a candidate selected")
    app.click_widget(apply)
    wait_title(app, lambda t: "*" in t, what="the title to mark the edit")
    show_dock_tab(app, "Pass options")
    box = check_box(app, "skip_h2d_for_method_inputs")
    wait_until(lambda: is_checked(box), timeout=5, what="skip_h2d_for_method_inputs to be set by Apply")
    ctx.expect(is_checked(check_box(app, "skip_d2h_for_method_outputs")), "Apply did not set skip_d2h_for_method_outputs")
    ctx.shot("applied")

    # One undo takes the whole candidate back.
    app.key("ctrl+z")
    wait_until(lambda: not is_checked(check_box(app, "skip_h2d_for_method_inputs")), timeout=5,
               what="Ctrl+Z to clear skip_h2d_for_method_inputs")
    ctx.expect(not is_checked(check_box(app, "skip_d2h_for_method_outputs")),
               "one Ctrl+Z left skip_d2h_for_method_outputs set: Apply was not one edit")


MEASURED = "Measured saving (emulated)"


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_advisor_ranks_by_measured_profile(ctx):
    """Issue 37: after a profile of a+b on cuda:0, the Advisor shows the measured saving beside the predicted one, ranked by it."""
    program = ctx.synth("h2d_d2h", "--scenario", "h2d_d2h")
    app = ctx.open(program)
    run_profile(app)
    table = tab_table(app, "Advisor", "Advisor")

    def measured_headers():
        headers = table_headers(table)
        # A host profile is emulated, and its column says so.
        return headers if MEASURED in headers else None

    headers = wait_until(measured_headers, timeout=30, what="the Advisor's Measured saving column")
    ctx.note(f"headers {headers}")
    ctx.check("Predicted saving" in headers, f"no Predicted saving column beside the measured one: {headers}")
    ctx.check(headers.index(MEASURED) == headers.index("Predicted saving") + 1,
              f"measured and predicted savings are not side by side: {headers}")
    rows = advisor_rows(app, table)
    records = [dict(zip(headers, r)) for r in rows]
    ctx.note(f"rows {records}")
    ctx.expect(all(r[MEASURED] for r in records), f"a row without a measured saving: {records}")
    # Every copy of the method is in the profile: no figure is marked partly predicted.
    ctx.expect(not any(r[MEASURED].endswith("*") for r in records), f"a saving marked partly predicted: {records}")
    status = wait_until(lambda: label_text(labelled(app, "Advisor status"), "Advisor status"), timeout=5,
                        what="the Advisor status label")
    ctx.expect("valid edits by measured time." in status, f"the Advisor status says {status!r}")
    ctx.shot("measured")
