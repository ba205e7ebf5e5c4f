#!/usr/bin/env bash
# Installs what is missing, builds, and renders one short synthetic CAD session,
# printing its summary, frame CSV and screenshot.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
out=${1:-quickstart-out}
mkdir -p "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
./build/seatmark session --workload ci-tiny --duration 10s \
  --out "$out/frames.csv" --screenshot "$out/screenshot.png"
echo
echo "seatmark: frames in $out/frames.csv, screenshot in $out/screenshot.png"
