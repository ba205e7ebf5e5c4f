#!/usr/bin/env bash
# Installs only what the product needs, builds only the product, renders one short synthetic CAD
# session (summary, frame CSV, screenshot), then runs the demo density test on this machine,
# prints its per-step table and writes its report. Prints how long each phase took.
# The tests' packages and targets are scripts/test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-quickstart-out}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

phases=()
t_all=$SECONDS
phase() {  # phase NAME COMMAND...: runs it and notes its time
  local name=$1 t=$SECONDS; shift
  "$@"
  phases+=("$(printf '%-32s %4d s' "$name" $((SECONDS - t)))")
}
session() {
  ./build/seatmark session --workload ci-tiny --duration 10s \
    --out "$out/frames.csv" --screenshot "$out/screenshot.png"
}

echo "== installing what seatmark needs (Debian packages; the tests' own come with scripts/test.sh)"
phase "install packages" scripts/deps.sh --product
echo "== building seatmark (the product's targets only)"
phase "build" scripts/build.sh --product
mkdir -p "$out"
echo
echo "== one synthetic CAD user (10 s)"
phase "one session" session
echo
echo "== the demo density test: 1, 2, 4, 6, 8 sessions (about two minutes)"
phase "demo density test" ./build/seatmark demo --out "$out/demo"

echo
echo "seatmark: session frames in $out/frames.csv, screenshot in $out/screenshot.png"
echo "seatmark: demo database in $out/demo/run.db, session logs in $out/demo/run.db.logs/"
echo "seatmark: demo report in $out/demo/report/index.html (open it in a browser; summary.md for text)"
echo
echo "quick start took $((SECONDS - t_all)) s:"
printf '  %s\n' "${phases[@]}"
