#!/usr/bin/env python3
"""Mutation sweep of ptescope-cli (issue 13).

Mutates seed programs (the shared samples when present, and programs made at
run time by `ptescope-cli synth`) by truncation, bit flips, integer
overwrites and splices, and runs every mutant through
  info --json, lint, propagate -o, profile --runtime host, export -o.
Counts, per command: signals (a crash or abort), timeouts, unreadable outputs
(a command that succeeded but wrote an -o file the reader refuses, or printed
JSON that does not parse), bad exits (a status other than 0, 1 or 2) and
errors that are not one line on stderr; temporaries left beside outputs are
counted too. A run that times out is tried once more with four times the
time and counts as a timeout only when that fails too. Exits 1 unless signals, timeouts and unreadable outputs are all 0.

  sweep.py --cli build/app/ptescope-cli [--mutants N] [--seed S]
           [--samples DIR] [--timeout SECONDS] [--keep DIR]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

COMMANDS = ["info", "lint", "propagate", "profile", "export"]
INTERESTING32 = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 64, 4096]
INTERESTING64 = [0, 1, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 1 << 32, 1 << 40]


def mutate(rng, data, seeds):
    kind = rng.choice(["truncate", "bitflip", "bitflip", "int32", "int64", "splice"])
    b = bytearray(data)
    if kind == "truncate" or len(b) < 16:
        return kind, bytes(b[: rng.randrange(0, max(1, len(b)))])
    if kind == "bitflip":
        for _ in range(rng.choice([1, 1, 2, 4, 8])):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        return kind, bytes(b)
    if kind == "int32":
        i = rng.randrange(0, len(b) - 4)
        if rng.random() < 0.5:
            i &= ~3
        v = rng.choice(INTERESTING32 + [len(b), len(b) - i, rng.getrandbits(32)])
        b[i : i + 4] = (v & 0xFFFFFFFF).to_bytes(4, "little")
        return kind, bytes(b)
    if kind == "int64":
        i = rng.randrange(0, len(b) - 8)
        if rng.random() < 0.5:
            i &= ~7
        v = rng.choice(INTERESTING64 + [rng.getrandbits(64)])
        b[i : i + 8] = v.to_bytes(8, "little")
        return kind, bytes(b)
    other = rng.choice(seeds)
    cut_a = rng.randrange(0, len(b))
    cut_b = rng.randrange(0, max(1, len(other)))
    return kind, bytes(b[:cut_a] + other[cut_b:])


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired:
        return None, b"", b"", True


def make_seeds(cli, samples, work):
    paths = []
    if samples and os.path.isdir(samples):
        for name in sorted(os.listdir(samples)):
            if name.endswith(".pte"):
                paths.append(os.path.join(samples, name))
    listing = subprocess.run([cli, "synth", "--list-scenarios"], capture_output=True, text=True)
    scenarios = [line.split("\t")[0] for line in listing.stdout.splitlines() if line.strip()]
    for args, name in [(["--demo"], "demo")] + [(["--scenario", s], s) for s in scenarios]:
        out = os.path.join(work, "seed-" + name + ".pte")
        if subprocess.run([cli, "synth", *args, "-o", out], capture_output=True).returncode == 0:
            paths.append(out)
    return [open(p, "rb").read() for p in paths], paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--mutants", type=int, default=200)
    ap.add_argument("--seed", type=int, default=13)
    here = os.path.dirname(os.path.abspath(__file__))
    default_samples = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "shared", "pte-samples"))
    ap.add_argument("--samples", default=os.environ.get("PTESCOPE_SAMPLES_DIR", default_samples))
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--keep", default="", help="folder for mutants that broke a property")
    args = ap.parse_args()
    cli = os.path.abspath(args.cli)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="ptescope-sweep-")
    seeds, seed_paths = make_seeds(cli, args.samples, work)
    if not seeds:
        print("sweep: no seed programs", file=sys.stderr)
        return 2
    counts = {c: {"runs": 0, "signals": 0, "timeouts": 0, "unreadable": 0, "bad_exit": 0, "multiline_error": 0, "slow": 0}
              for c in COMMANDS}
    kinds = {}
    leftovers = 0
    findings = []
    start = time.time()
    mutant = os.path.join(work, "mutant.pte")
    out = os.path.join(work, "out", "out.pte")
    os.makedirs(os.path.dirname(out))
    for n in range(args.mutants):
        kind, data = mutate(rng, rng.choice(seeds), seeds)
        kinds[kind] = kinds.get(kind, 0) + 1
        if n > 0 and n % 100 == 0:
            t = {k: sum(c[k] for c in counts.values()) for k in ("runs", "signals", "timeouts", "unreadable", "bad_exit")}
            print("sweep: %d mutants, %d runs, %.0f s: signals %d, timeouts %d, unreadable %d, bad exits %d" %
                  (n, t["runs"], time.time() - start, t["signals"], t["timeouts"], t["unreadable"], t["bad_exit"]),
                  flush=True)
        with open(mutant, "wb") as f:
            f.write(data)
        for command in COMMANDS:
            if os.path.exists(out):
                os.unlink(out)
            cmd = {
                "info": [cli, "info", "--json", mutant],
                "lint": [cli, "lint", mutant],
                "propagate": [cli, "propagate", mutant, "-o", out],
                "profile": [cli, "profile", "--runtime", "host", "--iterations", "1", "--warmup", "0",
                            "--max-memory", "1G", mutant],
                "export": [cli, "export", mutant, "-o", out],
            }[command]
            code, stdout, stderr, timed_out = run(cmd, args.timeout)
            c = counts[command]
            if timed_out:
                # A shared, loaded machine can stall a run: a timeout counts
                # only when a second try with four times the time also fails.
                c["slow"] += 1
                code, stdout, stderr, timed_out = run(cmd, 4 * args.timeout)
            c["runs"] += 1
            problem = None
            if timed_out:
                c["timeouts"] += 1
                problem = "timeout"
            elif code < 0:
                c["signals"] += 1
                problem = "signal %d" % -code
            elif code not in (0, 1, 2):
                c["bad_exit"] += 1
                problem = "exit %d" % code
            else:
                if code == 2 and stderr.decode("utf-8", "replace").strip().count("\n") > 0 and command != "profile":
                    c["multiline_error"] += 1
                if code == 0 and command == "info":
                    try:
                        json.loads(stdout.decode("utf-8"))
                    except (ValueError, UnicodeDecodeError):
                        c["unreadable"] += 1
                        problem = "info --json printed JSON that does not parse"
                if code == 0 and command in ("propagate", "export"):
                    back = run([cli, "info", out], args.timeout)
                    if back[0] != 0:
                        c["unreadable"] += 1
                        problem = "wrote an output the reader refuses"
                elif code != 0 and command in ("propagate", "export") and os.path.exists(out):
                    c["unreadable"] += 1
                    problem = "failed but left an output"
            # A .ptd beside out.pte is the program's data, copied there on
            # purpose (propagate/export take the data files a program was
            # read with to the folder they write it into); temporaries are
            # anything else (".out.pte.ptescope-PID-N.tmp").
            stray = [e for e in os.listdir(os.path.dirname(out))
                     if e != "out.pte" and not (e.endswith(".ptd") and not e.startswith("."))]
            if stray:
                leftovers += len(stray)
                for e in stray:
                    os.unlink(os.path.join(os.path.dirname(out), e))
            if problem:
                findings.append((n, kind, command, problem))
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    shutil.copy(mutant, os.path.join(args.keep, "mutant-%d-%s.pte" % (n, command)))
                    with open(os.path.join(args.keep, "mutant-%d-%s.txt" % (n, command)), "w") as f:
                        f.write(problem + "\n" + stderr.decode("utf-8", "replace"))
    elapsed = time.time() - start
    total = {k: sum(c[k] for c in counts.values()) for k in next(iter(counts.values()))}
    print("sweep: %d mutants of %d seeds (%s), %d runs in %.0f s" %
          (args.mutants, len(seeds), ", ".join("%s %d" % kv for kv in sorted(kinds.items())), total["runs"], elapsed))
    for command in COMMANDS:
        c = counts[command]
        print("  %-10s runs %5d  signals %d  timeouts %d  unreadable %d  bad exits %d  multi-line errors %d  "
              "slow (passed on retry) %d" % (command, c["runs"], c["signals"], c["timeouts"], c["unreadable"],
                                              c["bad_exit"], c["multiline_error"], c["slow"]))
    print("sweep: signals %d, timeouts %d, unreadable outputs %d, bad exits %d, temporaries left %d" %
          (total["signals"], total["timeouts"], total["unreadable"], total["bad_exit"], leftovers))
    for f in findings[:20]:
        print("  finding: mutant %d (%s) %s: %s" % f)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if total["signals"] + total["timeouts"] + total["unreadable"] + total["bad_exit"] + leftovers == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
