"""Issue 28: File > Export Report... writes the one-file HTML report of the program on screen."""

import json
import re
import time

from harness import wait_until
from scenario_support import answer_file_dialog, timeout


@timeout(90)
def scenario_export_report_by_keys(ctx):
    """Issue 28: Alt+F, E (File > Export Report...), a name without suffix: report.html holds each method's nodes."""
    demo = ctx.demo("program")
    app = ctx.open(demo)
    app.key("alt+f")
    time.sleep(0.4)
    app.key("e")
    dialog = app.wait_dialog(what="the Export Report dialog")
    target = ctx.tmp / "report"
    answer_file_dialog(ctx, app, dialog, target, "Export Report")
    written = ctx.tmp / "report.html"
    ctx.check(wait_until(lambda: written.exists(), timeout=20), "Export Report 'report' wrote no report.html")
    html = written.read_text(encoding="utf-8")
    ctx.expect(html.startswith("<!DOCTYPE html>"), f"report.html starts {html[:60]!r}")
    # Each method's section holds the nodes the app draws first (render draws the same picture).
    methods = [m["name"] for m in json.loads(ctx.cli("info", "--json", demo).stdout)["methods"]]
    for index, method in enumerate(methods):
        said = re.search(r", (\d+) nodes,", ctx.cli("render", demo, "--method", method, "-o", ctx.tmp / "m.svg").stderr)
        ctx.check(said, f"render --method {method} said no node count")
        start = html.find(f'<section class="method" id="m{index}">')
        ctx.check(start >= 0, f"report.html has no section for method {method}")
        section = html[start:html.find("</section>", start)]
        nodes = len(re.findall(rf'<g id="m{index}-[^"]*" class="node">', section))
        ctx.expect(nodes == int(said.group(1)),
                   f"method {method}: {nodes} g.node in the report, the app's first picture has {said.group(1)}")
        ctx.expect(f"<q>{method}</q>" in section, f"the section of method {method} does not name it")
    ctx.note(f"report.html: {len(html)} bytes, methods {methods}")
