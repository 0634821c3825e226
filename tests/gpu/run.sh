#!/usr/bin/env bash
# GPU checks for the executor and `ptescope-cli profile`, in one go on a
# machine with an NVIDIA GPU, its driver and the CUDA toolkit:
#   1. build ptescope with the CUDA runtime (PTESCOPE_WITH_CUDA=ON, no GUI);
#   2. run the GPU test suite (test_exec_cuda must not skip here) and the
#      other executor/profile suites;
#   3. profile the demo, the large synthetic program (500 layers) and a
#      program with one 128 MiB copy each way, with pinned and with pageable
#      host memory;
#   4. check that the large pinned copies reach at least 90% of the link peak
#      probe (best of the iterations against best of the probe, both ways);
#   5. when Qt 6 is installed, build the app too and profile the demo through
#      the GUI's code path offscreen (ptescope --profile --export-profile):
#      it must run on the GPU, not emulated; without Qt this step is reported
#      as skipped;
#   6. run probe-link (the size -> time curve, pinned and pageable, both
#      ways) and check its largest pinned H2D/D2H bandwidth against the link
#      this GPU sits on (PCIe generation and width from nvidia-smi, else
#      sysfs; NVLink-C2C when nvidia-smi reports C2C links): at least 70% of
#      the link's raw rate per direction and not above it; print measured /
#      predicted for the matching built-in profile, and `predict --measured`
#      of the demo and the 500-layer program on the probed link;
#   7. print a short table last.
# Full results (test logs, each profile as text, JSON, CSV and trace) go to
# $OUT when it is set, else to a fresh temporary folder named at the end.
# The exit status is 0 only when every check passed.
#
# Knobs: PTESCOPE_GPU_BUILD (build folder, default <repo>/build-gpu),
# PTESCOPE_GPU_ITERATIONS (measured iterations, default 20),
# PTESCOPE_GPU_JOBS (build parallelism, default nproc),
# PTESCOPE_GPU_RUNTIME (default cuda; "host" is a dry run of this script on a
# machine without a GPU: everything runs, and the GPU checks then fail),
# PTESCOPE_GPU_PREBUILT=1 (use the build folder as it is: no configure, no
# build), PTESCOPE_GPU_CTEST_REGEX (the suites of step 2, default
# 'exec|profile'; empty skips them), PTESCOPE_GPU_LINK (the link the GPU sits
# on, e.g. pcie-gen5-x16, when nvidia-smi and sysfs cannot tell).
# CI runs this script once against the cudart stand-in (tests/cudart-standin,
# test gpu_run_sh_standin): every step runs, nothing of it measures a GPU, and
# the summary says STAND-IN.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${PTESCOPE_GPU_BUILD:-$ROOT/build-gpu}"
ITERATIONS="${PTESCOPE_GPU_ITERATIONS:-20}"
JOBS="${PTESCOPE_GPU_JOBS:-$(nproc)}"
RUNTIME="${PTESCOPE_GPU_RUNTIME:-cuda}"
PREBUILT="${PTESCOPE_GPU_PREBUILT:-0}"
CTEST_REGEX="${PTESCOPE_GPU_CTEST_REGEX-exec|profile}"
THRESHOLD=0.90                    # share of the link peak large pinned copies must reach
LARGE_COPY_BYTES=$((64 << 20))    # copies at least this big count as "large"
RESULTS="${OUT:-}"
if [ -z "$RESULTS" ]; then RESULTS="$(mktemp -d -t ptescope-gpu.XXXXXX)"; fi
mkdir -p "$RESULTS"
WORK="$(mktemp -d -t ptescope-gpu-work.XXXXXX)"   # programs: large, and not results
trap 'rm -rf "$WORK"' EXIT
LOG="$RESULTS/run.log"
: > "$LOG"

failures=()
say() { echo "run.sh: $*" | tee -a "$LOG" >&2; }
fail() { failures+=("$*"); say "FAIL: $*"; }

# ---- 0. the machine ---------------------------------------------------------
gpu_name="GPU unknown (no nvidia-smi)"
if command -v nvidia-smi > /dev/null; then
  {
    nvidia-smi -L
    nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv
  } > "$RESULTS/gpu.txt" 2>&1
  gpu_name="$(head -n 1 "$RESULTS/gpu.txt")"
else
  say "nvidia-smi is not available; continuing (the GPU tests tell whether CUDA works)"
fi

