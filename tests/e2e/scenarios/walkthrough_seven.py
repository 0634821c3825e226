"""Issue 34, what the sixth walkthrough left and the seventh found of its classes.

  - item 11's class (what belongs to one thing stays over the next): after Profile on
    forward, choosing prefill kept "Profiled forward · host emulation ..." on the status
    line over a method that has no profile.
  - item 9's class (a count that disagrees with what is shown): the Advisor's "best 1 of the
    4 valid edits" over one row.
  - item 7's class (a figure that reads as what it is not): a delegate's target device
    "none" predicted as a saving of the copies it moves inside the delegate.
  - item 8's class: a profile's per-copy times after an edit read as the edited program's.
"""

import time

from harness import find, on_screen, text_of, wait_until
from scenario_support import BOTH_SIZES, choose_in_combo, label_text, labelled, run_profile, sizes, timeout
from walkthrough_six import status_message  # noqa: E402 (a sibling scenario file)


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_a_profiles_message_leaves_with_its_method(ctx):
    """Item 11 (class): Profile on the demo's forward says 'Profiled forward ...' on the status line; choosing prefill in the Method box clears it (it stayed over prefill for 15 s)."""
    app = ctx.open(ctx.demo())
    combo = wait_until(lambda: find(app.frame, role="combo box", name="Method"), timeout=10, what="the Method box")
    if text_of(combo) != "forward":
        choose_in_combo(app, combo, "forward")
    run_profile(app)
    said = wait_until(lambda: (lambda t: t if t.startswith("Profiled forward") else None)(status_message(app)),
                      timeout=20, what="the status line to say 'Profiled forward ...'")
    ctx.note(f"after the profile: {said[:120]!r}")
    choose_in_combo(app, combo, "prefill")
    wait_until(lambda: text_of(combo) == "prefill", timeout=10, what="the Method box to show prefill")
    time.sleep(0.5)
    now = status_message(app)
    ctx.note(f"on prefill: {now!r}")
    ctx.shot("prefill")
    ctx.expect(not now.startswith("Profiled forward"), f"forward's profile message stays over prefill: {now!r}")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_the_advisor_counts_what_it_lists(ctx):
    """Walkthrough seven (item 9's class: a count that disagrees with what is shown): on a moe program the Advisor said 'best 1 of the 4 valid edits' over one row; its status now counts the rows it lists, and the table's header says the bytes are those after the edit."""
    from harness import table_headers, table_rows
    from scenario_support import tab_table
    app = ctx.open(ctx.synth("moe2", "--shape", "moe", "--layers", "2"))
    table = tab_table(app, "Advisor", "Advisor")
    rows = wait_until(lambda: [r for r in table_rows(table) if len(r) > 1 and r[1]], timeout=60,
                      what="a candidate in the Advisor table")
    status = wait_until(lambda: label_text(labelled(app, "Advisor status"), "Advisor status"), timeout=5,
                        what="the Advisor status label")
    headers = table_headers(table)
    ctx.note(f"{len(rows)} rows; status {status!r}; headers {headers}")
    ctx.shot("advisor")
    ctx.expect(" of the " not in status, f"the status counts edits it does not list: {status!r}")
    said = "1 valid edit saves time." if len(rows) == 1 else f"{len(rows)} valid edits save time."
    ctx.expect(said in status, f"the status does not count the {len(rows)} rows: {status!r}")
    ctx.expect("Bytes after" in headers, f"the bytes column does not say they are after the edit: {headers}")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_no_target_device_is_no_saving(ctx):
    """Walkthrough seven (item 7's class: a figure that reads as something it is not): Pass options, delegate 0's target device 'none' on a pipeline program: the diff banner predicted a saving of the copies the passes no longer insert, while CudaBackend copies the same tensors inside the delegate; the banner now predicts no saving and the Transfers table lists the copies inside the delegate."""
    import re
    from harness import name_of, table_rows
    from scenario_support import set_target_device, tab_table
    app = ctx.open(ctx.synth("pipe2", "--shape", "pipeline", "--layers", "2"))
    set_target_device(app, 0, "none")

    def banner():
        for o in app.find_all(role="label"):
            t = text_of(o) or name_of(o)
            if on_screen(o) and "predicted" in t and "per run" in t:
                return t
        return None
    said = wait_until(banner, timeout=20, what="the diff banner's prediction")
    ctx.note(f"banner: {said!r}")
    ctx.shot("none")
    m = re.search(r"predicted ([+\u2212-])", said)
    ctx.expect(m is None or m.group(1) == "+", f"the banner predicts a saving for 'none': {said!r}")
    rows = wait_until(lambda: table_rows(tab_table(app, "Transfers", "Transfers")) or None, timeout=10,
                      what="the Transfers rows")
    inside = [r for r in rows if any("inside delegate 0" in c for c in r)]
    ctx.note(f"{len(rows)} rows, {len(inside)} inside delegate 0: {inside[:2]}")
    ctx.expect(inside, f"no copy inside delegate 0 in Transfers: {rows[:4]}")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_times_from_before_the_edits_say_so(ctx):
    """Walkthrough seven (item 8's class): after Profile and then an edit (skip_d2h_for_method_outputs), the totals said 'measured before the edits' but the Transfers rows' Median column and the graph's legend read as the edited program's times; the column is 'Median (before edits)' now."""
    from harness import table_headers
    from scenario_support import show_dock_tab, tab_table, toggle_check_box, wait_title
    app = ctx.open(ctx.demo())
    run_profile(app)
    table = tab_table(app, "Transfers", "Transfers")
    headers = wait_until(lambda: (lambda h: h if "Median" in h else None)(table_headers(table)), timeout=20,
                         what="the Transfers table's Median column")
    ctx.note(f"before the edit: {headers}")
    show_dock_tab(app, "Pass options")
    time.sleep(0.3)
    toggle_check_box(app, "skip_d2h_for_method_outputs")
    wait_title(app, lambda t: "*" in t, what="the title to show the edit")
    table = tab_table(app, "Transfers", "Transfers")
    after = wait_until(lambda: (lambda h: h if "Median (before edits)" in h else None)(table_headers(table)),
                       timeout=20, what="the Median column to say it is from before the edits")
    ctx.note(f"after the edit: {after}")
    ctx.shot("after-edit")
    ctx.expect("Median (before edits)" in after, f"the Transfers headers after the edit: {after}")
