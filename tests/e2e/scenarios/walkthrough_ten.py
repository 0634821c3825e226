"""Issue 34, what the nineteenth, twentieth and twenty-first walkthroughs (helpers who wrote none of the fixes) found of its classes.

  - item 1's class (controls named by what they do): a field's clear button and the progress bars were unnamed.
  - items 2 and 3's class (one state's numbers under another's name): CUDA graph replay carried to the next file;
    the diff banner paired buffers by number; replay copies paired by value number across an edit; Save As
    dropped the profile and left a data file named after the program behind.
  - item 7's class (a figure that reads as what it is not): a runner's copy times that hold a delegate's GPU work
    were '0.00 GB/s'; a method-level trace was split into '0% kernels, 100% gaps'; the Advisor's Edits were
    unquoted and its duties missed the lint warning an edit brings; the report said 'before the edits' of
    methods the edits left alone; colours repeated every four GPUs.
  - item 10's class (Find must say what it found): closed groups counted once.
  - items 16 and 27's class (text cut or out of reach): Properties' values, the Advisor notes, the Transfers
    totals, the legend after narrowing the window, the Timeline's 'measured before' qualifier.
  - item 18's class (keyboard and questions): Save As asked twice; Tab reached a dock's tabs last; the Memory
    plan's Home went to the last tensor.
"""

import json
import time

import harness
from harness import App

from harness import extents, find, find_all, has_state, name_of, role_of, table_rows, text_of, wait_until
from scenario_support import (BOTH_SIZES, answer_file_dialog, graph_view, labelled, wrapped_lines, bottom_tab, check_box, choose_in_combo, dialog_text, file_dialog_open, is_checked, find_status, find_text, focused_widget, label_text,
                              panel_table, properties_panel, property_value, run_profile, select_instruction, set_target_device, sizes, tab_table,
                              timeout,
                              toggle_check_box, type_into_file_dialog, wait_title)
from scenarios.tensorrt import SPEC as TRT_SPEC
from scenarios.round_two import ETDUMP_SAMPLES
from scenarios.truths import _saturated_pixels
from scenarios.runner import SPEC as RUNNER_SPEC, open_profile_dialog, press, runner_check, standin as runner_standin, top_named, \
    totals as totals_text, wait_profile_end