# ---- 1. build with CUDA -----------------------------------------------------
gui=OFF
if [ -d /usr/lib/x86_64-linux-gnu/cmake/Qt6Widgets ] || [ -d /usr/lib/cmake/Qt6Widgets ]; then gui=ON; fi
generator=()
if command -v ninja > /dev/null; then generator=(-G Ninja); fi
if [ "$PREBUILT" = 1 ]; then
  say "using the build in $BUILD as it is (PTESCOPE_GPU_PREBUILT=1)"
  if [ ! -x "$BUILD/app/ptescope" ]; then gui=OFF; gui_missing="the build has no app (PTESCOPE_BUILD_GUI=OFF)"; fi
elif say "configuring in $BUILD" && ! cmake -S "$ROOT" -B "$BUILD" ${generator[@]+"${generator[@]}"} -DCMAKE_BUILD_TYPE=Release \
    -DPTESCOPE_WITH_CUDA=ON -DPTESCOPE_BUILD_GUI=$gui -DPTESCOPE_BUILD_BENCHMARKS=OFF \
    > "$RESULTS/configure.log" 2>&1; then
  tail -n 30 "$RESULTS/configure.log" >&2
  say "FAIL: cmake configure failed (is the CUDA toolkit installed? log: $RESULTS/configure.log)"
  exit 1
fi
if [ "$PREBUILT" != 1 ] && say "building with $JOBS jobs" && ! cmake --build "$BUILD" -j "$JOBS" > "$RESULTS/build.log" 2>&1; then
  grep -E "error|Error" "$RESULTS/build.log" | head -n 30 >&2
  say "FAIL: build failed (log: $RESULTS/build.log)"
  exit 1
fi
CLI="$BUILD/app/ptescope-cli"

# ---- 2. tests -----------------------------------------------------------------
say "GPU test suite"
if "$BUILD/tests/test_exec_cuda" -o "$RESULTS/test_exec_cuda.txt,txt" -o "$RESULTS/test_exec_cuda.xml,junitxml" > /dev/null 2>&1; then
  if grep -q "^SKIP" "$RESULTS/test_exec_cuda.txt"; then
    fail "test_exec_cuda skipped on this machine: $(grep -m1 '^SKIP' "$RESULTS/test_exec_cuda.txt")"
  fi
else
  fail "test_exec_cuda failed (see $RESULTS/test_exec_cuda.txt)"
fi
gpu_tests="$(grep -m1 '^Totals' "$RESULTS/test_exec_cuda.txt" 2> /dev/null || echo 'Totals: not run')"
if [ -n "$CTEST_REGEX" ]; then
  say "executor and profile suites (ctest -R '$CTEST_REGEX')"
  if ! ctest --test-dir "$BUILD" -R "$CTEST_REGEX" --output-on-failure > "$RESULTS/ctest.log" 2>&1; then
    fail "ctest -R '$CTEST_REGEX' failed (see $RESULTS/ctest.log)"
  fi
  ctest_summary="$(grep -m1 'tests passed' "$RESULTS/ctest.log" || echo 'no summary')"
else
  ctest_summary="skipped (PTESCOPE_GPU_CTEST_REGEX is empty)"
fi

# ---- 3. profiles --------------------------------------------------------------
say "building the programs"
"$CLI" synth --demo -o "$WORK/demo.pte" >> "$LOG" 2>&1 || fail "synth --demo"
"$CLI" synth --large 500 -o "$WORK/large-500.pte" >> "$LOG" 2>&1 || fail "synth --large 500"
"$CLI" synth "$ROOT/tests/gpu/large-copy.json" -o "$WORK/large-copy.pte" >> "$LOG" 2>&1 || fail "synth large-copy.json"

profiles=()
for program in demo large-500 large-copy; do
  for memory in pinned pageable; do
    name="$program-$memory"
    say "profile $name"
    "$CLI" profile "$WORK/$program.pte" --runtime "$RUNTIME" "--$memory" --iterations "$ITERATIONS" --warmup 3 \
      --json "$RESULTS/$name.json" --csv "$RESULTS/$name.csv" --trace "$RESULTS/$name.trace.json" \
      > "$RESULTS/$name.txt" 2> "$RESULTS/$name.err"
    status=$?
    if [ $status -ne 0 ]; then
      fail "profile $name exited $status: $(head -n 1 "$RESULTS/$name.err")"
      continue
    fi
    profiles+=("$name")
    if grep -q "EMULATED" "$RESULTS/$name.txt"; then fail "profile $name ran emulated on a GPU machine"; fi
    if grep -q "^  h2d: 0 copies" "$RESULTS/$name.txt"; then fail "profile $name measured no H2D copy"; fi
  done
done

