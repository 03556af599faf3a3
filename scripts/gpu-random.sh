#!/usr/bin/env bash
# GPU random campaign: >= 1000 generated programs (tests/random), CUDA backend vs CPU backend under
# every schedule candidate, bit for bit where no libm function is involved. Results in
# $OUT/random-campaign.md (+ .json, .log, repro/). Details: scripts/gpu/README.md.
#
#   STNC=build-static/stnc bash scripts/gpu-random.sh [--count N] [--seed S] [--dry-run] [...]
#
# STNC   the stnc binary (default build-static/stnc; a static build travels to the device machine)
# OUT    where results go (default ./build-gpu-random, git-ignored)
# The generator is built here from tests/random/Gen.cpp + GenMain.cpp with g++ (or pass --gen).
# Other options: python3 scripts/gpu/random_campaign.py --help. Exit status 0 only if every
# comparison passed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2

stnc=${STNC:-build-static/stnc}
if [[ ! -f $stnc ]]; then
  echo "gpu-random: error: no stnc binary at '$stnc' (build: cmake -S . -B build-static -G Ninja -DSTNC_STATIC=ON" \
       "-DCMAKE_BUILD_TYPE=Release && ninja -C build-static stnc; carry build-static/stnc; or set STNC)" >&2
  exit 2
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/stnc-gpu-random.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
if [[ ! -x $stnc ]]; then  # a carried file may lose its mode bits
  cp "$stnc" "$scratch/stnc" && chmod +x "$scratch/stnc" && stnc=$scratch/stnc
fi
if ! ver=$("$stnc" --version 2>&1); then
  echo "gpu-random: error: '$stnc' does not run on this machine: $ver" >&2
  exit 2
fi
export STNC_STDLIB=${STNC_STDLIB:-$root/stdlib}  # the binary's built-in path is this machine's
if [[ -z ${CXX:-} ]] && ! command -v c++ >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then export CXX=g++; fi
if [[ -z ${NVCC:-} ]] && ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
py=$(command -v python3 || command -v python) || { echo "gpu-random: error: python3 not found" >&2; exit 2; }
export PYTHONUNBUFFERED=1
export GPU_RANDOM_CMD="STNC=${STNC:-build-static/stnc} bash scripts/gpu-random.sh $*"
echo "== stnc gpu-random: $(date -Is) on $(hostname)"
"$py" "$root/scripts/gpu/random_campaign.py" --root "$root" --stnc "$stnc" --out "${OUT:-$root/build-gpu-random}" \
  --work "$scratch/work" "$@"