def _kernel_counts(ctx, program) -> dict[str, int]:
    """How many kernel calls of each operator the first method has, from `ptescope-cli dump`."""
    plan = ctx.dump(program)["execution_plan"][0]
    counts: dict[str, int] = {}
    for chain in plan["chains"]:
        for instruction in chain["instructions"]:
            if instruction["instr_args_type"] != "KernelCall":
                continue
            name = plan["operators"][instruction["instr_args"].get("op_index", 0)]["name"]
            counts[name] = counts.get(name, 0) + 1
    return counts


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_find_counts_what_closed_groups_hide(ctx):
    """Walkthrough nineteen, finding 3 (item 10's class): on a 1,500-instruction llm whose layers are closed groups, Find 'mul' reads 'N of M places · K instructions' with K the number of aten::mul calls `ptescope-cli dump` lists (it read '1 of 64')."""
    program = ctx.synth("find-llm", "--shape", "llm", "--instructions", "1500")
    muls = _kernel_counts(ctx, program).get("aten::mul", 0)
    ctx.check(muls > 100, f"the program has {muls} aten::mul calls")
    app = ctx.open(program)
    find_text(app, "mul")
    said = wait_until(lambda: (t := label_text(find_status(app), "Find status")) and " of " in t and t, timeout=10,
                      what="the Find status")
    ctx.note(f"Find 'mul': {said!r}; dump: {muls} aten::mul")
    ctx.expect(said.endswith(f" places · {muls} instructions"),
               f"Find 'mul' says {said!r}; the program has {muls} aten::mul calls, most in closed groups")
    ctx.shot("find")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_save_as_onto_the_loaded_file_asks_once(ctx):
    """Walkthrough nineteen, finding 7 (item 18's class): after an edit, Save As onto the file the program was loaded from asks one question ('Overwrite the loaded file?'), and Yes saves (the title loses its '*'); Save As onto another existing file asks 'Replace the file?' once, and No goes back to the dialog."""
    program = ctx.demo("loaded")
    other = ctx.demo("other")
    app = ctx.open(program)
    toggle_check_box(app, "alloc_graph_output")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after an edit")
    before = program.read_bytes()

    # Onto another existing file: one question; No goes back to the dialog.
    app.menu("File", "Save As...")
    dialog = app.wait_dialog(what="the Save As dialog")
    save_title = name_of(dialog)
    type_into_file_dialog(app, dialog, str(other))
    question = app.wait_dialog(what="a question about replacing other.pte")
    text = dialog_text(question)
    ctx.note(f"onto other.pte: {name_of(question)!r}: {text[:120]!r}")
    ctx.expect("Replace it?" in text and "other.pte" in text, f"Save As onto other.pte asks {text[:160]!r}")
    no = find(question, role="push button", name="No") or find(question, role="push button", name="&No")
    ctx.check(no is not None, f"the question has no No button: {[name_of(b) for b in find_all(question, role='push button')]}")
    app.click_widget(no)
    back = app.wait_dialog(what="the Save As dialog again after No")
    ctx.expect(name_of(back) == save_title, f"after No, the dialog shown is {name_of(back)!r}, not the Save As dialog")

    # Onto the loaded file: one question, ours.
    type_into_file_dialog(app, back, str(program))
    question = app.wait_dialog(what="a question about overwriting the loaded file")
    text = dialog_text(question)
    ctx.note(f"onto the loaded file: {name_of(question)!r}: {text[:120]!r}")
    ctx.expect("loaded from" in text, f"Save As onto the loaded file asks first {text[:160]!r}")
    ctx.shot("question")
    yes = find(question, role="push button", name="Yes") or find(question, role="push button", name="&Yes")
    ctx.check(yes is not None, "the question has no Yes button")
    app.click_widget(yes)
    time.sleep(0.8)
    extra = app.active_dialog()
    ctx.expect(extra is None, f"after Yes, another question: {name_of(extra) if extra else ''!r}: "
                              f"{dialog_text(extra)[:160] if extra else ''!r}")
    if extra is not None:
        app.key("Escape")
    saved = wait_until(lambda: "*" not in app.title(), timeout=10)
    ctx.expect(saved, f"after Yes the title reads {app.title()!r}: not saved")
    ctx.expect(program.read_bytes() != before, "the loaded file was not rewritten")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_tab_reaches_a_docks_tabs_beside_its_panel(ctx):
    """Walkthrough nineteen, finding 12 (item 18's class): Tab from the Program tree goes to the Properties / Pass options tabs and then into Properties (the tabs came after the Details table, at the end of the tour)."""
    app = ctx.open(ctx.demo())
    tree = panel_table(app, "Program")
    e = extents(tree)
    app.click(e[0] + min(40, e[2] // 3), e[1] + min(30, e[3] // 4))
    ctx.check(wait_until(lambda: has_state(tree, "focused"), timeout=3), "a click did not focus the Program tree")
    app.key("Tab")
    time.sleep(0.3)
    here = focused_widget(app)
    tabs = [name_of(t).replace("&", "") for t in find_all(here, role="page tab")] if here is not None else []
    ctx.note(f"after the Program tree: [{role_of(here) if here else None}] {tabs}")
    ctx.expect(here is not None and role_of(here) == "page tab list" and "Properties" in tabs and "Pass options" in tabs,
               f"Tab from the Program tree went to [{role_of(here) if here else None}] {name_of(here) if here else ''!r} {tabs}")
    app.key("Tab")
    time.sleep(0.3)
    properties = properties_panel(app)
    ctx.expect(has_state(properties, "focused"),
               f"the next Tab went to {name_of(focused_widget(app)) if focused_widget(app) else None!r}, not Properties")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_properties_values_get_the_room(ctx):
    """Walkthrough nineteen, finding 13 (item 27's class): a TensorRT delegate call selected, Properties gives its values at least half the panel (the keys took 195 of 295 px at 1000x700 and every value was cut)."""
    program = ctx.synth_spec("trt_props", TRT_SPEC)
    app = ctx.open(program)
    select_instruction(app, 1)
    wait_until(lambda: property_value(app, "Payload"), timeout=10, what="the delegate's Payload row in Properties")
    table = properties_panel(app)
    cell_key = table.queryTable().getAccessibleAt(0, 0)
    cell_value = table.queryTable().getAccessibleAt(0, 1)
    key_w, value_w = extents(cell_key)[2], extents(cell_value)[2]
    ctx.note(f"Property column {key_w} px, Value column {value_w} px")
    ctx.expect(value_w >= key_w and value_w * 2 >= key_w + value_w,
               f"Properties' values have {value_w} px beside keys of {key_w} px")
    ctx.shot("properties")


def _unnamed_buttons(root) -> list[str]:
    """The push buttons in sight under `root` with no accessible name (where they are)."""
    return [str(extents(b)) for b in find_all(root, role="push button")
            if has_state(b, "showing") and not name_of(b).strip()]


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_clear_buttons_are_named(ctx):
    """Walkthrough twenty, finding 6 (item 1's class): a field's clear button (shown once it holds text) is named by what it clears: 'Clear Find' in the tool bar, and no push button in sight in the window or the Profile dialog is unnamed."""
    app = ctx.open(ctx.demo())
    find_text(app, "add")
    clear = wait_until(lambda: next((b for b in app.find_all(role="push button", name="Clear Find")
                                     if has_state(b, "showing")), None), timeout=5)
    ctx.expect(clear is not None, "no push button 'Clear Find' beside the Find box holding text")
    ctx.expect(not _unnamed_buttons(app.frame), f"unnamed push buttons in the window at {_unnamed_buttons(app.frame)}")
    app.menu("Profile", "Profile Transfers...")
    dialog = app.wait_dialog(what="the Profile transfers dialog")
    fields = [f for f in find_all(dialog, role=("text", "entry")) if has_state(f, "showing") and has_state(f, "editable")]
    ctx.check(fields, "the Profile dialog has no field to type into")
    typed = []
    for field in fields:
        if has_state(field, "enabled") or has_state(field, "sensitive"):
            app.click_widget(field)
            app.type_text("7")
            typed.append(name_of(field))
    time.sleep(0.3)
    ctx.note(f"typed into {typed}; buttons {[name_of(b) for b in find_all(dialog, role='push button') if has_state(b, 'showing')]}")
    ctx.expect(not _unnamed_buttons(dialog), f"unnamed push buttons in the Profile dialog at {_unnamed_buttons(dialog)}")
    shown = [name_of(b) for b in find_all(dialog, role="push button") if has_state(b, "showing")]
    ctx.expect(any(n == "Clear Memory budget" for n in shown), f"the budget field's clear button is not named by it: {shown}")
    ctx.shot("profile-dialog")
    app.key("Escape")


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_failed_graph_export_says_export(ctx):
    """Walkthrough twenty, finding 14 (item 28's class): File > Export Graph as SVG into a "folder" that is a file says 'Cannot export the graph' and where (it said 'Cannot open program' with the program open and untouched)."""
    app = ctx.open(ctx.demo())
    app.menu("File", "Export Graph as SVG...")
    dialog = app.wait_dialog(what="the Export graph dialog")
    (ctx.tmp / "not-a-folder").write_text("a file")
    type_into_file_dialog(app, dialog, str(ctx.tmp / "not-a-folder" / "graph.svg"))
    shown = app.wait_dialog(what="a message about the failed export")
    title, text = name_of(shown), dialog_text(shown)
    ctx.note(f"{title!r}: {text[:160]!r}")
    ctx.shot("export-failed")
    ctx.expect(title == "Cannot export the graph", f"the failed export is titled {title!r}: {text[:120]!r}")
    ctx.expect("not-a-folder" in text, f"the message does not say where: {text[:160]!r}")
    app.key("Return")


def _two_gpu_spec(second: int) -> dict:
    """x -> relu on cuda:0 (CudaBackend) -> relu on cuda:SECOND -> z."""
    return {
        "methods": [{
            "name": "forward", "inputs": ["x"], "outputs": ["z"],
            "tensors": {n: {"dtype": "float32", "sizes": [4, 4]} for n in ("x", "y", "z")},
            "nodes": [
                {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["x"], "outputs": ["y"]},
                {"delegate": "CudaBackend", "compile_specs": {"target_device": f"cuda:{second}"}, "inputs": ["y"],
                 "outputs": ["z"]},
            ],
        }],
    }


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_fifth_gpu_has_its_own_colour(ctx):
    """Walkthrough twenty, finding 13 (item 13's class): a program on cuda:0 and cuda:4: the graph legend's swatches of cuda:0 and cuda:4 are painted in different colours (cuda:4 was cuda:0's green)."""
    program = ctx.synth_spec("gpu0_gpu4", _two_gpu_spec(4))
    app = ctx.open(program)
    time.sleep(0.8)
    entries = {}
    legend = next((o for o in app.find_all(name="Legend") if harness.on_screen(o)), None)
    ctx.check(legend is not None, "no Legend on screen above the graph")
    for name in ("cuda:0", "cuda:4"):
        entry = next((o for o in find_all(legend, name=name) if harness.on_screen(o)), None)
        ctx.check(entry is not None, f"no legend entry {name!r} on screen")
        entries[name] = extents(entry)
    png = ctx.shot("legend")
    swatch = {}
    for name, (x, y, w, h) in entries.items():
        colours = _saturated_pixels(png, (x, y, min(w, 22), h))
        swatch[name] = max(colours, key=lambda c: len(colours[c])) if colours else None
    ctx.note(f"swatches: {swatch}")
    ctx.check(all(swatch.values()), f"a legend entry has no coloured swatch: {swatch}")
    ctx.expect(swatch["cuda:0"] != swatch["cuda:4"], f"cuda:0 and cuda:4 are drawn in one colour {swatch['cuda:0']}")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_advisor_edits_paste_into_propagate(ctx):
    """Walkthrough twenty, finding 2 (item 7's class): in a method named 'my method' on cuda:0 and cuda:1 the Advisor's Edits cells quote a --set-device naming the method ('my method:1=cuda:0'), as `ptescope-cli advise` prints it; unquoted it split at the space when pasted."""
    spec = _two_gpu_spec(1)
    spec["methods"][0]["name"] = "my method"
    program = ctx.synth_spec("spaced", spec)
    app = ctx.open(program)
    table = tab_table(app, "Advisor", "Advisor")
    rows = wait_until(lambda: [r for r in table_rows(table) if len(r) > 1 and "--set-device" in r[1]], timeout=60,
                      what="an Advisor candidate with a --set-device")
    ctx.note(f"edits: {[r[1] for r in rows]}")
    for r in rows:
        ctx.expect("--set-device 'my method:" in r[1], f"the Edits cell {r[1]!r} does not quote the method's --set-device")
    ctx.shot("advisor")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_cuda_graph_replay_stays_with_its_file(ctx):
    """Walkthrough twenty (item 2's class, one file's state under another's name): 'CUDA graph replay in forward' ticked on the demo is off after File > Open of another program with a method forward (it stayed on, and the Advisor counted the replay copies the new file never asked for)."""
    first, second = ctx.demo("first"), ctx.synth("second", "--scenario", "h2d_d2h")
    app = ctx.open(first)
    bottom_tab(app, "Transfers")
    ctx.check(toggle_check_box(app, "CUDA graph replay in forward"), "the toggle did not turn on")
    file_dialog_open(app, second)
    wait_title(app, lambda t: "second.pte" in t, what="the title to name second.pte")
    time.sleep(0.5)
    bottom_tab(app, "Transfers")
    box = wait_until(lambda: check_box(app, "CUDA graph replay in forward"), timeout=5, what="the replay check box")
    ctx.expect(not is_checked(box), "'CUDA graph replay in forward' is still ticked for the newly opened file")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_timeline_says_first_it_was_measured_before(ctx):
    """Walkthrough twenty, finding 20 (item 8's class): profiled, then edited, the Timeline's line begins 'Measured before the edits (the program then):' and that part is in sight (at the line's end it was cut at 1000x700, and its counts read as the edited program's)."""
    app = ctx.open(ctx.demo())
    run_profile(app)
    toggle_check_box(app, "skip_d2h_for_method_outputs")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after the edit")
    bottom_tab(app, "Timeline")
    qualifier = "Measured before the edits (the program then):"
    line = wait_until(lambda: next((o for o in app.find_all(role="label") if harness.on_screen(o)
                                    and "iteration " in (name_of(o) + harness.description_of(o))), None),
                      timeout=10, what="the Timeline's line about the iteration")
    text = label_text(line, name_of(line)) or name_of(line)
    ctx.note(f"{text!r} in {extents(line)}")
    ctx.shot("timeline")
    ctx.expect(text.startswith(qualifier), f"the Timeline's line reads {text[:90]!r}")
    ctx.expect(harness.text_width(qualifier) <= extents(line)[2], f"the label is {extents(line)[2]} px: the qualifier is cut")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_diff_banner_pairs_buffers_by_device(ctx):
    """Walkthrough twenty, finding 1 (item 3's class): a method on cuda:0, cuda:1 and cuda:2 with delegate 0 moved to cuda:1: the diff banner says cuda:0's buffer is dropped and cuda:1's grew, as `ptescope-cli propagate` plans it; it paired buffers by number and said cuda:1's and cuda:2's moved device and cuda:2's was dropped."""
    spec = _two_gpu_spec(1)
    method = spec["methods"][0]
    method["outputs"] = ["w"]
    method["tensors"] = {"x": {"dtype": "float32", "sizes": [64, 64]}, "y": {"dtype": "float32", "sizes": [64, 64]},
                         "z": {"dtype": "float32", "sizes": [32, 64]}, "w": {"dtype": "float32", "sizes": [16, 64]}}
    method["nodes"].append({"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:2"},
                            "inputs": ["z"], "outputs": ["w"]})
    program = ctx.synth_spec("three_gpus", spec)
    planned = ctx.cli("propagate", program, "-o", ctx.tmp / "moved.pte", "--set-device", "0=cuda:1").stdout
    line = next((l.strip() for l in planned.splitlines() if l.strip().startswith("buffers [")), "")
    ctx.note(f"propagate: {line}")
    app = ctx.open(program)
    set_target_device(app, 0, "cuda:1")

    def banner():
        for o in app.find_all(role="label"):
            t = text_of(o) or name_of(o)
            if harness.on_screen(o) and "Diff against the file as loaded" in t and "buffer" in t:
                return t
        return None
    said = wait_until(banner, timeout=20, what="the diff banner's buffer notes")
    ctx.note(f"banner: {said!r}")
    ctx.expect("(cuda:0) dropped (32.0 KiB)" in said, f"the banner does not say cuda:0's buffer went: {said!r}")
    ctx.expect("(cuda:1): 24.0 KiB → 32.0 KiB" in said, f"the banner does not say cuda:1's buffer grew: {said!r}")
    ctx.expect("(was " not in said and "(cuda:2) dropped" not in said,
               f"the banner says a kept buffer moved or went: {said!r}")
    ctx.expect("32.0 KiB cuda:0, 24.0 KiB cuda:1" in line and "32.0 KiB cuda:1, 12.0 KiB cuda:2]" in line,
               f"propagate plans otherwise: {line!r}")


def _profile_dialog_with_runner(app, runner):
    """The Profile dialog with the runner chosen and checked (as runner.py does it); the dialog."""
    dialog = open_profile_dialog(app)
    runtime = wait_until(lambda: next((c for c in find_all(dialog, role="combo box")
                                       if name_of(c) == "Runtime" and harness.on_screen(c)), None),
                         timeout=5, what="the Runtime chooser")
    choose_in_combo(app, runtime, "ExecuTorch runner\u2026")
    press(app, dialog, "Choose...")
    chooser = wait_until(lambda: top_named(app, "ExecuTorch runner"), timeout=10, what="the runner's file dialog")
    type_into_file_dialog(app, chooser, str(runner))
    wait_until(lambda: "event tracer" in runner_check(dialog), timeout=20, what="the runner check's verdict")
    return dialog


@sizes(*BOTH_SIZES)
@timeout(200)
def scenario_runner_times_that_wait_for_a_delegate_are_marked(ctx):
    """Walkthrough twenty, finding 4 (item 7's class): the demo profiled by the runner stand-in: each d2h after a delegate (its time holds the delegate's queued GPU work) has its Median marked '*' and no GB/s, and the d2h total says 'no GB/s (times marked * are not only copies)', as `ptescope-cli profile --runner` prints them; they read '0.00' GB/s."""
    runner = runner_standin()
    program = ctx.demo()
    cli = ctx.cli("profile", program, "--runner", runner).stdout
    ctx.check("* instruction " in cli, f"the CLI marks no copy: {cli[-400:]!r}")
    app = ctx.open(program)
    dialog = _profile_dialog_with_runner(app, runner)
    press(app, dialog, "Profile")
    app.wait_no_dialog(timeout=20)
    wait_profile_end(app)
    table = tab_table(app, "Transfers", "Transfers")
    headers = wait_until(lambda: (h := harness.table_headers(table)) and any("Median" in x for x in h) and h,
                         timeout=10, what="the measured columns")
    median, gbps = headers.index(next(x for x in headers if x.startswith("Median"))), headers.index(
        next(x for x in headers if "GB/s" in x))
    rows = [r for r in table_rows(table) if len(r) > gbps]
    d2h = [r for r in rows if r[1] == "d2h"]
    ctx.note(f"d2h rows: {[(r[0], r[median], r[gbps]) for r in d2h]}; totals: {totals_text(app)!r}")
    ctx.check(d2h, f"no d2h row: {rows}")
    for r in d2h:
        ctx.expect(r[median].endswith("*") and r[gbps] == "\u2014", f"d2h #{r[0]}: median {r[median]!r}, GB/s {r[gbps]!r}")
    ctx.expect("no GB/s (times marked * are not only copies)" in totals_text(app), f"totals: {totals_text(app)!r}")
    ctx.shot("marked")


def _forget_enabled(app) -> bool:
    entry = app.open_menu("Profile")
    item = next((i for i in App.menu_items(entry) if name_of(i).replace("&", "").startswith("Forget Profiles")), None)
    enabled = item is not None and (has_state(item, "enabled") or has_state(item, "sensitive"))
    app.key("Escape")
    return enabled


@sizes(*BOTH_SIZES)
@timeout(200)
def scenario_save_as_keeps_the_profile(ctx):
    """Walkthrough twenty, finding 7 (item 8's class): profiled, edited and saved as another file, the Transfers table keeps its measured column, headed as measured before the change, and Profile > Forget Profiles is enabled; after Forget it is disabled (it stayed enabled with nothing to forget, and Save As had dropped the profile without a word)."""
    program = ctx.demo("measured")
    app = ctx.open(program)
    run_profile(app)
    toggle_check_box(app, "skip_d2h_for_method_outputs")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after the edit")
    app.menu("File", "Save As...")
    dialog = app.wait_dialog(what="the Save As dialog")
    answer_file_dialog(ctx, app, dialog, ctx.tmp / "saved.pte", "Save As")
    wait_title(app, lambda t: "saved.pte" in t and "*" not in t, what="the title to name saved.pte")
    table = tab_table(app, "Transfers", "Transfers")
    headers = wait_until(lambda: harness.table_headers(table), timeout=5, what="the Transfers headers")
    ctx.note(f"headers after Save As: {headers}")
    ctx.expect(any(h.startswith("Median (before") for h in headers), f"after Save As the Transfers headers are {headers}")
    ctx.expect(_forget_enabled(app), "Forget Profiles is disabled with a profile kept")
    app.menu("Profile", "Forget Profiles")
    time.sleep(0.5)
    ctx.expect(not _forget_enabled(app), "Forget Profiles is still enabled after forgetting")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_report_says_before_the_edits_only_where_edited(ctx):
    """Walkthrough twenty, finding 3 (item 22's class): upstream's ETDump of the demo (forward and prefill) imported, forward edited (skip_d2h_for_method_outputs), File > Export Report: forward's measurements are said to be before the edits, prefill's are plain 'Measured' as the window shows them (both said 'before the edits'). Without the shared ETDump samples it is not checked (noted)."""
    trace, source = ETDUMP_SAMPLES / "demo.etdp", ETDUMP_SAMPLES / "demo.pte"
    if not (trace.exists() and source.exists()):
        ctx.note(f"no upstream trace in {ETDUMP_SAMPLES}: not checked")
        return
    program = ctx.tmp / "demo.pte"
    program.write_bytes(source.read_bytes())
    app = ctx.open(program)
    app.menu("File", "Import ETDump...")
    dialog = app.wait_dialog(what="the Import ETDump dialog")
    answer_file_dialog(ctx, app, dialog, trace, "Import ETDump")
    time.sleep(0.5)
    toggle_check_box(app, "skip_d2h_for_method_outputs")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after the edit")
    report = ctx.tmp / "edited.html"
    app.menu("File", "Export Report...")
    dialog = app.wait_dialog(what="the Export report dialog")
    answer_file_dialog(ctx, app, dialog, report, "Export Report")
    ctx.check(wait_until(report.exists, timeout=20), "the report was not written")
    html = report.read_text()
    sections = {}
    for part in html.split('<section class="method"')[1:]:
        name = part.split("<h2>Method <q>", 1)[1].split("</q>", 1)[0] if "<h2>Method <q>" in part else "?"
        sections[name] = part
    ctx.note(f"sections: {list(sections)}")
    ctx.check("forward" in sections and "prefill" in sections, f"the report's methods: {list(sections)}")
    ctx.expect("before the edits" in sections["forward"], "forward's measurements are not said to be before the edits")
    ctx.expect("Measured transfers" in sections["prefill"] and "before the edits" not in sections["prefill"],
               "prefill, which the edit left alone, is said to be measured before the edits")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_advisor_names_the_warning_an_edit_brings(ctx):
    """Walkthrough twenty, finding 11 (item 7's class): a method with no inputs whose delegate on cuda:1 reads a constant: the Advisor's rows with --skip-h2d-inputs (it tags the constant with the device in place) ask of the caller what lint then warns, PTS011; their duties were empty."""
    spec = {"methods": [{"name": "noinput", "inputs": [], "outputs": ["q"],
                         "tensors": {"q": {"dtype": "float32", "sizes": [4]}},
                         "constants": {"c": {"dtype": "float32", "sizes": [4], "fill": 1.0}},
                         "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:1"},
                                    "inputs": ["c"], "outputs": ["q"]}]}]}
    app = ctx.open(ctx.synth_spec("noinput", spec))
    table = tab_table(app, "Advisor", "Advisor")
    rows = wait_until(lambda: [r for r in table_rows(table) if len(r) > 1 and "--skip-h2d-inputs" in r[1]], timeout=60,
                      what="an Advisor candidate with --skip-h2d-inputs")
    ctx.note(f"rows: {rows}")
    for r in rows:
        ctx.expect("PTS011" in r[-1], f"candidate {r[0]} ({r[1]}) asks of the caller {r[-1]!r}: no PTS011")


