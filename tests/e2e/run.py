#!/usr/bin/python3
"""Runs the end-to-end scenarios (tests/e2e/scenarios/*.py, functions scenario_*).

    tests/e2e/run.sh                 # all, one line per scenario, then "N passed, M failed"
    tests/e2e/run.sh -k properties   # those whose name contains a substring (repeatable)
    tests/e2e/run.sh --list          # names only
    tests/e2e/run.sh -j 2            # two scenarios at a time (each on its own X display)

Each scenario runs in a process of its own (pyatspi connects once per process)
with its own Session (Xvfb + openbox + AT-SPI) at each of its window sizes, under
a timeout. Artifacts go to $PTESCOPE_E2E_ARTIFACTS (default
build/e2e-artifacts)/<scenario>/: always final.png; on failure also failure.png,
tree.txt (the accessibility tree) and the app's log.

Environment: PTESCOPE_GUI (default build/app/ptescope), PTESCOPE_CLI (default
build/app/ptescope-cli), PTESCOPE_E2E_TIMEOUT (seconds per scenario, overrides
each scenario's own), PTESCOPE_E2E_VERBOSE=1 (print each scenario's notes),
PTESCOPE_E2E_SCENARIOS (another folder of scenario files), PTESCOPE_E2E_JOBS (as -j).
Exit status: 0 when all passed, 1 when any failed (or a tool or the app is
missing), 77 (skipped) when there is no Xvfb or no pyatspi.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

DEFAULT_SIZES = [(1000, 700)]
DEFAULT_TIMEOUT = 90
SKIP = 77


def scenarios_folder() -> Path:
    folder = Path(os.environ.get("PTESCOPE_E2E_SCENARIOS") or HERE / "scenarios").resolve()
    if str(folder) not in sys.path:
        sys.path.insert(1, str(folder))  # scenario files may share helpers
    return folder


def discover():
    """[(module path, function name, sizes, timeout, doc)] in file and definition order."""
    found = []
    folder = scenarios_folder()
    for path in sorted(folder.glob("*.py")):  # then ordered by issue item ("Item N:" in the doc)
        if path.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"scenarios.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        functions = [(name, fn) for name, fn in vars(module).items()
                     if name.startswith("scenario_") and callable(fn) and fn.__module__ == module.__name__]
        functions.sort(key=lambda item: item[1].__code__.co_firstlineno)
        for name, fn in functions:
            found.append((path, name, list(getattr(fn, "sizes", DEFAULT_SIZES)),
                          int(getattr(fn, "timeout", DEFAULT_TIMEOUT)), (fn.__doc__ or "").strip()))
    def item(entry):
        m = re.match(r"Items? (\d+)", entry[4])
        return int(m.group(1)) if m else 999
    found.sort(key=item)  # stable: file and definition order within an item
    return found


def expand(scenarios):
    runs = []
    for path, name, sizes, timeout, doc in scenarios:
        base = name[len("scenario_"):]
        for w, h in sizes:
            label = base if len(sizes) == 1 else f"{base}[{w}x{h}]"
            runs.append({"path": str(path), "func": name, "name": label, "size": (w, h), "timeout": timeout,
                         "doc": doc})
    return runs


def artifacts_root() -> Path:
    return Path(os.environ.get("PTESCOPE_E2E_ARTIFACTS") or REPO / "build/e2e-artifacts")


def skip_reason() -> str | None:
    """Why the suite is skipped here (exit 77): only a missing Xvfb or pyatspi."""
    from shutil import which
    if not which("Xvfb"):
        return "Xvfb is not installed (apt-get install xvfb)"
    try:
        import pyatspi  # noqa: F401,PLC0415
        del pyatspi
    except Exception as e:  # noqa: BLE001
        return f"pyatspi cannot be imported by {sys.executable} ({e}); apt-get install python3-pyatspi"
    return None


def setup_problem() -> str | None:
    """What else the suite needs; missing, the suite fails (it is not skipped)."""
    from shutil import which
    for tool, package in (("xdotool", "xdotool"), ("openbox", "openbox"), ("import", "imagemagick"),
                          ("convert", "imagemagick"), ("xprop", "x11-utils"), ("dbus-send", "dbus")):
        if not which(tool):
            return f"{tool} is not installed (apt-get install {package})"
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS") and not which("dbus-daemon"):
        return "no D-Bus session bus and no dbus-daemon (run through tests/e2e/run.sh)"
    from harness import cli_binary, gui_binary  # noqa: PLC0415
    if not gui_binary().exists():
        return f"no app binary at {gui_binary()} (build it or set PTESCOPE_GUI)"
    if not cli_binary().exists():
        return f"no ptescope-cli at {cli_binary()} (build it or set PTESCOPE_CLI)"
    return None


# --------------------------------------------------------------------------
# One scenario, in this process


def run_child(args) -> int:
    import harness  # noqa: PLC0415
    from harness import ScenarioTimeout  # noqa: PLC0415
    from scenario_support import Ctx  # noqa: PLC0415

    result = {"status": "fail", "reason": "did not finish"}
    art = Path(args.artifacts)
    art.mkdir(parents=True, exist_ok=True)
    for old in art.iterdir():
        if old.is_file():
            old.unlink()
    w, h = (int(v) for v in args.size.split("x"))

    def on_alarm(signum, frame):
        raise ScenarioTimeout(f"timed out after {args.timeout} s")

    signal.signal(signal.SIGALRM, on_alarm)

    def on_term(signum, frame):
        raise ScenarioTimeout("terminated by the runner")

    signal.signal(signal.SIGTERM, on_term)
    start = time.monotonic()
    session = None
    ctx = None
    try:
        signal.alarm(args.timeout)
        scenarios_folder()
        spec = importlib.util.spec_from_file_location("scenario_module", args.module)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = getattr(module, args.func)
        session = harness.Session(w, h, artifacts=art)
        session.__enter__()
        ctx = Ctx(session, name=args.name, artifacts=art)
        fn(ctx)
        ctx.finish()
        result = {"status": "pass"}
    except (Exception, ScenarioTimeout) as e:  # noqa: BLE001 - a failed check, a timeout, anything else
        signal.alarm(0)
        reason = str(e).strip() or type(e).__name__
        if not isinstance(e, (harness.E2EError, ScenarioTimeout)):
            reason = f"{type(e).__name__}: {reason}"
        result = {"status": "fail", "reason": reason.splitlines()[0][:400] if reason else "failed",
                  "detail": reason, "traceback": traceback.format_exc()}
        (art / "failure.txt").write_text(reason + "\n\n" + traceback.format_exc())
        signal.alarm(30)  # the artifacts themselves must not hang
        try:
            if session is not None and session.display:
                session.screenshot(art / "failure.png")
            if ctx is not None:
                ctx.save_failure_artifacts()
        except (Exception, ScenarioTimeout) as e2:  # noqa: BLE001
            (art / "artifacts-error.txt").write_text(f"{e2}\n{traceback.format_exc()}")
    finally:
        signal.alarm(30)
        try:
            if session is not None and session.display:
                session.screenshot(art / "final.png")
            if ctx is not None:
                ctx.save_logs()
        except (Exception, ScenarioTimeout):  # noqa: BLE001
            pass
        signal.alarm(0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if session is not None:
            session.close()
    result["seconds"] = round(time.monotonic() - start, 1)
    if ctx is not None:
        result["notes"] = ctx.notes
    Path(args.result).write_text(json.dumps(result))
    return 0


# --------------------------------------------------------------------------
# The runner


def kill_groups(pidfile: Path) -> None:
    if not pidfile.exists():
        return
    for line in pidfile.read_text().split():
        try:
            os.killpg(int(line), signal.SIGKILL)
        except (ProcessLookupError, ValueError, PermissionError):
            pass
    pidfile.unlink()


def run_one(run, root: Path, timeout_override: int | None) -> dict:
    art = root / run["name"].replace("[", "-").replace("]", "")
    art.mkdir(parents=True, exist_ok=True)
    result_file = art / ".result.json"
    pidfile = art / ".pids"
    for f in (result_file, pidfile):
        if f.exists():
            f.unlink()
    timeout = timeout_override or run["timeout"]
    env = dict(os.environ)
    env["PTESCOPE_E2E_PIDFILE"] = str(pidfile)
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "--module", run["path"], "--func", run["func"],
            "--name", run["name"], "--size", f"{run['size'][0]}x{run['size'][1]}", "--artifacts", str(art),
            "--result", str(result_file), "--timeout", str(timeout)]
    start = time.monotonic()
    child = subprocess.Popen(argv, env=env, start_new_session=True, stdin=subprocess.DEVNULL,
                             stdout=open(art / "runner.log", "wb"), stderr=subprocess.STDOUT)
    try:
        child.wait(timeout=timeout + 40)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(child.pid, signal.SIGTERM)
            child.wait(timeout=5)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.wait()
    kill_groups(pidfile)
    elapsed = time.monotonic() - start
    if result_file.exists():
        try:
            result = json.loads(result_file.read_text())
        except json.JSONDecodeError:
            result = {"status": "fail", "reason": "unreadable result"}
        result_file.unlink()
    else:
        tail = (art / "runner.log").read_text(errors="replace").strip().splitlines()[-3:]
        result = {"status": "fail", "reason": f"the scenario process died or hung (exit {child.returncode}): "
                                              + " | ".join(tail)}
    result["seconds"] = round(elapsed, 1)
    result["artifacts"] = str(art)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description="ptescope end-to-end scenarios")
    parser.add_argument("-k", action="append", default=[], help="run the scenarios whose name contains this")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("PTESCOPE_E2E_JOBS", "1")),
                        help="scenarios run side by side (each has its own X display; default 1)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--module", help=argparse.SUPPRESS)
    parser.add_argument("--func", help=argparse.SUPPRESS)
    parser.add_argument("--name", help=argparse.SUPPRESS)
    parser.add_argument("--size", help=argparse.SUPPRESS)
    parser.add_argument("--artifacts", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return run_child(args)

    runs = expand(discover())
    if args.k:
        runs = [r for r in runs if any(k in r["name"] for k in args.k)]
    if args.list:
        for r in runs:
            doc = r["doc"].splitlines()[0] if r["doc"] else ""
            print(f"{r['name']:40s} {doc}")
        return 0
    why = skip_reason()
    if why:
        print(f"SKIP e2e: {why}")
        return SKIP
    problem = setup_problem()
    if problem:
        print(f"FAIL setup: {problem}")
        print(f"0 passed, {len(runs)} failed")
        return 1
    root = artifacts_root()
    root.mkdir(parents=True, exist_ok=True)
    timeout_override = int(os.environ["PTESCOPE_E2E_TIMEOUT"]) if os.environ.get("PTESCOPE_E2E_TIMEOUT") else None
    verbose = os.environ.get("PTESCOPE_E2E_VERBOSE") == "1"
    jobs = max(1, args.jobs)
    # One accessibility bus for every scenario (and every parallel one).
    import harness  # noqa: PLC0415
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    bus = harness.start_a11y_bus(env, root / "at-spi.log") if os.environ.get("DBUS_SESSION_BUS_ADDRESS") else None
    passed = failed = 0
    start = time.monotonic()

    def report(run, result):
        nonlocal passed, failed
        if result["status"] == "pass":
            passed += 1
            print(f"PASS {run['name']} ({result['seconds']:.1f} s)", flush=True)
        else:
            failed += 1
            print(f"FAIL {run['name']}: {result.get('reason', 'failed')} ({result['seconds']:.1f} s; "
                  f"artifacts: {result['artifacts']})", flush=True)
        if verbose:
            for note in result.get("notes", []):
                print(f"    {note}", flush=True)

    try:
        if jobs == 1:
            for run in runs:
                report(run, run_one(run, root, timeout_override))
        else:
            from concurrent.futures import ThreadPoolExecutor, as_completed  # noqa: PLC0415
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(run_one, run, root, timeout_override): run for run in runs}
                for future in as_completed(futures):
                    report(futures[future], future.result())
    finally:
        if bus is not None:
            bus.kill()
    print(f"(ran in {time.monotonic() - start:.0f} s; artifacts in {root})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
