#!/usr/bin/env bash
# Builds the whole tree with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ (its own
# folder: the normal build is untouched) and runs the test suite there. Every seatmark process the
# tests start is instrumented too, so a report in a child fails the test that started it.
# Leaks inside the system's graphics stack (Mesa, the Vulkan loader and layers, fontconfig), which
# are not built with the sanitizers, are suppressed by scripts/lsan.supp; seatmark's own are not.
# In this build no library is ever unloaded (cmake/keep_loaded.c), so a leak report names the
# library it lies in.
# The whole tree under ASan is long on 2 cores (~245 translation units); --only builds just the
# named test folders and the libraries they link (not the seatmark binary: give only folders whose
# tests do not run it, e.g. common,core,store,workloads) into build-asan-only/, and runs them.
# Usage: scripts/sanitize.sh [--only FOLDER,...] [ctest arguments]
#        e.g. scripts/sanitize.sh -R 'store/|common/'     scripts/sanitize.sh --only common,core,store,workloads
set -euo pipefail
cd "$(dirname "$0")/.."
B=${SEATMARK_ASAN_BUILD:-build-asan}
only=()
if [ "${1:-}" = --only ]; then
  IFS=, read -r -a only <<<"${2:?--only needs folders, e.g. common,core}"
  shift 2
  B=${SEATMARK_ASAN_BUILD:-build-asan-only}
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
extra=()
[ ${#only[@]} -gt 0 ] && extra=(-DSEATMARK_TESTS_WITHOUT_BINARY=ON)
if [ ! -f "$B/build.ninja" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEATMARK_SANITIZE=ON "${extra[@]}" "${launcher[@]}" >/dev/null
fi
if [ ${#only[@]} -gt 0 ]; then
  targets=()
  regex=""
  for f in "${only[@]}"; do targets+=("test_$f"); regex+="${regex:+|}^$f/"; done
  cmake --build "$B" -j "$(nproc)" --target "${targets[@]}"
  set -- -R "$regex" "$@"
else
  cmake --build "$B" -j "$(nproc)"
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
# The fast (frame-pointer) unwinder records allocations: the full one (fast_unwind_on_malloc=0)
# deadlocks lavapipe, whose LLVM JIT registers its code's unwind tables while libgcc holds its FDE
# lock, and the malloc inside then unwinds into that lock (lavapipe tests hung until their 600 s timeout).
# Open MPI's asprintf leaks, whose stacks the fast unwinder cannot follow past libc, are matched
# by scripts/lsan.supp's __vasprintf_internal instead.
if git grep -nE '\bv?asprintf\s*\(' -- '*.c' '*.cpp' '*.h' ':!scripts' >&2; then
  echo "sanitize.sh: seatmark's own code calls asprintf above, and scripts/lsan.supp hides every leak" \
    "through __vasprintf_internal: free it or narrow that suppression" >&2
  exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=0:strict_string_checks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Sanitized processes are slower: the per-test timeout (600 s) still holds; run fewer at once.
ctest --test-dir "$B" --output-on-failure -j "$(nproc)" "$@"
