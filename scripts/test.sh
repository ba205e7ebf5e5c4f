#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and integration,
# real Vulkan on lavapipe with the validation layer).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
# Tests render on whatever Vulkan device exists; on CI that is lavapipe.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
