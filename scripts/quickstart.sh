#!/usr/bin/env bash
# Installs what is missing, builds, renders one short synthetic CAD session
# (summary, frame CSV, screenshot), then runs the demo density test on this
# machine, prints its per-step table and writes its report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
out=${1:-quickstart-out}
mkdir -p "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

echo "== one synthetic CAD user (10 s)"
./build/seatmark session --workload ci-tiny --duration 10s \
  --out "$out/frames.csv" --screenshot "$out/screenshot.png"

echo
echo "== the demo density test: 1, 2, 4, 6, 8 sessions (about two minutes)"
./build/seatmark demo --out "$out/demo"

echo
echo "seatmark: session frames in $out/frames.csv, screenshot in $out/screenshot.png"
echo "seatmark: demo database in $out/demo/run.db, session logs in $out/demo/run.db.logs/"
echo "seatmark: demo report in $out/demo/report/index.html (open it in a browser; summary.md for text)"