# ---- 3b. the GUI's code path ---------------------------------------------------
gui_result="skipped (${gui_missing:-Qt 6 is not installed on this machine})"
if [ "$gui" = ON ]; then
  say "profile the demo from the app, offscreen"
  if QT_QPA_PLATFORM=offscreen "$BUILD/app/ptescope" --profile --tab transfers --overlay time \
      --screenshot "$RESULTS/gui-profile.png" --export-profile "$RESULTS/gui-profile.json" \
      > "$RESULTS/gui-profile.log" 2>&1; then
    gui_result="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%s, %d copies, emulated=%s" % (d["runtime"], len(d["copies"]), d["emulated"]))' "$RESULTS/gui-profile.json" 2>&1)"
    if ! grep -q "emulated=False" <<< "$gui_result"; then fail "the app's profile did not run on the GPU: $gui_result"; fi
  else
    gui_result="failed (see $RESULTS/gui-profile.log)"
    fail "ptescope --profile failed: $(tail -n 1 "$RESULTS/gui-profile.log")"
  fi
  if ! QT_QPA_PLATFORM=offscreen "$BUILD/tests/test_profile_window" > "$RESULTS/test_profile_window.txt" 2>&1; then
    fail "test_profile_window failed (see $RESULTS/test_profile_window.txt)"
  fi
fi

# ---- 4. large pinned copies against the link peak -----------------------------
# CSV columns: 1 instruction, 2 direction, 7 bytes, 12 gbps (median),
# 13 best_gbps, 14 peak_share (= gbps / peak); so best / peak = 13 * 14 / 12.
bandwidth_lines=""
if [ -f "$RESULTS/large-copy-pinned.csv" ]; then
  if ! bandwidth_lines="$(awk -F, -v threshold="$THRESHOLD" -v large="$LARGE_COPY_BYTES" '
    NR > 1 && $7 >= large {
      ratio = ($12 > 0) ? $13 * $14 / $12 : 0
      peak = ($14 > 0) ? $12 / $14 : 0
      verdict = (ratio >= threshold) ? "ok" : "LOW"
      if (ratio < threshold) low = 1
      seen[$2] = 1
      printf "  %s %6.1f MiB: best %7.2f GB/s, median %7.2f GB/s, peak %7.2f GB/s -> %5.1f%% of peak (%s)\n",
             $2, $7 / 1048576, $13, $12, peak, ratio * 100, verdict
    }
    END {
      if (!seen["h2d"]) { print "  no large H2D copy measured"; low = 1 }
      if (!seen["d2h"]) { print "  no large D2H copy measured"; low = 1 }
      exit low
    }' "$RESULTS/large-copy-pinned.csv")"; then
    fail "large pinned copies below $(awk -v t="$THRESHOLD" 'BEGIN { print t * 100 }')% of the link peak"
  fi
else
  fail "no profile of large-copy with pinned memory to check"
fi
printf '%s\n' "$bandwidth_lines" > "$RESULTS/bandwidth-check.txt"

# ---- 4b. probe-link against the link this GPU sits on -------------------------
# Raw data rate per direction of one PCIe lane in GB/s (after line coding):
# Gen1 0.25, Gen2 0.5, Gen3 0.985, Gen4 1.969, Gen5 3.938, Gen6 7.563.
LINK_MIN_SHARE=0.70
link_lines=""
link_kind="unknown"
link_raw=""
builtin=""
gen=""; width=""
if command -v nvidia-smi > /dev/null; then
  gen="$(nvidia-smi -i 0 --query-gpu=pcie.link.gen.max --format=csv,noheader 2> /dev/null | tr -dc '0-9')"
  width="$(nvidia-smi -i 0 --query-gpu=pcie.link.width.max --format=csv,noheader 2> /dev/null | tr -dc '0-9')"
  if nvidia-smi c2c -s -i 0 2> /dev/null | grep -qiE "GB/s|active"; then link_kind="nvlink-c2c"; fi
