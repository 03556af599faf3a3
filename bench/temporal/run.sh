#!/usr/bin/env bash
# Temporal blocking experiment (issue 8): builds bench/temporal/temporal_star7.cu against the
# stnc-generated star7_rt kernel and prints, per grid, two stnc sweeps vs fused two-step kernels.
#   STNC=build-static/stnc bash bench/temporal/run.sh [N ...]      (default: 256 512)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" temporal  # root, stnc, work, nvcc
"$stnc" "$root/bench/workloads/star7_rt.stn" -o "$work" ${STNC_FLAGS:-}
# -fmad=false on both: the fused kernel evaluates the generated expression bit for bit.
"$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -I "$work" -I "$root/bench/common" \
  "$root/bench/temporal/temporal_star7.cu" "$work/star7_rt.cu" -o "$work/temporal_star7"
# The generated step loop with and without temporal blocking (bench/temporal/step7.stn).
for t in off on; do
  mkdir -p "$work/$t"
  "$stnc" "$root/bench/temporal/step7.stn" -o "$work/$t" --temporal=$t ${STNC_FLAGS:-}
  "$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -I "$work/$t" \
    "$root/bench/temporal/temporal_step.cu" "$work/$t/step7.cu" -o "$work/step_$t"
done
[[ ${BUILD_ONLY:-0} == 1 ]] && { echo "built $work/temporal_star7 $work/step_off $work/step_on"; exit 0; }
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(256 512)
echo "# Temporal blocking, star7 f64 (bench/temporal/run.sh), $(date -Is)"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader || true
rc=0
for n in "${sizes[@]}"; do
  echo
  "$work/temporal_star7" "$n" 30 || rc=1
done
echo
echo "## cuda::step of bench/temporal/step7.stn: --temporal=off vs --temporal=on (ms per step, median of 5 x step(100))"
"$work/step_off" "${sizes[@]}" > "$work/off.txt" || rc=1
"$work/step_on" "${sizes[@]}" > "$work/on.txt" || rc=1
echo '| grid | off ms/step | on ms/step | speed-up |'
echo '|---|---:|---:|---:|'
paste -d' ' <(grep '^STEP' "$work/off.txt") <(grep '^STEP' "$work/on.txt") | \
  awk '{split($2,n,"="); split($3,a,"="); split($7,b,"="); printf "| %s^3 | %.4f | %.4f | %.2f |\n", n[2], a[2], b[2], a[2]/b[2]}'
if [[ "$(grep '^HASH' "$work/off.txt")" == "$(grep '^HASH' "$work/on.txt")" ]]; then
  echo; echo "bit-identical after 10 steps on 61x37x45 (u and v interiors): $(grep '^HASH' "$work/on.txt")"
else
  echo; echo "**MISMATCH**: off $(grep '^HASH' "$work/off.txt") vs on $(grep '^HASH' "$work/on.txt")"; rc=1
fi
exit $rc
