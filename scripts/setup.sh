#!/usr/bin/env bash
# Installs everything stnc needs on a fresh Debian 12 machine. Idempotent: re-running installs
# only what is missing. Run as root (or with sudo available).
set -euo pipefail
pkgs=(antlr4 libantlr4-runtime-dev uuid-dev libcli11-dev nlohmann-json3-dev doctest-dev
      libopenmpi-dev openmpi-bin ninja-build cmake g++ make python3 libpng-dev
      clang libclang-rt-14-dev)  # clang: the libFuzzer target over the frontend (tests/fuzz)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [[ $(id -u) != 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "setup: all packages present"
fi
if ! python3 -c 'import numpy' 2>/dev/null; then
  echo "setup: numpy not found (optional: used only by a few sample checks)"
fi
if [[ -x /usr/local/cuda/bin/nvcc ]]; then echo "setup: nvcc found at /usr/local/cuda/bin/nvcc"; else echo "setup: no CUDA toolkit (CUDA targets are generated but not compiled)"; fi
