#!/usr/bin/env bash
# Makes (once) and checks a 64-bit Wine prefix in which seatmark.exe renders with Vulkan.
# Usage: scripts/wine-prefix.sh PREFIX_DIR      (the Wine tests use build/wine-prefix)
#
# How a Windows program gets Vulkan under Debian's Wine (wine64 8.0): wineboot copies Wine's
# own vulkan-1.dll (the loader a Windows program links against) and winevulkan.dll into
# C:\windows\system32 and registers winevulkan.json as the Vulkan ICD under
# HKLM\Software\Khronos\Vulkan\Drivers. winevulkan forwards every call to the host's
# libvulkan.so.1 (libvulkan1), which finds Mesa's lavapipe (mesa-vulkan-drivers). Vulkan
# surfaces and instances need an X display: without one vkCreateInstance fails with
# VK_ERROR_INITIALIZATION_FAILED (-3), so Wine programs here run under xvfb-run.
set -euo pipefail
prefix=${1:?usage: scripts/wine-prefix.sh PREFIX_DIR}
wine=$(command -v wine64 || true)
[ -n "$wine" ] || wine=/usr/lib/wine/wine64   # Debian's wine64 package installs it here
if [ ! -x "$wine" ]; then
  echo "wine-prefix: no wine64; run scripts/deps.sh (Debian packages wine64, libwine)" >&2
  exit 1
fi
export WINEPREFIX=$prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono/Gecko install prompts
if [ ! -f "$prefix/system.reg" ]; then
  mkdir -p "$prefix"
  "$wine" wineboot --init >/dev/null 2>&1
  "$(dirname "$wine")/wineserver" -w 2>/dev/null || true   # the prefix is written out when the server ends
fi
sys32=$prefix/drive_c/windows/system32
for f in vulkan-1.dll winevulkan.dll; do
  [ -f "$sys32/$f" ] || { echo "wine-prefix: $sys32/$f is missing (wine64 without Vulkan?)" >&2; exit 1; }
done
if ! ls /usr/lib/x86_64-linux-gnu/libvulkan.so.1 >/dev/null 2>&1; then
  echo "wine-prefix: the host's Vulkan loader libvulkan.so.1 is missing (Debian: libvulkan1)" >&2; exit 1
fi
if ! ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1; then
  echo "wine-prefix: no lavapipe ICD in /usr/share/vulkan/icd.d (Debian: mesa-vulkan-drivers)" >&2; exit 1
fi
echo "wine-prefix: $prefix ready ($("$wine" --version 2>/dev/null), vulkan-1.dll -> winevulkan -> host lavapipe)"
