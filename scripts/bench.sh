#!/usr/bin/env bash
# Builds and runs every benchmark in bench/; each prints its ratio against a
# peer or a limit measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
for b in build/bench/*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" "$@"
done
