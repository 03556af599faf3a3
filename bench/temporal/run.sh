#!/usr/bin/env bash
# Temporal blocking experiment (issue 8): builds bench/temporal/temporal_star7.cu against the
# stnc-generated star7_rt kernel and prints, per grid, two stnc sweeps vs fused two-step kernels.
#   STNC=build-static/stnc bash bench/temporal/run.sh [N ...]      (default: 256 512)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" temporal  # root, stnc, work, nvcc
# table OFF ON: the step loops' ms per step side by side
table() {
  echo '| grid | off ms/step | on ms/step | speed-up |'
  echo '|---|---:|---:|---:|'
  paste -d' ' <(grep '^STEP' "$1") <(grep '^STEP' "$2") | \
    awk '{split($2,n,"="); split($3,a,"="); split($7,b,"="); printf "| %s^3 | %.4f | %.4f | %.2f |\n", n[2], a[2], b[2], a[2]/b[2]}'
}
"$stnc" "$root/bench/workloads/star7_rt.stn" -o "$work" ${STNC_FLAGS:-}
# -fmad=false on both: the fused kernel evaluates the generated expression bit for bit.
"$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -I "$work" -I "$root/bench/common" \
  "$root/bench/temporal/temporal_star7.cu" "$work/star7_rt.cu" -o "$work/temporal_star7"
# The generated step loop with and without temporal blocking (bench/temporal/step7.stn).
for t in off on; do
  mkdir -p "$work/$t"
  "$stnc" "$root/bench/temporal/step7.stn" -o "$work/$t" --temporal=$t ${STNC_FLAGS:-}
  "$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -I "$work/$t" -I "$root/bench/common" \
    "$root/bench/temporal/temporal_step.cu" "$work/$t/step7.cu" -o "$work/step_$t"
done
# The same for the f32 twin (bench/temporal/step7f.stn), timed on F32_SIZES (default: 512 800 1024).
for t in off on; do
  mkdir -p "$work/f$t"
  "$stnc" "$root/bench/temporal/step7f.stn" -o "$work/f$t" --temporal=$t ${STNC_FLAGS:-}
  "$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -DSTEP7_F32 -I "$work/f$t" -I "$root/bench/common" \
    "$root/bench/temporal/temporal_step.cu" "$work/f$t/step7f.cu" -o "$work/fstep_$t"
done
[[ ${BUILD_ONLY:-0} == 1 ]] && { echo "built $work/temporal_star7 $work/step_off $work/step_on $work/fstep_off $work/fstep_on"; exit 0; }
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
table "$work/off.txt" "$work/on.txt"
echo
echo "## the same, f32 (bench/temporal/step7f.stn)"
"$work/fstep_off" ${F32_SIZES:-512 800 1024} > "$work/foff.txt" || rc=1
"$work/fstep_on" ${F32_SIZES:-512 800 1024} > "$work/fon.txt" || rc=1
table "$work/foff.txt" "$work/fon.txt"
[[ "$(grep '^HASH' "$work/foff.txt")" == "$(grep '^HASH' "$work/fon.txt")" ]] || { echo "**MISMATCH** (f32)"; rc=1; }
if [[ "$(grep '^HASH' "$work/off.txt")" == "$(grep '^HASH' "$work/on.txt")" ]]; then
  echo; echo "bit-identical after 10 steps on 61x37x45 (u and v interiors): $(grep '^HASH' "$work/on.txt")"
else
  echo; echo "**MISMATCH**: off $(grep '^HASH' "$work/off.txt") vs on $(grep '^HASH' "$work/on.txt")"; rc=1
fi
exit $rc
