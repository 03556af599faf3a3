#!/usr/bin/env bash
# CUDA backend validation on a GPU machine: CPU vs CUDA outputs of every test stencil, a poison
# run, compute-sanitizer memcheck/racecheck; results in $OUT/gpu-check.md (+ .json, logs).
#
#   STNC=build-static/stnc bash scripts/gpu-check.sh [--dry-run] [--quick] [FILE.stn ...]
#
# STNC   the stnc binary (default build-static/stnc; a static build travels to the device machine)
# OUT    where results go (default ./build-gpu-check, git-ignored)
# Other options: bash scripts/gpu-check.sh --help. Exit status 0 only if every case passed and the
# sanitizers were clean. Details: scripts/gpu/README.md.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2

stnc=${STNC:-build-static/stnc}
if [[ ! -f $stnc ]]; then
  echo "gpu-check: error: no stnc binary at '$stnc' (build: cmake -S . -B build-static -G Ninja -DSTNC_STATIC=ON" \
       "-DCMAKE_BUILD_TYPE=Release && cmake --build build-static; carry build-static/stnc; or set STNC)" >&2
  exit 2
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/stnc-gpu-check.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
if [[ ! -x $stnc ]]; then  # a carried file may lose its mode bits
  cp "$stnc" "$scratch/stnc" && chmod +x "$scratch/stnc" && stnc=$scratch/stnc
fi

if ! ver=$("$stnc" --version 2>&1); then
  echo "gpu-check: error: '$stnc' does not run on this machine: $ver" >&2
  echo "gpu-check: (the static build needs glibc >= 2.36 here; this machine has: $(ldd --version 2>&1 | head -n 1))" >&2
  exit 2
fi
export STNC_STDLIB=${STNC_STDLIB:-$root/stdlib}       # the binary's built-in path is this machine's
export STNC_CACHE_DIR=$scratch/cache                  # the harness sets one per file below this
if [[ -z ${CXX:-} ]] && ! command -v c++ >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then export CXX=g++; fi
if [[ -z ${NVCC:-} ]] && ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
py=$(command -v python3 || command -v python) || { echo "gpu-check: error: python3 not found" >&2; exit 2; }
export PYTHONUNBUFFERED=1
export GPU_CHECK_CMD="STNC=${STNC:-build-static/stnc} bash scripts/gpu-check.sh $*"

echo "== stnc gpu-check: $(date -Is) on $(hostname)"
echo "-- nvidia-smi -L"; nvidia-smi -L 2>&1 || echo "(nvidia-smi unavailable)"
echo "-- driver"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "(unavailable)"
echo "-- nvcc"; { ${NVCC:-nvcc} --version 2>&1 || echo "(nvcc unavailable)"; } | tail -n 2

"$py" "$root/scripts/gpu/gpu_check.py" --root "$root" --stnc "$stnc" --out "${OUT:-$root/build-gpu-check}" \
  --work "$scratch/work" "$@"
