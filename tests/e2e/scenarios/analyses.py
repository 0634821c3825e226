"""Issue 37: the profile analyses in the app, as a person reads them.

Contracts:
  - the Transfers page has a button "Summary" that unfolds a table named
    "Transfer summary" (first column "Direction / size", then "Count", ...);
  - a label described "Time breakdown" (its name is its text) says what an
    iteration is made of and whether the copy/compute overlap can be seen;
  - a label described "Profile findings" lists the findings PRF001-PRF005;
  - the timeline has a widget named "Time breakdown" whose description is the
    bar's text.
"""

import re

import harness
from harness import name_of, on_screen, table_headers, table_rows, wait_until
from scenario_support import bottom_tab, label_text, labelled, run_profile, timeout

_TABLES = ("tree table", "table", "tree", "list")


@timeout(120)
def scenario_transfer_summary_and_breakdown(ctx):
    """Issue 37: after an emulated profile of the demo, Summary counts every copy execution (2 h2d copies x 20 runs), the overlap is said to be invisible, PRF001 names the pageable copies, and the timeline's bar reads the same shares."""
    demo = ctx.demo()
    app = ctx.open(demo)
    run_profile(app)
    bottom_tab(app, "Transfers")
    toggle = wait_until(lambda: next((b for b in app.find_all(name="Summary")
                                      if harness.role_of(b) in ("push button", "toggle button", "check box") and on_screen(b)), None),
                        timeout=5, what="the Transfers page's Summary button")
    app.scroll_into_view(toggle)
    app.click_widget(toggle)
    table = wait_until(lambda: next((t for t in app.find_all(role=_TABLES, name="Transfer summary") if on_screen(t)), None),
                       timeout=5, what="the Transfer summary table")
    ctx.shot("summary")
    headers = table_headers(table)
    ctx.note(f"summary headers: {headers}")
    ctx.expect(headers[:2] == ["Direction / size", "Count"], f"summary headers {headers}")
    rows = {row[0].strip(): row for row in table_rows(table) if row}
    ctx.note(f"summary rows: {list(rows)}")
    # The demo's forward copies 2 values to the device and 2 back per run;
    # the Profile dialog's default is 20 measured runs.
    for direction in ("h2d", "d2h"):
        row = rows.get(f"{direction} (all)")
        ctx.expect(row is not None, f"no '{direction} (all)' row in {list(rows)}")
        if row is not None:
            ctx.expect(row[1] == "40", f"{direction}: count {row[1]!r}, expected 2 copies x 20 runs = 40")
    breakdown = label_text(labelled(app, "Time breakdown"), "Time breakdown")
    ctx.note(f"breakdown: {breakdown}")
    ctx.expect(breakdown is not None and "overlap cannot be seen" in breakdown,
               f"the breakdown does not say the overlap cannot be seen: {breakdown!r}")
    ctx.expect(breakdown is not None and not re.search(r"overlap[^.]*\b0(\.0)?\s*%", breakdown),
               f"the breakdown shows a 0 % overlap: {breakdown!r}")
    findings = label_text(labelled(app, "Profile findings"), "Profile findings")
    ctx.expect(findings is not None and "PRF001 [pageable-copy]" in findings, f"findings: {findings!r}")
    # The timeline's bar: the same shares.
    bottom_tab(app, "Timeline")
    bar = wait_until(lambda: next((o for o in app.find_all(name="Time breakdown") if on_screen(o)), None),
                     timeout=5, what="the timeline's Time breakdown bar")
    text = harness.description_of(bar)
    ctx.note(f"timeline bar: {text}")
    ctx.shot("timeline")
    ctx.expect("delegates not run" in text and "overlap cannot be seen" in text, f"timeline bar: {text!r}")
    share = re.search(r"kernels (\d+\.\d)%", text)
    ctx.expect(share is not None and breakdown is not None and f"kernels {share.group(1)}%" in breakdown,
               f"the bar ({text!r}) and the Summary ({breakdown!r}) disagree on the kernels' share")
