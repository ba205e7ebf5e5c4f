#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/: clang, ASan + UBSan) into build-fuzz/ and runs each one for
# SECONDS (default 60) from its seeds (fuzz/make_seeds.cpp, the repository's plans, profiles and
# references, and fuzz/regressions/) plus the corpus kept in build-fuzz/corpus/. Stops at the first
# crash, leak or sanitizer report: the input is left in build-fuzz/artifacts/, the log in
# build-fuzz/logs/. Prints each target's executions. With SEATMARK_FUZZ_RUNS=N a target also stops
# after N executions (the issue's "10 million executions or 30 minutes": SEATMARK_FUZZ_RUNS=10000000
# scripts/fuzz.sh 1800).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 600 fuzz_wire
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_wire fuzz_plan fuzz_profile fuzz_references fuzz_live_json fuzz_store fuzz_http_request
           fuzz_listen_address fuzz_pack_reader fuzz_peer_input)
fi
B=${SEATMARK_FUZZ_BUILD:-build-fuzz}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$B/build.ninja" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
        -DSEATMARK_FUZZ=ON "${launcher[@]}" >/dev/null
fi
cmake --build "$B" --target fuzz_all -j "$(nproc)"

seeds="$B/seeds"
rm -rf "$seeds"
"$B/fuzz/fuzz_make_seeds" "$seeds"
mkdir -p "$seeds/plan" "$seeds/profile" "$seeds/references"
cp workloads/plans/*.toml "$seeds/plan/"
cp workloads/profiles/*.toml "$seeds/profile/"
cp report/examples/references.toml "$seeds/references/"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$B/logs" "$B/artifacts"
failed=0
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  corpus="$B/corpus/$name"
  mkdir -p "$corpus" "$seeds/$name"  # targets whose seeds are all in fuzz/regressions/
  dirs=("$corpus" "$seeds/$name")
  [ -d "fuzz/regressions/$name" ] && dirs+=("fuzz/regressions/$name")
  max_len=()
  [ -n "${SEATMARK_FUZZ_RUNS:-}" ] && max_len+=(-runs="$SEATMARK_FUZZ_RUNS")
  [ "$name" = store ] && max_len+=(-max_len=1048576)  # whole database files
  set +e
  start=$SECONDS
  "$B/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${max_len[@]}" \
    -artifact_prefix="$B/artifacts/$name-" "${dirs[@]}" >"$B/logs/$name.log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$B/logs/$name.log" | grep -o '[0-9]*$' || true)
  if [ $rc -eq 0 ]; then
    echo "fuzz: $t: ${execs:-?} executions in $((SECONDS - start)) s, no findings"
  else
    failed=1
    echo "fuzz: $t: FAILED (exit $rc) after ${execs:-?} executions; see $B/logs/$name.log and $B/artifacts/" >&2
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$B/logs/$name.log" | head -5 >&2 || true
  fi
done
exit $failed
