#!/usr/bin/env bash
# Two leapfrog steps through L2 (issue 8): builds bench/temporal/wave_leap8.cu against the stnc-generated
# kernel of bench/temporal/leap8.stn and prints, per grid, two stnc sweeps against one wavefront launch of
# both steps (each variant checked bit for bit first).
#   STNC=build-static/stnc bash bench/temporal/run-wave8.sh [N ...]      (default: 800)
#   PROFILE=1 ... (ncu: one stnc sweep, one wave launch at 800^3); SUSTAINED=STEPS ... (step loops, clocks)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" wave8  # root, stnc, work, nvcc
"$stnc" "$root/bench/temporal/leap8.stn" -o "$work" ${STNC_FLAGS:-}
bench_nvcc "$work/wave_leap8" "$root/bench/temporal/wave_leap8.cu" "$work/leap8.cu"
bench_head "Two steps through L2: leap8 f32 (bench/temporal/run-wave8.sh)" "ptxas (wave kernels: registers, spills):" \
  'wavePairILi[0-9]+E' "$work/wave_leap8"
if [[ ${PROFILE:-0} == 1 ]]; then
  ncu=${NCU:-/usr/local/cuda/bin/ncu}
  "$ncu" --clock-control none --kernel-name regex:'sweepPart|wavePair' --metrics \
    gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
    "$work/wave_leap8" --profile 800
  exit 0
fi
if [[ -n ${SUSTAINED:-} ]]; then
  bash "$root/scripts/smi-sample.sh" "$work/wave_leap8" --sustained "${1:-800}" "$SUSTAINED"
  exit $?
fi
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(800)
echo
"$work/wave_leap8" "${sizes[@]}"
