#!/usr/bin/env bash
# The long local fuzz run of docs/reliability.md: RUNS executions of one
# harness in total, split over JOBS processes that share one corpus folder
# (libFuzzer reloads what the others add), at the lowest CPU priority.
#   tests/fuzz/long-run.sh BUILD_DIR HARNESS RUNS [JOBS]
# BUILD_DIR: a fuzz build (see run.sh; for speed a long run may use
# -DPTESCOPE_FUZZ_SANITIZERS=undefined,alignment -DPTESCOPE_FUZZ_OPT=-O2, then
# replay the corpus it grew under the default ASan + UBSan build:
# `BUILD/tests/fuzz/HARNESS -runs=0 CORPUS`). Corpus and seeds as in run.sh
# (run run.sh once first to make the seeds). Prints one line: executions,
# coverage, corpus size, wall time; exits 1 on any finding.
set -euo pipefail
build="$(cd "${1:?usage: long-run.sh BUILD_DIR HARNESS RUNS [JOBS]}" && pwd)"
harness="${2:?harness}"
runs="${3:?runs}"
jobs="${4:-2}"
corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
seeds="$corpus/seed-programs"
[ "$harness" = fuzz_json_spec ] && seeds="$corpus/seed-specs"
[ -d "$seeds" ] || { echo "long-run: no seeds in $seeds (run tests/fuzz/run.sh $build 1 first)" >&2; exit 2; }
mkdir -p "$corpus/$harness" "$artifacts"
# One long run per harness and build at a time: a second would write the same
# log names and the executions of the first would be lost from the count.
exec 9>"$build/fuzz-long-$harness.lock"
flock -n 9 || { echo "long-run: another long run of $harness is using $build" >&2; exit 2; }
rm -f "$build"/fuzz-long-"$harness"-*.log  # the count sums this run's logs only
start=$(date +%s)
pids=()
for ((j = 0; j < jobs; ++j)); do
  nice -n 19 "$build/tests/fuzz/$harness" -runs=$((runs / jobs)) -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/$harness-" \
    "$corpus/$harness" "$seeds" >"$build/fuzz-long-$harness-$j.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
elapsed=$(( $(date +%s) - start ))
total=$(cat "$build"/fuzz-long-"$harness"-*.log | grep -o 'stat::number_of_executed_units: [0-9]*' |
  awk '{s += $2} END {print s + 0}')
cov=$(grep -ho 'cov: [0-9]* ft: [0-9]*' "$build"/fuzz-long-"$harness"-*.log | sort -t' ' -k2 -n | tail -1 || true)
files=$(ls "$corpus/$harness" | wc -l)
if [ $status -ne 0 ]; then
  echo "long-run: $harness FAILED after $total executions, ${elapsed} s; see $build/fuzz-long-$harness-*.log"
  grep -h -m1 -E 'ERROR|runtime error|property broken|Sanitizer' "$build"/fuzz-long-"$harness"-*.log || true
  exit 1
fi
echo "long-run: $harness ok: $total executions in $jobs processes, $cov, corpus $files, ${elapsed} s"
