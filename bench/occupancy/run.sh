#!/usr/bin/env bash
# bench/occupancy/run.sh [WORKLOAD ...]: resident blocks per SM of each suite workload's main kernel
# (sweepPart or sf) as the CUDA runtime computes them for its block and dynamic shared memory
# (cudaOccupancyMaxActiveBlocksPerMultiprocessor), next to its registers. Needs a GPU.
#   STNC=build-static/stnc STNC_FLAGS="--fp-contract=on --factor-sums=on" bash bench/occupancy/run.sh star7_c star25_rt
# BUILD_ONLY=1 (CI, tests/bench): build the probe of star25_c (or the named workloads) without running it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STNC=${STNC:-$ROOT/build/stnc}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
if [[ -z ${WORK:-} ]]; then WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
read -r -a flags <<< "${STNC_FLAGS:---fp-contract=on --factor-sums=on}"
[[ $# -gt 0 || ${BUILD_ONLY:-0} != 1 ]] || set -- star25_c
[[ $# -gt 0 ]] || set -- star7_c star13_c star19_c star25_c star25_rt cond_c iso3dfd_c box27_c box27_rt box125_c box125_rt hypterm_c
printf '| workload | kernel | threads | dynamic smem B | registers | blocks per SM |\n|---|---|---:|---:|---:|---:|\n'
for w in "$@"; do
  "$STNC" "$ROOT/bench/workloads/$w.stn" "${flags[@]}" --target cuda -o "$WORK/$w" > /dev/null
  cu="$WORK/$w/$w.cu"
  for k in sweepPart_sf sweepPart; do
    grep -q "^    __global__ void __launch_bounds__([^)]*) $k(" "$cu" || continue
    line=$(grep -m1 "$k<<<grid_, block_, [0-9]*" "$cu" || true)
    bytes=$(sed -n 's/.*<<<grid_, block_, \([0-9]*\),.*/\1/p' <<< "$line"); bytes=${bytes:-0}
    threads=$(grep -m1 -o 'constexpr int kBlockX = [0-9]*' "$cu" | grep -o '[0-9]*$')
    threads=$((threads * $(grep -m1 -o 'constexpr int kBlockY = [0-9]*' "$cu" | grep -o '[0-9]*$')))
    cat "$cu" > "$WORK/$w/probe.cu"
    cat >> "$WORK/$w/probe.cu" <<CPP
#include <cstdio>
int main() {
  int n = 0; cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, stn::$w::$k);
  if ($bytes > 48 * 1024) cudaFuncSetAttribute(stn::$w::$k, cudaFuncAttributeMaxDynamicSharedMemorySize, $bytes);
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, stn::$w::$k, $threads, $bytes);
  std::printf("| $w | $k | $threads | $bytes | %d | %d%s |\n", a.numRegs, n, e == cudaSuccess ? "" : " (error)");
}
CPP
    "$NVCC" -arch=sm_90 -O3 -std=c++17 -Werror all-warnings -I"$WORK/$w" -o "$WORK/$w/probe" "$WORK/$w/probe.cu"
    [[ ${BUILD_ONLY:-0} == 1 ]] || "$WORK/$w/probe"
    break
  done
done
