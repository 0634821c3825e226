#!/usr/bin/env bash
# Runs the libFuzzer harnesses of tests/fuzz on seed corpora made at run time.
#   tests/fuzz/run.sh BUILD_DIR LIMIT [HARNESS...]
# BUILD_DIR: a build configured with CC=clang CXX=clang++ -DPTESCOPE_FUZZ=ON
# and built with --target ptescope_fuzzers. LIMIT: seconds per harness
# (e.g. 60), or runs:N for N executions per harness (e.g. runs:10000000).
# HARNESS: any of fuzz_reader fuzz_pipeline fuzz_json_spec fuzz_exec (default
# all). Seeds: make_seeds (the synth generators) plus the shared sample
# programs ($PTESCOPE_SAMPLES_DIR, default ../shared/pte-samples), copied into
# BUILD_DIR/fuzz-corpus only. Each harness keeps its growing corpus in
# BUILD_DIR/fuzz-corpus/HARNESS; a finding is written to
# BUILD_DIR/fuzz-artifacts/ and makes this script exit 1. One summary line per
# harness: executions, coverage (cov: edges, ft: features), corpus, time.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: run.sh BUILD_DIR LIMIT [HARNESS...]}" && pwd)"
limit="${2:?usage: run.sh BUILD_DIR LIMIT [HARNESS...]}"
shift 2
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(fuzz_reader fuzz_pipeline fuzz_json_spec fuzz_exec)
samples="${PTESCOPE_SAMPLES_DIR:-$here/../../../shared/pte-samples}"
corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$corpus/seed-programs" "$corpus/seed-specs" "$artifacts"
"$build/tests/fuzz/make_seeds" "$corpus/seed-programs" "$corpus/seed-specs"
if [ -d "$samples" ]; then
  cp -f "$samples"/*.pte "$samples"/*.ptd "$corpus/seed-programs/" 2>/dev/null || true
fi
case "$limit" in
  runs:*) budget=(-runs="${limit#runs:}") ;;
  *) budget=(-max_total_time="$limit") ;;
esac
status=0
for h in "${harnesses[@]}"; do
  seeds="$corpus/seed-programs"
  [ "$h" = fuzz_json_spec ] && seeds="$corpus/seed-specs"
  mkdir -p "$corpus/$h"
  log="$build/fuzz-$h.log"
  start=$(date +%s)
  set +e
  "$build/tests/fuzz/$h" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$h-" "$corpus/$h" "$seeds" >"$log" 2>&1
  rc=$?
  set -e
  elapsed=$(( $(date +%s) - start ))
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$log" | tail -1 || true)
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz: $h FAILED (exit $rc) after $runs executions, ${elapsed} s; see $log and $artifacts/"
    grep -m1 -E 'ERROR|runtime error|property broken|Sanitizer' "$log" || tail -5 "$log"
  else
    echo "fuzz: $h ok: $runs executions, $cov, ${elapsed} s"
  fi
done
exit $status
