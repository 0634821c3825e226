#!/usr/bin/env python3
"""The HTML report (`ptescope-cli report`) in a real browser: headless Chromium.

For each program (the demo; an llm of ~4,000 instructions whose first picture
has collapsed groups and whose ~1,500 copies start folded; one whose names
carry markup, script and quotes) it writes a report, loads it with
`chromium --headless --dump-dom` and checks what the report's script wrote on
<body> once it ran:
  - data-report="ready" (the script ran to its end),
  - data-nodes: the g.node count equals the app's first picture, summed over
    the methods (`ptescope-cli render --method M` says how many nodes it drew),
  - data-copy-rows: one row per copy (`info --json` h2d_copies + d2h_copies),
  - data-find-matches: Find (#find=TEXT) finds a value that is there and
    nothing for a word that is not; data-find-box: the Find box then shows
    TEXT, data-find-in-view: the first match lies inside the window (the page
    scrolled to it, the graph centred on it; issue 34 item 22),
  - data-revealed: #copy=N (a click on the copy's row) highlights the node
    the row names, in a folded table and in a collapsed group too,
  - no console message at all (script errors and Content-Security-Policy
    violations are console messages; the report logs nothing itself) and
    data-csp-violations="0".
Exit 77 (skipped, with a line saying why) only when no Chromium is installed.
"""
from html import unescape
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

SKIP = 77


def chromium_binary():
    for name in (os.environ.get("PTESCOPE_CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=300, **kw)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def cli(ptescope_cli, *args):
    r = run([ptescope_cli, *args])
    check(r.returncode == 0, f"ptescope-cli {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return r


def expected_counts(ptescope_cli, program, work):
    info = json.loads(cli(ptescope_cli, "info", "--json", program).stdout)
    nodes = copies = 0
    for method in info["methods"]:
        copies += method["h2d_copies"] + method["d2h_copies"]
        svg = os.path.join(work, "first-picture.svg")
        r = cli(ptescope_cli, "render", program, "--method", method["name"], "-o", svg)
        said = re.search(r", (\d+) nodes,", r.stderr)
        check(said, f"render said no node count: {r.stderr}")
        nodes += int(said.group(1))
    return nodes, copies


def load(chromium, html, fragment, work):
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=work)
    args = [chromium, "--headless", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--window-size=1400,1000"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    args += ["--dump-dom", "file://" + os.path.abspath(html) + fragment]
    r = run(args)
    check(r.returncode == 0, f"chromium exited {r.returncode}: {r.stderr[-2000:]}")
    body = re.search(r"<body([^>]*)>", r.stdout)
    check(body, "chromium dumped no <body>: " + r.stdout[:500])
    attributes = dict(re.findall(r'([a-z-]+)="([^"]*)"', body.group(1)))
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    return attributes, console


def check_report(chromium, ptescope_cli, program, find, work, name):
    html = os.path.join(work, name + ".html")
    cli(ptescope_cli, "report", program, "-o", html)
    nodes, copies = expected_counts(ptescope_cli, program, work)
    for query, want_matches in ((find, True), ("no-such-word-anywhere", False)):
        body, console = load(chromium, html, "#find=" + urllib.parse.quote(query), work)
        check(not console, f"{name}: console messages:\n" + "\n".join(console))
        check(body.get("data-report") == "ready", f"{name}: data-report={body.get('data-report')!r}, not 'ready'")
        check(body.get("data-csp-violations") == "0", f"{name}: CSP violations: {body.get('data-csp-violations')}")
        check(body.get("data-nodes") == str(nodes), f"{name}: {body.get('data-nodes')} g.node, the first picture has {nodes}")
        check(body.get("data-copy-rows") == str(copies), f"{name}: {body.get('data-copy-rows')} copy rows, info has {copies}")
        matches = int(body.get("data-find-matches", "-1"))
        check(unescape(body.get("data-find-box", "")) == query,
              f"{name}: after #find= the Find box reads {body.get('data-find-box')!r}, not {query!r}")
        if want_matches:
            check(matches >= 1, f"{name}: Find '{query}' matched {matches} nodes")
            check(body.get("data-find-in-view") == "yes", f"{name}: #find={query}: the first match is out of sight")
        else:
            check(matches == 0, f"{name}: Find '{query}' matched {matches} nodes")
    # A copy shown as if its row were clicked (#copy=N): the node the row
    # names gets the highlight; in a big method also a copy inside a
    # collapsed group, whose group node is shown.
    rows = re.findall(r'<tr class="copy" data-node="(m0-[^"]+)"><td class="num" data-v="(\d+)">', open(html).read())
    revealed = []
    in_groups = [row for row in rows if row[0].startswith("m0-g")]
    for node, instruction in ([rows[0]] + (in_groups[:1] or rows[-1:]) if rows else []):
        body, console = load(chromium, html, "#copy=" + instruction, work)
        check(not console, f"{name}: console messages:\n" + "\n".join(console))
        check(body.get("data-revealed") == node,
              f"{name}: #copy={instruction} highlighted {body.get('data-revealed')!r}, its row names {node!r}")
        revealed.append(node)
    print(f"PASS {name}: {nodes} nodes, {copies} copy rows, Find '{find}' found, copies {revealed} shown, "
          "no console message")


HOSTILE_SPEC = {
    "methods": [{
        "name": "fwd</script><script>alert(1)</script>\"'<img src=x onerror=alert(2)>",
        "inputs": ["a", "b"], "outputs": ["y"],
        "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "b": {"dtype": "float32", "sizes": [4]},
                    "t": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
        "nodes": [
            {"delegate": "Cuda\"'><svg onload=alert(3)>", "compile_specs": {
                "target_device": "cuda:0",
                "<b onmouseover=alert(4)>": "</style><script>alert(5)</script>",
                "bytes": [255, 254, 60, 115, 99, 114, 105, 112, 116, 62]},
             "inputs": ["a", "b"], "outputs": ["t"]},
            {"op": "aten::relu.out", "inputs": ["t"], "outputs": ["y"]}]}]}


def main():
    if len(sys.argv) != 2:
        print("usage: report_in_chromium.py PTESCOPE_CLI", file=sys.stderr)
        return 2
    ptescope_cli = sys.argv[1]
    chromium = chromium_binary()
    if chromium is None:
        print("SKIP: no Chromium installed (Debian package 'chromium'; scripts/setup-deps.sh installs it)")
        return SKIP
    work = tempfile.mkdtemp(prefix="ptescope-report-browser-")
    try:
        demo = os.path.join(work, "demo.pte")
        cli(ptescope_cli, "synth", "--demo", "-o", demo)
        check_report(chromium, ptescope_cli, demo, "%0", work, "demo")
        llm = os.path.join(work, "llm.pte")
        cli(ptescope_cli, "synth", "--shape", "llm", "--instructions", "4000", "-o", llm)
        check_report(chromium, ptescope_cli, llm, "layer", work, "llm-4000")
        spec = os.path.join(work, "hostile.json")
        with open(spec, "w") as f:
            json.dump(HOSTILE_SPEC, f)
        hostile = os.path.join(work, "hostile.pte")
        cli(ptescope_cli, "synth", spec, "-o", hostile)
        check_report(chromium, ptescope_cli, hostile, "relu", work, "hostile-names")
    except Failure as failure:
        print(f"FAIL {failure}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