fi
if [ -z "$gen" ] || [ -z "$width" ]; then
  # sysfs: the first NVIDIA display/3D controller's maximum link.
  for dev in /sys/bus/pci/devices/*; do
    [ "$(cat "$dev/vendor" 2> /dev/null)" = "0x10de" ] || continue
    case "$(cat "$dev/class" 2> /dev/null)" in 0x03*) ;; *) continue ;; esac
    speed="$(cat "$dev/max_link_speed" 2> /dev/null)"   # "16.0 GT/s PCIe"
    width="$(cat "$dev/max_link_width" 2> /dev/null)"
    case "$speed" in 2.5*) gen=1 ;; 5.0*) gen=2 ;; 8.0*) gen=3 ;; 16.0*) gen=4 ;; 32.0*) gen=5 ;; 64.0*) gen=6 ;; esac
    break
  done
fi
if [ -z "$gen" ] && [ -n "${PTESCOPE_GPU_LINK:-}" ]; then
  case "$PTESCOPE_GPU_LINK" in
    nvlink-c2c) link_kind=nvlink-c2c ;;
    pcie-gen*-x*) gen="${PTESCOPE_GPU_LINK#pcie-gen}"; width="${gen#*-x}"; gen="${gen%%-*}" ;;
    *) say "PTESCOPE_GPU_LINK=$PTESCOPE_GPU_LINK is not pcie-genG-xW or nvlink-c2c; ignored" ;;
  esac
fi
if [ "$link_kind" = unknown ] && [ -n "$gen" ] && [ -n "$width" ]; then
  link_kind="pcie-gen$gen-x$width"
  link_raw="$(awk -v g="$gen" -v w="$width" 'BEGIN { split("0.25 0.5 0.985 1.969 3.938 7.563", lane, " "); print lane[g] * w }')"
fi
if [ "$link_kind" = nvlink-c2c ]; then link_raw=450; fi
if [ -f "$ROOT/resources/links/$link_kind.json" ]; then builtin="$ROOT/resources/links/$link_kind.json"; fi
say "probe-link on cuda:0 (link: $link_kind${link_raw:+, raw $link_raw GB/s per direction})"
if "$CLI" probe-link --device 0 -o "$RESULTS/link.json" > "$RESULTS/probe-link.txt" 2>&1; then
  # The largest pinned point of each direction, and the built-in's.
  if ! link_lines="$(python3 - "$RESULTS/link.json" "$builtin" "$link_raw" "$LINK_MIN_SHARE" << 'PY'
import json, sys
probe = json.load(open(sys.argv[1]))
builtin = json.load(open(sys.argv[2])) if sys.argv[2] else None
raw = float(sys.argv[3]) if sys.argv[3] else 0.0
share = float(sys.argv[4])
def curve(profile, direction, memory):
    for c in profile["curves"]:
        if c["direction"] == direction and c["host_memory"] == memory:
            return c["points"]
    return []
bad = False
for direction in ("h2d", "d2h"):
    for memory in ("pinned", "pageable"):
        points = curve(probe, direction, memory)
        if not points:
            print("  %s %s: no curve" % (direction, memory)); bad = True; continue
        last = points[-1]
        gbps = last["bytes"] / (last["us"] * 1e-6) / 1e9
        line = "  %s %-8s %7.1f MiB: %7.2f GB/s, 1 KiB: %6.2f us" % (
            direction, memory, last["bytes"] / 1048576, gbps, points[0]["us"])
        if builtin:
            ref = {p["bytes"]: p["us"] for p in curve(builtin, direction, memory)}
            if last["bytes"] in ref:
                line += ", measured/predicted %.2f" % (last["us"] / ref[last["bytes"]])
        if memory == "pinned" and raw > 0:
            ok = share * raw <= gbps <= 1.02 * raw
            line += " -> %.0f%% of the %.1f GB/s raw link (%s)" % (100 * gbps / raw, raw, "ok" if ok else "OUT OF RANGE")
            bad = bad or not ok
        print(line)
sys.exit(1 if bad else 0)
PY
)"; then
    fail "probe-link: large pinned bandwidth outside ${LINK_MIN_SHARE}..1.02 of the $link_kind raw rate (or a curve missing)"
  fi
  if [ -z "$link_raw" ]; then fail "probe-link: could not tell which link cuda:0 sits on (no nvidia-smi, no sysfs entry)"; fi
  for name in demo-pinned large-500-pinned; do
    program="${name%-pinned}"
    if [ -f "$RESULTS/$name.json" ]; then
      "$CLI" predict "$WORK/$program.pte" --pinned --link "$RESULTS/link.json" --measured "$RESULTS/$name.json" \
        > "$RESULTS/predict-$name.txt" 2>&1 || fail "predict --measured $name"
      "$CLI" predict "$WORK/$program.pte" --pinned --link "$RESULTS/link.json" --measured "$RESULTS/$name.json" --json \
        > "$RESULTS/predict-$name.json" 2>> "$LOG" || true
      link_lines+=$'\n'"$(python3 -c '
import json, statistics, sys
d = json.load(open(sys.argv[1]))
r = [c["measured_over_predicted"] for c in d["copies"] if c.get("measured_over_predicted")]
print("  %s: %d copies, measured/predicted median %.2f (min %.2f, max %.2f) on the probed link" % (
    sys.argv[2], len(r), statistics.median(r), min(r), max(r)) if r else "  %s: no copy paired" % sys.argv[2])
' "$RESULTS/predict-$name.json" "$program" 2>&1)"
    fi
  done
else
  fail "probe-link failed: $(tail -n 1 "$RESULTS/probe-link.txt")"
fi
printf '%s\n' "$link_lines" > "$RESULTS/link-check.txt"

# ---- 5. the table ---------------------------------------------------------------
# The runtime every profile ran on, from its text ("  runtime: cuda (...)  [...]").
runtime_line="$(grep -h -m1 '^  runtime:' "$RESULTS"/*-pinned.txt 2> /dev/null | head -n 1 | sed 's/^  runtime: //')"
if grep -q "stand-in" <<< "$runtime_line"; then
  gpu_name="the cudart STAND-IN, not a GPU (tests/cudart-standin: the script and CudaRuntime's calls ran, no GPU was measured)"
fi
# Totals lines of the text output look like
#   "  h2d: 2 copies, 512 B, median 1.23 us, 0.42 GB/s, 1.0% of peak"
#   "  run: median 5.48 us (min ..., max ...), copies 0.10 us = 1.8% of the run"
#   "  link peak (pinned, 256.0 MiB each way on cuda:0, best of 5): h2d 55.1 GB/s, d2h 54.9 GB/s"
field() {  # field FILE PREFIX SED-EXPRESSION
  grep -m1 "^  $2" "$1" | sed -E "$3"
}
{
  echo
  echo "ptescope GPU checks on $gpu_name"
  echo "  runtime: ${runtime_line:-unknown (no profile ran)}"
  echo "  GPU tests: $gpu_tests"
  echo "  ctest -R 'exec|profile': $ctest_summary"
  echo "  app profile of the demo (GUI code path): $gui_result"
  printf "  %-20s %5s %11s %9s %5s %11s %9s %7s  %s\n" profile H2D bytes "GB/s" D2H bytes "GB/s" "copies" "link peak H2D/D2H GB/s"
  for name in ${profiles[@]+"${profiles[@]}"}; do
    txt="$RESULTS/$name.txt"
    h2d_n=$(field "$txt" "h2d:" 's/^  h2d: ([0-9]+) copies.*/\1/')
    h2d_b=$(field "$txt" "h2d:" 's/^  h2d: [0-9]+ copies, ([^,]+),.*/\1/')
    h2d_g=$(field "$txt" "h2d:" 's/.* us, ([0-9.]+) GB\/s.*/\1/')
    d2h_n=$(field "$txt" "d2h:" 's/^  d2h: ([0-9]+) copies.*/\1/')
    d2h_b=$(field "$txt" "d2h:" 's/^  d2h: [0-9]+ copies, ([^,]+),.*/\1/')
    d2h_g=$(field "$txt" "d2h:" 's/.* us, ([0-9.]+) GB\/s.*/\1/')
    share=$(field "$txt" "run:" 's/.* = ([0-9.]+%) of the run.*/\1/')
    peak=$(field "$txt" "link peak" 's/.*: h2d ([0-9.]+) GB\/s, d2h ([0-9.]+) GB\/s.*/\1 \/ \2/')
    printf "  %-20s %5s %11s %9s %5s %11s %9s %7s  %s\n" "$name" "$h2d_n" "$h2d_b" "$h2d_g" "$d2h_n" "$d2h_b" "$d2h_g" "$share" "$peak"
  done
  echo "  large pinned copies (>= $((LARGE_COPY_BYTES >> 20)) MiB) against the link peak, threshold $(awk -v t="$THRESHOLD" 'BEGIN { print t * 100 }')%:"
  echo "$bandwidth_lines"
  echo "  probe-link (link: $link_kind${link_raw:+, raw $link_raw GB/s per direction}), large pinned at least $(awk -v t="$LINK_MIN_SHARE" 'BEGIN { print t * 100 }')% of raw:"
  echo "$link_lines"
  if [ ${#failures[@]} -eq 0 ]; then
    echo "RESULT: PASS (full results in $RESULTS)"
  else
    echo "RESULT: FAIL, ${#failures[@]} problem(s) (full results in $RESULTS):"
    for f in "${failures[@]}"; do echo "  - $f"; done
  fi
} | tee "$RESULTS/summary.txt"

[ ${#failures[@]} -eq 0 ]
