"""Issue 24 items 7, 12 and 19: opening, saving and recent files."""

import time

from harness import (App, E2EError, description_of, extents, field_text, find, has_state, name_of, on_screen,
                     text_of, wait_until)
from scenario_support import (answer_file_dialog, choose_in_combo, file_dialog_open, find_field, find_text, graph_view,
                              push_buttons, timeout, toggle_check_box, wait_title, zoom_percent)



@timeout(90)
def scenario_open_resets_document_state(ctx):
    """Item 7: in A zoom in, find %14 and colour by predicted copy time; open B (File > Open): Find is empty, the colours are placement colours, the title names B (and the zoom is B's own when the app shows it)."""
    a = ctx.demo("first")
    b = ctx.synth("second", "--scenario", ctx.pick_scenario())
    fresh = ctx.app(b)
    wait_title(fresh, lambda t: "second.pte" in t, what="the title to name second.pte")
    time.sleep(1.0)
    fresh_zoom = zoom_percent(fresh)
    fresh.quit()

    app = ctx.open(a)
    time.sleep(1.0)
    start_zoom = zoom_percent(app)
    find_text(app, "%14")
    time.sleep(0.3)
    # Zoom in on the graph: click on it (the canvas takes the focus), Ctrl+= four times.
    g = extents(graph_view(app))
    app.click(g[0] + 12, g[1] + g[3] - 12)
    for _ in range(4):
        app.key("ctrl+equal")
        time.sleep(0.1)
    overlay = app.find(role="combo box", name="Graph colours")
    if overlay is not None and on_screen(overlay):  # colour the copies by predicted time: a per-document view state
        choose_in_combo(app, overlay, "Predicted copy time")
    else:
        ctx.note("the overlay chooser is not on screen (tool bar too narrow): overlay mode not checked")
    zoomed = zoom_percent(app)
    if start_zoom is not None and zoomed is not None:
        ctx.expect(zoomed > start_zoom, f"Ctrl+= did not zoom in ({start_zoom}% -> {zoomed}%)")
    ctx.shot("before-open")
    file_dialog_open(app, b)
    wait_title(app, lambda t: "second.pte" in t, what="the title to name second.pte after File > Open")
    time.sleep(1.0)
    ctx.shot("after-open")
    field = find_field(app)
    ctx.expect(field_text(field) == "", f"after opening another file, Find still holds {field_text(field)!r}")
    ctx.expect("first.pte" not in app.title(), f"the title still names the first file: {app.title()!r}")
    overlays = [text_of(c) for c in app.find_all(role="combo box", name="Graph colours")]
    ctx.expect(not overlays or overlays[0] == "Placement colours",
               f"after opening another file, the graph is still coloured by {overlays[0] if overlays else None!r}")
    after_zoom = zoom_percent(app)
    if fresh_zoom is not None and after_zoom is not None:
        ctx.expect(abs(after_zoom - fresh_zoom) <= 1,
                   f"opened second.pte at {after_zoom}% zoom; opened on its own it starts at {fresh_zoom}%")
    else:
        ctx.note("zoom not shown in the accessibility tree: not compared")


@timeout(90)
def scenario_save_as_names_and_prompt(ctx):
    """Item 12: Save As "edited" writes edited.pte, the title names it without '*'; quitting with new edits offers Save."""
    demo = ctx.demo("program")
    app = ctx.open(demo)
    toggle_check_box(app, "alloc_graph_output")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after an edit")
    app.menu("File", "Save As...")
    dialog = app.wait_dialog(what="the Save As dialog")
    target = ctx.tmp / "edited"
    # A question after the name (overwrite, findings) is a failure of its own: say what it was.
    answer_file_dialog(ctx, app, dialog, target, "Save As")
    written = wait_until(lambda: (ctx.tmp / "edited.pte").exists() or target.exists(), timeout=10)
    ctx.check(written, "Save As wrote neither edited.pte nor edited")
    ctx.expect((ctx.tmp / "edited.pte").exists(), "Save As 'edited' did not write edited.pte")
    ctx.expect(not target.exists(), "Save As 'edited' wrote a file named 'edited' without .pte")
    saved = wait_until(lambda: "*" not in app.title() and "edited.pte" in app.title(), timeout=5)
    ctx.expect(saved, f"after Save As the title reads {app.title()!r} (expected edited.pte, no '*')")
    # Edit again, then close the window: the prompt offers Save.
    toggle_check_box(app, "alloc_graph_output")
    wait_title(app, lambda t: "*" in t, what="the title to show '*' after the second edit")
    app.key("ctrl+q")
    prompt = app.wait_dialog(what="the prompt about unsaved edits")
    buttons = push_buttons(prompt)
    ctx.note(f"quit prompt {name_of(prompt)!r}: {buttons}")
    ctx.expect(any(b.replace("&", "") == "Save" for b in buttons),
               f"the quit prompt offers {buttons}, no Save")
    ctx.shot("quit-prompt")
    discard = find(prompt, role="push button", name="Discard") or find(prompt, role="push button", name="Cancel")
    if discard is not None:
        app.click_widget(discard)


def recent_entries(app: App) -> list[str]:
    """Open File > Open Recent as a person does; the names (and tool tips) of its entries."""
    entry = app.open_menu("File")
    recent = None
    for item in App.menu_items(entry):
        if name_of(item).replace("&", "").startswith("Open Recent"):
            recent = item
    if recent is None:
        app.key("Escape")
        raise E2EError("no Open Recent in the File menu")
    if not (has_state(recent, "enabled") or has_state(recent, "sensitive")):
        app.key("Escape")
        return []
    app.click_widget(recent)
    wait_until(lambda: any(has_state(i, "showing") for i in App.menu_items(recent)), timeout=3)
    names = [name_of(i) + " " + description_of(i) for i in App.menu_items(recent)]
    app.key("Escape", "Escape")
    time.sleep(0.2)
    return names


@timeout(120)
def scenario_open_recent_drops_missing(ctx):
    """Item 19: Open Recent does not list a file deleted since, nor keep one that failed to open."""
    home = ctx.new_home()
    a = ctx.demo("gone")
    b = ctx.synth("kept", "--scenario", ctx.pick_scenario())
    for program in (a, b):
        app = ctx.open(program, home=home)
        app.quit()
    a.unlink()
    app = ctx.app(home=home)
    time.sleep(0.5)
    names = recent_entries(app)
    ctx.note(f"Open Recent: {names}")
    ctx.expect(any("kept.pte" in n for n in names), f"Open Recent does not list kept.pte: {names}")
    ctx.expect(not any("gone.pte" in n for n in names), f"Open Recent lists gone.pte, deleted: {names}")
    # A file that disappears while the app runs: choosing it fails once, then it is gone from the menu.
    b.unlink()
    entry = app.open_menu("File")
    recent = next(i for i in App.menu_items(entry) if name_of(i).replace("&", "").startswith("Open Recent"))
    if has_state(recent, "enabled") or has_state(recent, "sensitive"):
        app.click_widget(recent)
        wait_until(lambda: any(has_state(i, "showing") for i in App.menu_items(recent)), timeout=3)
        kept = next((i for i in App.menu_items(recent) if "kept.pte" in name_of(i)), None)
        if kept is not None:
            app.click_widget(kept)
            time.sleep(0.5)
            dialog = app.active_dialog()
            if dialog is not None:
                app.key("Escape")
                app.wait_no_dialog(timeout=5)
        else:
            app.key("Escape", "Escape")
    names = recent_entries(app)
    ctx.expect(not any("kept.pte" in n for n in names), f"Open Recent still lists kept.pte after it failed to open: {names}")
