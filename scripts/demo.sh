#!/usr/bin/env bash
# The main job, from a fresh clone on Debian 12: install what is missing, build stnc, compile the
# heat-equation sample (samples/heat) with it, check it against its analytic solution and run it
# on the CPU — and on the GPU when `nvidia-smi` answers and nvcc exists. Prints every step and a
# summary (what ran, sizes, times, where the PNG images are).
#
#   ./scripts/demo.sh
#
# Environment: STNC_BUILD_DIR (default build/), JOBS (parallel build jobs, default nproc),
# CPU_ARGS / GPU_ARGS (arguments of the sample's timed runs; see samples/heat/main.cpp),
# DEMO_GPU=0 to skip the GPU part.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STNC_BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
out=$build/samples/heat          # the sample's build directory (make O=...): nothing in the source tree
cpu_args=${CPU_ARGS:---dim 3 --n 128 --steps 200}
gpu_args=${GPU_ARGS:---dim 3 --n 512 --steps 1000}
start=$SECONDS
summary=()

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
run() {
  printf '+ %s\n' "$*"
  "$@"
}
# Runs a command, shows and keeps its output, and records "label | size | time | png" for the summary.
run_sample() {
  local label=$1 png=$2 log
  shift 2
  log=$(mktemp)
  printf '+ %s\n' "$*"
  "$@" 2>&1 | tee "$log"
  local size time
  size=$(sed -n 's/^heat: \([23]-D, [^,]*\), \([0-9]* steps\).*/\1, \2/p' "$log" | head -n1)
  time=$(sed -n 's/^heat: \([0-9.]* s\), \([0-9.]* Mpoint-updates\/s\).*/\1 (\2)/p' "$log" | head -n1)
  summary+=("$label|$size|$time|$png")
  rm -f "$log"
}

step "1/6 dependencies (scripts/setup.sh)"
run "$root/scripts/setup.sh"

step "2/6 configure and build stnc (Release) in $build"
t0=$SECONDS
run cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
run cmake --build "$build" -j "$jobs" --target stnc
stnc=$build/stnc
run "$stnc" --version
summary+=("build stnc ($("$stnc" --version))|Release, $jobs jobs|$((SECONDS - t0)) s|$stnc")

step "3/6 compile samples/heat with stnc (heat.stn -> heat.h, heat.cpp, heat.cu) and g++ (OpenMP)"
t0=$SECONDS
run make -C "$root/samples/heat" -j "$jobs" STNC="$stnc" O="$out"
summary+=("compile samples/heat (stnc + g++ -O3 -fopenmp)|heat2d, heat3d|$((SECONDS - t0)) s|$out/cpu/heat")
echo "generated sources: $out/gen/ (heat.h heat.cpp heat.cu heat.json)"

step "4/6 CPU: convergence check against the analytic solution (make check)"
t0=$SECONDS
run make -C "$root/samples/heat" --no-print-directory STNC="$stnc" O="$out" check
summary+=("CPU check: order ~2 at 3 resolutions|2-D 64..256^2, 3-D 16..64^3|$((SECONDS - t0)) s total|$out/cpu/check-2d.png, check-3d.png")

step "5/6 CPU: one timed run"
run_sample "CPU run" "$out/cpu/heat.png" "$out/cpu/heat" $cpu_args --png "$out/cpu/heat.png"

step "6/6 GPU"
nvcc=$(command -v nvcc || true)
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ ${DEMO_GPU:-1} == 0 ]]; then
  echo "skipped (DEMO_GPU=0)"
  summary+=("GPU|skipped (DEMO_GPU=0)||")
elif ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: nvidia-smi finds no GPU"
  summary+=("GPU|skipped: no GPU (nvidia-smi)||")
elif [[ -z $nvcc ]]; then
  echo "skipped: a GPU is present but nvcc was not found (install the CUDA toolkit)"
  summary+=("GPU|skipped: no nvcc||")
else
  run nvidia-smi -L
  t0=$SECONDS
  run make -C "$root/samples/heat" -j "$jobs" STNC="$stnc" O="$out" GPU=1 NVCC="$nvcc"
  summary+=("compile samples/heat GPU=1 (nvcc -arch=sm_90)|heat2d, heat3d|$((SECONDS - t0)) s|$out/gpu/heat")
  t0=$SECONDS
  run make -C "$root/samples/heat" --no-print-directory STNC="$stnc" O="$out" GPU=1 NVCC="$nvcc" check
  summary+=("GPU check: order ~2, CUDA == CPU bitwise|2-D 64..256^2, 3-D 16..64^3|$((SECONDS - t0)) s total|$out/gpu/check-2d.png, check-3d.png")
  run_sample "GPU run" "$out/gpu/heat.png" "$out/gpu/heat" $gpu_args --png "$out/gpu/heat.png"
fi

step "summary ($((SECONDS - start)) s)"
for line in "${summary[@]}"; do
  IFS='|' read -r what size time png <<<"$line"
  printf '  %-46s %-32s %-32s %s\n' "$what" "$size" "$time" "$png"
done
echo
echo "demo finished: the sample's sources are in samples/heat/, its build in $out"