@sizes(*BOTH_SIZES)
@timeout(150)
def scenario_replay_copies_survive_renumbering(ctx):
    """Walkthrough twenty, finding 19 (item 3's class): 'CUDA graph replay in forward' ticked on the demo, then skip_h2d_for_method_inputs (an h2d copy goes, the values after it are renumbered): the Changes list names no copy inside a delegate as added or removed (the untouched delegates' replay copies read as removed and added again)."""
    app = ctx.open(ctx.demo())
    bottom_tab(app, "Transfers")
    ctx.check(toggle_check_box(app, "CUDA graph replay in forward"), "the toggle did not turn on")
    toggle_check_box(app, "skip_h2d_for_method_inputs")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after the edit")
    bottom_tab(app, "Changes")
    time.sleep(0.8)
    items = []
    for t in app.find_all(role=("list", "table", "tree table")):
        if harness.on_screen(t):
            items += [c for row in table_rows(t) for c in row]
    items += [name_of(o) for o in app.find_all(role="list item")]
    items = list(dict.fromkeys(i for i in items if i))
    ctx.note(f"changes: {items[:12]}")
    ctx.check(any(i.strip().startswith("\u2212 h2d") or i.strip().startswith("− h2d") for i in items),
              f"the Changes list does not list the removed h2d copy: {items[:12]}")
    inside = [i for i in items if "inside delegate" in i]
    ctx.expect(not inside, f"the Changes list names replay copies as changed: {inside}")


