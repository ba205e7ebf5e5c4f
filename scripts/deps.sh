#!/usr/bin/env bash
# Installs the Debian 12 packages seatmark builds and tests with, when missing.
# Usage: scripts/deps.sh            (build + test dependencies)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libxxhash-dev libpng-dev
  libsqlite3-dev sqlite3 doctest-dev libglfw3-dev libglm-dev
  libboost1.81-dev libboost-filesystem1.81-dev libboost-json1.81-dev
  libimgui-dev libgl-dev libegl-dev libgl1-mesa-dri libglx-mesa0 libegl-mesa0 fonts-dejavu-core
  xvfb xauth
  libopenmpi-dev openmpi-bin
  slurmd slurmctld slurm-client munge   # the one-node Slurm cluster of the srun test (tests/support/slurm_cluster.sh)
  chromium
  libtinygltf-dev libtinyobjloader-dev assimp-testmodels assimp-utils
  libocct-foundation-dev libocct-modeling-data-dev libocct-modeling-algorithms-dev libocct-ocaf-dev libocct-data-exchange-dev libocct-visualization-dev libtbb-dev
  clang libclang-rt-dev
  g++-mingw-w64-x86-64-posix wine64 libwine libstb-dev
  libssl-dev
  xrdp xorgxrdp freerdp2-dev openssl
  libeigen3-dev
)

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
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
