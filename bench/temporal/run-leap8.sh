#!/usr/bin/env bash
# Temporal blocking at radius 4 (issue 8): builds bench/temporal/temporal_leap8.cu against the
# stnc-generated kernel of bench/temporal/leap8.stn (the acoustic sample's inner equation) and prints,
# per grid, two stnc sweeps against hand-fused two-step kernels (each checked bit for bit first).
#   STNC=build-static/stnc bash bench/temporal/run-leap8.sh [N ...]      (default: 800)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" leap8  # root, stnc, work, nvcc
"$stnc" "$root/bench/temporal/leap8.stn" -o "$work" ${STNC_FLAGS:-}
# -fmad=false (bench_nvcc): the fused kernel evaluates the generated expression bit for bit.
bench_nvcc "$work/temporal_leap8" "$root/bench/temporal/temporal_leap8.cu" "$work/leap8.cu"
bench_head "Temporal blocking at radius 4: leap8 f32 (bench/temporal/run-leap8.sh)" "ptxas (fused kernels: registers, spills):" \
  'fused(2|Ring)I(Li[0-9]+E)+' "$work/temporal_leap8"
if [[ ${PROFILE:-0} == 1 ]]; then  # ncu: the stnc sweep against the best fused pair (800^3)
  ncu=${NCU:-/usr/local/cuda/bin/ncu}
  "$ncu" --clock-control none --kernel-name regex:'sweepPart|fusedRing' --metrics \
    gpu__time_duration.sum,sm__inst_executed.sum,sm__instruction_throughput.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,launch__registers_per_thread \
    "$work/temporal_leap8" --profile 800
  exit 0
fi
if [[ -n ${SUSTAINED:-} ]]; then  # SUSTAINED=STEPS: the launcher's step loop on N^3 (default 800), clocks and power sampled
  bash "$root/scripts/smi-sample.sh" "$work/temporal_leap8" --sustained "${1:-800}" "$SUSTAINED"
  exit $?
fi
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(800)
echo
"$work/temporal_leap8" "${sizes[@]}"