@sizes((1600, 1000))
@timeout(150)
def scenario_legend_reflows_when_the_window_narrows(ctx):
    """Walkthrough twenty, finding 9 (item 16's class): the demo profiled at 1600x1000 (the legend gains the emulated copy time entry), the window then resized to 1000x700: every legend entry is whole in sight, a long one cut to the strip's width (the legend kept two rows' height for three, the copy entries showed 3 px, and the emulated entry ran 6 px past the strip)."""
    app = ctx.open(ctx.demo())
    run_profile(app)
    overlay = app.find(role="combo box", name="Graph colours")
    if overlay is not None and harness.on_screen(overlay):
        choose_in_combo(app, overlay, "Copy time")
    time.sleep(0.5)
    app.resize(1000, 700)
    time.sleep(1.0)
    legend = wait_until(lambda: next((o for o in app.find_all(name="Legend") if harness.on_screen(o)), None), timeout=5,
                        what="the legend")
    entries = [o for o in harness.children_of(legend) if name_of(o)]
    ctx.check(entries, "the legend has no entries in the accessibility tree")
    cut = []
    for entry in entries:
        whole, seen = extents(entry), harness.visible_rect(entry)
        if seen is None or seen[3] < whole[3] - 1 or seen[2] < whole[2] - 1:
            cut.append(f"{name_of(entry)!r} {whole} seen {seen}")
    ctx.note(f"legend {extents(legend)}: {[name_of(e) for e in entries]}")
    ctx.shot("narrowed")
    ctx.expect(not cut, f"legend entries cut after narrowing the window: {cut}")


