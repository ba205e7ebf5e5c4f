#!/usr/bin/env bash
# Installs the Debian 12 packages seatmark builds and tests with, when missing.
# Usage: scripts/deps.sh             what the product and its tests need (scripts/test.sh)
#        scripts/deps.sh --product   only what the product builds and runs with (scripts/quickstart.sh)
set -euo pipefail

# What `seatmark`, `seatmark-session`, `seatmark-launch`, the CAD mesher and the SQLite extension
# build and run with (a demo on lavapipe included).
product=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev glslc mesa-vulkan-drivers
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libxxhash-dev libpng-dev
  libsqlite3-dev libglfw3-dev libglm-dev
  libboost1.81-dev libboost-filesystem1.81-dev libboost-json1.81-dev
  libimgui-dev libgl-dev libegl-dev libgl1-mesa-dri libglx-mesa0 libegl-mesa0 fonts-dejavu-core
  libopenmpi-dev openmpi-bin
  libtinygltf-dev libtinyobjloader-dev
  libocct-foundation-dev libocct-modeling-data-dev libocct-modeling-algorithms-dev libocct-ocaf-dev libocct-data-exchange-dev libocct-visualization-dev libtbb-dev
  libssl-dev freerdp2-dev
  libeigen3-dev
)
# What only the tests, the fuzzers and the Windows build need. Some of these are daemons (xrdp,
# slurmd, munge): their install does not start them (policy-rc.d below); the tests start their own.
tests=(
  doctest-dev vulkan-validationlayers vulkan-tools sqlite3 python3
  influxdb   # the push test starts its own influxd on loopback (tests/push/)
  xvfb xauth
  slurmd slurmctld slurm-client munge   # the one-node Slurm cluster of the srun test (tests/support/slurm_cluster.sh)
  chromium
  assimp-testmodels assimp-utils
  clang libclang-rt-dev
  g++-mingw-w64-x86-64-posix wine64 libwine libstb-dev
  xrdp xorgxrdp openssl
)

packages=("${product[@]}")
case "${1:-}" in
  --product) ;;
  "") packages+=("${tests[@]}") ;;
  *) echo "usage: scripts/deps.sh [--product]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "seatmark: installing ${#missing[@]} missing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "seatmark: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
# No service starts from this install (Debian's invoke-rc.d asks policy-rc.d; 101 = "not allowed"):
# nobody should get a running RDP server or Slurm daemon from installing build and test tools.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
  $SUDO chmod 755 "$policy"
  trap '$SUDO rm -f "$policy"' EXIT
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
