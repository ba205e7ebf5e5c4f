#!/usr/bin/env bash
# Configures and builds seatmark into build/ (Release with debug info).
# Usage: scripts/build.sh             everything: the product, its tests and benchmarks (scripts/test.sh)
#        scripts/build.sh --product   only the product's targets (scripts/quickstart.sh): seatmark,
#                                     seatmark-session, seatmark-launch, the CAD mesher, the SQLite extension
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
launcher=()
# ccache only speeds rebuilds (several worktrees share one cache); the build never needs it.
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
case "${1:-}" in
  --product) tests=OFF; targets=(--target seatmark seatmark_sqlite) ;;
  "") tests=ON; targets=() ;;
  *) echo "usage: scripts/build.sh [--product]" >&2; exit 2 ;;
esac
# A product-only build folder (tests OFF) is configured again with tests when the tests need it;
# a full one serves the product as it is.
cached=$(sed -n 's/^SEATMARK_BUILD_TESTS:BOOL=//p' build/CMakeCache.txt 2>/dev/null || true)
if [ ! -f build/build.ninja ] || { [ "$tests" = ON ] && [ "$cached" = OFF ]; }; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEATMARK_BUILD_TESTS="$tests" "${launcher[@]}"
fi
cmake --build build -j "$jobs" "${targets[@]}"
