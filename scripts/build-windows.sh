#!/usr/bin/env bash
# Cross-compiles seatmark.exe for Windows x64 (MinGW-w64, cmake/mingw-w64-x86_64.cmake) into
# build-windows/ and packs build-windows/seatmark-windows-x64.zip (seatmark.exe, README.txt)
# for copying to a Windows host. Needs scripts/deps.sh's packages (mingw-w64, glslc, headers).
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
if [ ! -f build-windows/build.ninja ]; then
  cmake -S . -B build-windows -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-w64-x86_64.cmake" "${launcher[@]}"
fi
cmake --build build-windows -j "$(nproc)"
# The zip a user copies to a host: the exe and the Windows page as README.txt (CRLF for Notepad).
stage=build-windows/dist/seatmark-windows-x64
rm -rf build-windows/dist && mkdir -p "$stage"
cp build-windows/seatmark.exe "$stage/"
sed 's/$/\r/' docs/windows.md > "$stage/README.txt"
(cd build-windows/dist && cmake -E tar cf ../seatmark-windows-x64.zip --format=zip seatmark-windows-x64)
echo "seatmark: build-windows/seatmark-windows-x64.zip ($(du -h build-windows/seatmark-windows-x64.zip | cut -f1): seatmark.exe, README.txt)"
