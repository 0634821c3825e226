#!/usr/bin/env python3
"""Mutation sweep of the desktop app (issue 27).

Opens mutated programs in the real app, offscreen: each mutant (made as the
CLI sweep makes them, sweep.py's mutate() over the same seeds; for every
other mutant, the first of up to 8 mutations that `ptescope-cli info` reads,
so that half of them get past the reader) is given to
  ptescope --screenshot SHOT.png [--run-once --tab outputs | --tab diagnostics] MUTANT
which opens it (or refuses it with its one message), lays out and draws the
graph, fills the panels, runs the method once on the host for every other
mutant, grabs the window and exits. Counts crashes (a signal), hangs (no exit
within the time limit: tried once more with four times the time, counted
only when that fails too) and exit statuses other than 0 (opened) and 2
(refused). The app's memory budget is set to 256 MiB (its setting, in a
private config folder), as the CLI sweep passes --max-memory 1G. Exits 1
unless crashes, hangs and bad exits are all 0.

  gui_sweep.py --app build/app/ptescope --cli build/app/ptescope-cli
               [--mutants N] [--seed S] [--jobs J] [--samples DIR]
               [--timeout SECONDS] [--keep DIR]
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import make_seeds, mutate, run  # noqa: E402  (the CLI sweep's mutations and seeds)

BUDGET_BYTES = 256 << 20


def set_app_env(work):
    """The app's environment, set on this process (its children inherit it)."""
    env = os.environ
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PTESCOPE_NO_DIALOGS"] = "1"
    config = os.path.join(work, "config")
    os.makedirs(os.path.join(config, "ptescope"), exist_ok=True)
    with open(os.path.join(config, "ptescope", "ptescope.conf"), "w") as f:
        f.write("[run]\nmemoryBudget=%d\n" % BUDGET_BYTES)
    env["XDG_CONFIG_HOME"] = config
    env.setdefault("XDG_RUNTIME_DIR", os.path.join(work, "runtime"))
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)


def open_one(app, work, n, run_once, timeout):
    mutant = os.path.join(work, "mutant-%d.pte" % n)
    shot = os.path.join(work, "shot-%d.png" % n)
    cmd = [app, "--screenshot", shot] + (["--run-once", "--tab", "outputs"] if run_once else ["--tab", "diagnostics"])
    cmd.append(mutant)
    began = time.time()
    code, _, stderr, timed_out = run(cmd, timeout)
    slow = False
    if timed_out:
        slow = True
        code, _, stderr, timed_out = run(cmd, 4 * timeout)
    seconds = time.time() - began
    if os.path.exists(shot):
        os.unlink(shot)
    return n, code, stderr, timed_out, slow, seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--cli", required=True, help="ptescope-cli, to make the seed programs")
    ap.add_argument("--mutants", type=int, default=200)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--jobs", type=int, default=2)
    here = os.path.dirname(os.path.abspath(__file__))
    default_samples = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "shared", "pte-samples"))
    ap.add_argument("--samples", default=os.environ.get("PTESCOPE_SAMPLES_DIR", default_samples))
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--keep", default="", help="folder for mutants that crashed or hung")
    args = ap.parse_args()
    app = os.path.abspath(args.app)
    cli = os.path.abspath(args.cli)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="ptescope-gui-sweep-")
    seeds, _ = make_seeds(cli, args.samples, work)
    if not seeds:
        print("gui sweep: no seed programs", file=sys.stderr)
        return 2
    set_app_env(work)
    kinds = {}
    mutants = {}
    readable = 0
    for n in range(args.mutants):
        path = os.path.join(work, "mutant-%d.pte" % n)
        # Most mutants are refused by the reader (one message, exit 2); for
        # every other one up to 8 mutations are tried until the CLI's reader
        # takes it, so that many mutants get past reading into the graph,
        # the panels and Run Once.
        for attempt in range(1 if n % 2 == 0 else 8):
            kind, data = mutate(rng, rng.choice(seeds), seeds)
            with open(path, "wb") as f:
                f.write(data)
            if n % 2 == 0:
                break
            if run([cli, "info", path], 30)[0] == 0:
                readable += 1
                break
        kinds[kind] = kinds.get(kind, 0) + 1
        mutants[n] = kind
    counts = {"opened": 0, "refused": 0, "crashes": 0, "hangs": 0, "bad_exit": 0, "slow": 0, "run_once": 0}
    findings = []
    slowest = 0.0
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(open_one, app, work, n, n % 2 == 0, args.timeout) for n in range(args.mutants)]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            n, code, stderr, timed_out, slow, seconds = future.result()
            slowest = max(slowest, seconds)
            counts["slow"] += int(slow)
            counts["run_once"] += int(n % 2 == 0)
            problem = None
            if timed_out:
                counts["hangs"] += 1
                problem = "no exit within %.0f s" % (4 * args.timeout)
            elif code < 0:
                counts["crashes"] += 1
                problem = "signal %d" % -code
            elif code == 0:
                counts["opened"] += 1
            elif code == 2:
                counts["refused"] += 1
            else:
                counts["bad_exit"] += 1
                problem = "exit %d" % code
            if problem:
                findings.append((n, mutants[n], problem, stderr.decode("utf-8", "replace").strip()[-300:]))
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    shutil.copy(os.path.join(work, "mutant-%d.pte" % n), os.path.join(args.keep, "gui-mutant-%d.pte" % n))
            if done % 50 == 0:
                print("gui sweep: %d of %d, %.0f s: crashes %d, hangs %d" %
                      (done, args.mutants, time.time() - start, counts["crashes"], counts["hangs"]), flush=True)
    elapsed = time.time() - start
    print("gui sweep: %d mutants of %d seeds (%s; %d chosen because the CLI reads them) in %.0f s with %d job(s), "
          "slowest %.1f s" % (args.mutants, len(seeds), ", ".join("%s %d" % kv for kv in sorted(kinds.items())), readable,
                              elapsed, args.jobs, slowest))
    print("gui sweep: opened %d (Run Once on %d of all), refused with a message %d; crashes %d, hangs %d, bad exits %d, "
          "slow (passed on retry) %d" % (counts["opened"], counts["run_once"], counts["refused"], counts["crashes"],
                                         counts["hangs"], counts["bad_exit"], counts["slow"]))
    for f in findings[:20]:
        print("  finding: mutant %d (%s): %s\n    %s" % f)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if counts["crashes"] + counts["hangs"] + counts["bad_exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