@sizes(*BOTH_SIZES)
@timeout(200)
def scenario_advisor_notes_can_be_read_to_the_end(ctx):
    """Walkthrough twenty, finding 10 (item 27's class): after an emulated profile the Advisor's notes (the emulation, the ranking and its scale) are as high as their wrapped lines, and what is not in sight is reached by the notes' scroll bar (at 1000x700 they were cut mid-sentence with no scroll bar)."""
    app = ctx.open(ctx.demo())
    run_profile(app)
    table = tab_table(app, "Advisor", "Advisor")
    wait_until(lambda: [r for r in table_rows(table) if len(r) > 1 and r[1]], timeout=60, what="a candidate")
    notes = wait_until(lambda: (o := labelled(app, "Advisor notes")) and harness.on_screen(o) and
                       "emulated" in (label_text(o, "Advisor notes") or "") and o, timeout=30, what="the Advisor notes")
    text = label_text(notes, "Advisor notes") or ""
    box, seen = extents(notes), harness.visible_rect(notes)
    lines = sum(wrapped_lines(paragraph, box[2] - 6) for paragraph in text.split("\n"))
    ctx.note(f"notes {box}, in sight {seen}, {lines} lines: {text[:160]!r}")
    ctx.shot("notes")
    ctx.expect(box[3] >= lines * 14 - 2, f"the notes' label is {box[3]} px high for {lines} lines: the end is cut")
    if seen is not None and seen[3] < box[3] - 1:
        # The notes' own scroll area (the label's viewport's parent) has a
        # vertical bar in sight.
        area = notes.parent.parent
        bars = [b for b in find_all(area, role="scroll bar") if harness.on_screen(b) and extents(b)[3] > extents(b)[2]]
        ctx.note(f"the notes' area {extents(area)}: bars {[extents(b) for b in bars]}")
        ctx.expect(bars, "part of the notes is out of sight and no scroll bar reaches it")


