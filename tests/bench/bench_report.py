#!/usr/bin/env python3
"""The HTML report of big programs: size, time to write, time to open in a browser.

For each program shape (`ptescope-cli synth --shape S --instructions N`, after
the device passes) it writes `report` (wall time, bytes) and loads it in
headless Chromium (`--dump-dom`); the report's script writes on <body> the
milliseconds from navigation start until it finished (data-ready-ms: parsing,
layout of the page, the script's set-up), and the whole browser run is timed
too (start-up included). Median of --runs loads. A benchmark, not a test: it
prints figures and asserts nothing (tests/bench/RESULTS.md records them).

usage: bench_report.py [--cli build/app/ptescope-cli] [--instructions 50000] [--runs 3] [--shapes llm,moe,...]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", default="build/app/ptescope-cli")
    parser.add_argument("--instructions", type=int, default=50000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shapes", default="llm,moe,pipeline,fanout")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    work = tempfile.mkdtemp(prefix="bench-report-")
    print(f"{'shape':10} {'instrs':>7} {'nodes':>6} {'copies':>7} {'MiB':>6} {'write s':>8} "
          f"{'ready ms':>9} {'browser s':>10}")
    try:
        for shape in args.shapes.split(","):
            program = os.path.join(work, shape + ".pte")
            subprocess.run([args.cli, "synth", "--shape", shape, "--instructions", str(args.instructions), "-o", program],
                           check=True, capture_output=True)
            html = os.path.join(work, shape + ".html")
            started = time.monotonic()
            r = subprocess.run([args.cli, "report", program, "-o", html], check=True, capture_output=True, text=True)
            write_s = time.monotonic() - started
            said = re.search(r"(\d+) graph nodes, (\d+) copies", r.stderr)
            ready, wall = [], []
            for _ in range(args.runs if chromium else 0):
                command = [chromium, "--headless", "--disable-gpu", "--no-first-run", "--virtual-time-budget=60000",
                           "--user-data-dir=" + tempfile.mkdtemp(dir=work), "--window-size=1400,1000"]
                if os.geteuid() == 0:
                    command.append("--no-sandbox")
                started = time.monotonic()
                dom = subprocess.run(command + ["--dump-dom", "file://" + html], capture_output=True, text=True,
                                     errors="replace", timeout=600).stdout
                wall.append(time.monotonic() - started)
                m = re.search(r'data-ready-ms="(\d+)"', dom)
                ready.append(int(m.group(1)) if m else float("nan"))
            print(f"{shape:10} {args.instructions:>7} {said.group(1):>6} {said.group(2):>7} "
                  f"{os.path.getsize(html) / 2**20:>6.1f} {write_s:>8.2f} "
                  f"{(statistics.median(ready) if ready else float('nan')):>9.0f} "
                  f"{(statistics.median(wall) if wall else float('nan')):>10.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not chromium:
        print("no chromium: the browser columns are empty", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
