#!/usr/bin/env bash
# Shared-memory plane pipeline experiment (issues 6 and 8): builds bench/smem/acoustic_smem.cu against
# the stnc-generated acoustic_c kernel, checks a small odd grid under compute-sanitizer memcheck, then
# times every variant at N^3 (default 800).
#   STNC=build-static/stnc bash bench/smem/run.sh [N]
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" smem  # root, stnc, work, nvcc
"$stnc" "$root/bench/workloads/acoustic_c.stn" -o "$work" --fp-contract=on ${STNC_FLAGS:-}
"$nvcc" -O3 -std=c++17 -arch=sm_90 -Werror all-warnings -Xptxas -v -I "$work" -I "$root/bench/common" \
  "$root/bench/smem/acoustic_smem.cu" "$work/acoustic_c.cu" -o "$work/acoustic_smem" 2>&1 | grep -E "registers|spill" | sed -n '1,40p'
[[ ${BUILD_ONLY:-0} == 1 ]] && exit 0
n=${1:-800}
echo "# shared-memory planes vs generated stream kernel, acoustic_c f32 (bench/smem/run.sh), $(date -Is)"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader || true
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [[ -x $san ]]; then
  "$san" --tool memcheck --print-limit 5 "$work/acoustic_smem" 70 1 > "$work/memcheck.txt" 2>&1 && echo "memcheck 70^3: clean" ||
    { echo "memcheck 70^3: FAILED"; tail -30 "$work/memcheck.txt"; }
fi
"$work/acoustic_smem" "$n" 20