@sizes((1600, 1000))
@timeout(240)
def scenario_long_totals_leave_the_table_its_rows(ctx):
    """Walkthrough twenty, finding 5 (item 16's class): the runner stand-in's program edited (delegate 0's target device none) and profiled by the runner stand-in with 'Compare with as loaded' (totals of five or six lines): the totals under the Transfers table take three lines at most (the rest scrolls), and the table shows at least four rows or all it has (it kept two of fourteen at 1600x1000)."""
    runner = runner_standin()
    app = ctx.open(ctx.synth_spec("delegate", RUNNER_SPEC))
    set_target_device(app, 0, "none")
    dialog = _profile_dialog_with_runner(app, runner)
    compare = wait_until(lambda: next((c for c in find_all(dialog, role="check box")
                                       if name_of(c).replace("&", "").startswith("Compare with as loaded")
                                       and harness.on_screen(c)), None), timeout=5, what="Compare with as loaded")
    if not has_state(compare, "checked"):
        app.click_widget(compare, dx=9)
    press(app, dialog, "Profile")
    app.wait_no_dialog(timeout=20)
    wait_profile_end(app, timeout_s=90)
    text = wait_until(lambda: (t := totals_text(app)) and "outputs:" in t and t, timeout=30, what="the compare's totals")
    table = tab_table(app, "Transfers", "Transfers")
    rows = table_rows(table)
    label = labelled(app, "Transfer totals")
    seen = harness.visible_rect(label) or (0, 0, 0, 0)
    lines = sum(wrapped_lines(p, extents(label)[2] - 6) for p in text.split("\n"))
    grid = table.queryTable()
    whole = sum(1 for r in range(min(len(rows), 8)) if (v := harness.visible_rect(grid.getAccessibleAt(r, 0)))
                and v[3] >= extents(grid.getAccessibleAt(r, 0))[3] - 1)
    ctx.note(f"{len(rows)} rows, {whole} whole in sight; totals {lines} lines, {seen[3]} px in sight: {text[:120]!r}")
    ctx.shot("compared")
    ctx.check(lines > 3, f"the totals are {lines} lines: the test shows nothing")
    ctx.expect(seen[3] <= 3 * 17 + 8, f"the totals take {seen[3]} px under the table")
    ctx.expect(whole >= min(4, len(rows)), f"the Transfers table shows {whole} whole rows of {len(rows)}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_memory_plan_keys_and_empty_buffers(ctx):
    """Walkthrough twenty, findings 17 and 18 (items 18 and 27's classes): in the Memory plan Home with nothing selected selects the first tensor (it went to the last) and Esc clears the selection; a method whose buffer is 0 B (inputs and outputs the caller's) shows no blank band but says its buffer is empty."""
    chain = {"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["z"],
                          "tensors": {n: {"dtype": "float32", "sizes": [4]} for n in ("x", "r", "s", "z")},
                          "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
                                    {"op": "aten::relu.out", "inputs": ["r"], "outputs": ["s"]},
                                    {"op": "aten::relu.out", "inputs": ["s"], "outputs": ["z"]}]}]}
    app = ctx.open(ctx.synth_spec("chain", chain))
    bottom_tab(app, "Memory plan")
    plan = wait_until(lambda: next((o for o in app.find_all(name="Memory plan")
                                    if harness.on_screen(o) and role_of(o) != "page tab"), None), timeout=5,
                      what="the memory plan")
    e = extents(plan)
    app.click(e[0] + 4, e[1] + e[3] - 4)  # the axis corner: the focus, no tensor
    app.key("Escape")
    time.sleep(0.3)
    app.key("Home")
    time.sleep(0.3)
    said = harness.description_of(graph_view(app))
    ctx.note(f"after Home: {said!r}")
    ctx.expect("%0" in said, f"Home with nothing selected selects {said!r}, not the first tensor %0")
    app.key("Escape")
    time.sleep(0.3)
    said = harness.description_of(graph_view(app))
    ctx.expect(said == "Nothing selected", f"Esc in the Memory plan leaves {said!r} selected")

    empty = {"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["z"],
                          "tensors": {n: {"dtype": "float32", "sizes": [4]} for n in ("x", "z")},
                          "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["z"]}]}],
             "options": {"alloc_graph_input": False, "alloc_graph_output": False}}
    file_dialog_open(app, ctx.synth_spec("empty_plan", empty))
    wait_title(app, lambda t: "empty_plan.pte" in t, what="the title to name empty_plan.pte")
    bottom_tab(app, "Memory plan")
    time.sleep(0.5)
    plan = next((o for o in app.find_all(name="Memory plan") if harness.on_screen(o) and role_of(o) != "page tab"), None)
    said = harness.description_of(plan) if plan is not None else ""
    ctx.note(f"empty plan: {said!r}")
    ctx.shot("empty-plan")
    ctx.expect("empty (0 B" in said and "buffer 1" not in said, f"the Memory plan of a 0 B buffer says {said!r}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_a_method_level_trace_is_not_split(ctx):
    """Walkthrough twenty (item 7's class): upstream's trace of add.pte recorded with method-level profiling only, imported: the Transfers Summary's breakdown says no instruction was timed, so the run cannot be split, as the Timeline does (it read 'kernels 0.0% ... gaps 100.0%'). Without the shared ETDump samples it is not checked (noted)."""
    trace, source = ETDUMP_SAMPLES / "add.profile-method-only.etdp", ETDUMP_SAMPLES / "add.pte"
    if not (trace.exists() and source.exists()):
        ctx.note(f"no upstream trace in {ETDUMP_SAMPLES}: not checked")
        return
    program = ctx.tmp / "add.pte"
    program.write_bytes(source.read_bytes())
    app = ctx.open(program)
    app.menu("File", "Import ETDump...")
    dialog = app.wait_dialog(what="the Import ETDump dialog")
    answer_file_dialog(ctx, app, dialog, trace, "Import ETDump")
    bottom_tab(app, "Transfers")
    toggle = wait_until(lambda: next((b for b in app.find_all(name="Summary")
                                      if role_of(b) in ("push button", "toggle button", "check box")
                                      and harness.on_screen(b)), None), timeout=5, what="the Summary button")
    app.scroll_into_view(toggle)
    app.click_widget(toggle)
    breakdown = wait_until(lambda: label_text(labelled(app, "Time breakdown"), "Time breakdown"), timeout=5,
                           what="the Summary's time breakdown")
    ctx.note(f"breakdown: {breakdown!r}")
    ctx.shot("summary")
    ctx.expect("no instruction was timed, so it cannot be split" in breakdown and "gaps" not in breakdown,
               f"the Summary splits a run no instruction of which was timed: {breakdown!r}")


@sizes(*BOTH_SIZES)
@timeout(120)
def scenario_save_as_takes_a_data_file_named_after_its_program(ctx):
    """Walkthrough twenty-one, finding 1 (item 2's class): a program whose data is lint.ptd (another program's aoti_cuda_blob.ptd beside it), saved as lint_saved.pte in the same folder: the status says the data was copied as lint_saved.ptd and Diagnostics has no error (it lost its data without a word: PTS020 on every delegate)."""
    folder = ctx.tmp / "named"
    folder.mkdir()
    ctx.cli("synth", "--demo", "-o", folder / "demo.pte")
    spec = {"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
                         "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
                         "nodes": [{"delegate": "CudaBackend",
                                    "compile_specs": {"target_device": "cuda:0", "method_name": "enc"},
                                    "aoti": {"so": "lint-so", "weights": "lint-weights"},
                                    "inputs": ["x"], "outputs": ["y"]}]}]}
    (folder / "lint.json").write_text(json.dumps(spec))
    ctx.cli("synth", folder / "lint.json", "-o", folder / "lint.pte")
    ctx.check((folder / "lint.ptd").exists(), "synth wrote no lint.ptd")
    app = ctx.open(folder / "lint.pte")
    toggle_check_box(app, "alloc_graph_output")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after an edit")
    app.menu("File", "Save As...")
    dialog = app.wait_dialog(what="the Save As dialog")
    answer_file_dialog(ctx, app, dialog, folder / "lint_saved.pte", "Save As")
    wait_title(app, lambda t: "lint_saved.pte" in t and "*" not in t, what="the title to name lint_saved.pte")
    message = label_text(labelled(app, "Status message"), "Status message") or ""
    ctx.note(f"status: {message!r}")
    ctx.expect("as lint_saved.ptd" in message, f"the status does not say where the data went: {message!r}")
    ctx.expect((folder / "lint_saved.ptd").exists(), "no lint_saved.ptd beside the saved program")
    tab = next((o for o in app.find_all(role="page tab") if name_of(o).startswith("Diagnostics")), None)
    ctx.note(f"tab: {name_of(tab) if tab else None!r}")
    ctx.expect(tab is not None and "error" not in name_of(tab).replace("0 errors", ""),
               f"after Save As the Diagnostics tab reads {name_of(tab) if tab else None!r}")
