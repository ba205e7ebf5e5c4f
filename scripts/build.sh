#!/usr/bin/env bash
# Configures and builds seatmark into build/ (Release with debug info).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
launcher=()
# ccache only speeds rebuilds (several worktrees share one cache); the build never needs it.
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}"
fi
cmake --build build -j "$jobs"
