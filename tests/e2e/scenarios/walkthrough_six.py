"""Issue 34, what the fifth and sixth walkthroughs found of its classes.

  - item 10's class (Find says what it found): Find selected the group "layer 5"; opening it
    (now also Enter on the graph) showed "Not found" in red while the user looked at what was
    found. The instructions of an open group match its title; their selection says
    "· in layer 5" and Properties has a Group row.
  - item 2's class (Save As and the file on disk): Save As into another folder left the
    delegates' weights (aoti_cuda_blob.ptd) behind without a word; they go with it now, and
    the status line says so.
  - item 4's class (a program whose data is not all there is accepted without a word): a
    CudaBackend delegate whose weights are in no .ptd had no finding in Diagnostics ("No
    findings") while the backend's init fails: lint PTS020.
  - item 11's class (what belongs to one file stays for the next): the previous file's
    "Profiled forward · ..." message stayed over the next file's name for 12 s.
"""

import time

from harness import description_of, find, find_all, name_of, on_screen, table_rows, wait_until
from scenario_support import (BOTH_SIZES, answer_file_dialog, bottom_tab, file_dialog_open, find_status, find_text,
                              graph_selection, label_text, labelled, properties_rows, run_profile, sizes, status_bar,
                              tab_table, timeout)


def demo_in(ctx, folder: str):
    """The demo written into a folder of its own (with its aoti_cuda_blob.ptd); the folder and the program."""
    where = ctx.tmp / folder
    where.mkdir(exist_ok=True)
    ctx.cli("synth", "--demo", "-o", where / "demo.pte")
    return where, where / "demo.pte"


def status_message(app) -> str:
    bar = status_bar(app)
    o = labelled(app, "Status message", root=bar)
    return (label_text(o, "Status message") or "") if o is not None and on_screen(o) else ""


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_an_opened_group_is_still_found(ctx):
    """Item 10 (class): on an 8-layer llm, Find 'layer 5' selects the group; Escape, then Enter on the graph opens it; the selection is its first instruction, read '... · in layer 5', Find's status is 'N of M' (not 'Not found'), Properties' Group row says 'layer 5'."""
    app = ctx.open(ctx.synth("llm8", "--shape", "llm", "--layers", "8"))
    find_text(app, "layer 5", enter=True)
    said = wait_until(lambda: (lambda s: s if "layer 5" in s else None)(graph_selection(app)), timeout=10,
                      what="Find 'layer 5' to select the layer or one of its instructions")
    ctx.note(f"Find: {said!r}")
    if not said.startswith("Selected: layer 5"):
        ctx.note("layer 5 was open in the first picture already")
    else:
        app.key("Escape")  # from the Find box to the graph
        time.sleep(0.3)
        app.key("Return")  # opens the selected group
        said = wait_until(lambda: (lambda s: s if "· in layer 5" in s else None)(graph_selection(app)), timeout=30,
                          what="the opened group's first instruction to be selected, said to be in layer 5")
    status = find_status(app)
    text = (label_text(status, "Find status") or "") if status is not None else ""
    rows = properties_rows(app)
    group = next((r[1] for r in rows if r and r[0] == "Group"), None)
    ctx.note(f"selection {said!r}; Find status {text!r}; Properties Group {group!r}")
    ctx.shot("opened")
    ctx.expect("· in layer 5" in said, f"the selection does not say its group: {said!r}")
    ctx.expect(text and "Not found" not in text and " of " in text, f"Find's status after opening the group: {text!r}")
    ctx.expect(group == "layer 5", f"Properties' Group row reads {group!r}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_save_as_takes_the_programs_data(ctx):
    """Item 2 (class): File > Save As of the demo (its weights in aoti_cuda_blob.ptd) into another folder writes the .ptd beside the saved program and the status line says so; the saved program opens with no finding."""
    _, program = demo_in(ctx, "from")
    app = ctx.open(program)
    other = ctx.tmp / "elsewhere"
    other.mkdir(exist_ok=True)
    app.menu("File", "Save As...")
    dialog = app.wait_dialog(what="the Save As dialog")
    answer_file_dialog(ctx, app, dialog, other / "x.pte", "Save As")
    wait_until(lambda: (other / "x.pte").exists(), timeout=10, what="Save As to write x.pte")
    said = wait_until(lambda: (lambda t: t if "Saved" in t else None)(status_message(app)), timeout=10,
                      what="the status line to say what Save As wrote")
    ctx.note(f"status: {said!r}")
    ctx.shot("saved")
    ctx.expect((other / "aoti_cuda_blob.ptd").exists(), "Save As left the weights (aoti_cuda_blob.ptd) behind")
    ctx.expect("copied aoti_cuda_blob.ptd beside x.pte" in said, f"the status line does not say the .ptd went along: {said!r}")
    lint = ctx.cli("lint", other / "x.pte", check=False)
    ctx.expect(lint.returncode == 0, f"the saved program lints with errors: {lint.stdout[-300:]!r}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_missing_weights_are_a_finding(ctx):
    """Item 4 (class): the demo opened without its aoti_cuda_blob.ptd: the Diagnostics tab counts an error and lists PTS020 for each CudaBackend delegate (it said 'No findings')."""
    folder, program = demo_in(ctx, "alone")
    (folder / "aoti_cuda_blob.ptd").unlink()
    app = ctx.open(program)
    tab = bottom_tab(app, "Diagnostics")
    table = tab_table(app, "Diagnostics", "Diagnostics")
    rows = wait_until(lambda: table_rows(table), timeout=10, what="the Diagnostics table's findings")
    texts = [" ".join(r) for r in rows]
    ctx.note(f"tab {name_of(tab)!r}; {len(rows)} findings; first {texts[0][:160] if texts else None!r}")
    ctx.shot("diagnostics")
    ctx.expect("error" in name_of(tab) and "0 errors" not in name_of(tab), f"the tab reads {name_of(tab)!r}")
    ctx.expect(any("PTS020" in t and "weights_blob" in t for t in texts), f"no PTS020 finding: {texts[:3]}")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_the_last_files_status_message_leaves(ctx):
    """Item 11 (class): after Profile on the demo the status line says 'Profiled ...'; File > Open of another program clears it at once (it stayed 12 s over the new file's name)."""
    app = ctx.open(ctx.demo())
    run_profile(app)
    said = wait_until(lambda: (lambda t: t if t.startswith("Profiled") else None)(status_message(app)), timeout=20,
                      what="the status line to say 'Profiled ...'")
    ctx.note(f"after the profile: {said[:120]!r}")
    file_dialog_open(app, ctx.synth("pipe", "--shape", "pipeline", "--layers", "2"))
    wait_until(lambda: "pipe.pte" in app.title(), timeout=15, what="the window to show pipe.pte")
    time.sleep(0.5)
    now = status_message(app)
    ctx.note(f"after opening pipe.pte: {now!r}")
    ctx.shot("next-file")
    ctx.expect(not now.startswith("Profiled"), f"the previous file's message stays: {now!r}")
