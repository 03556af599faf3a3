#!/usr/bin/env bash
# Staged hypterm experiment (session 11): builds bench/hypterm/hypterm_staged.cu with stnc's fused
# kernel of bench/workloads/hypterm_c.stn (both -fmad=false: bit for bit) and prints a markdown table.
#   STNC=build-static/stnc bash bench/hypterm/run.sh [N] [reps]      BUILD_ONLY=1: build only (CI)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" hypterm  # root, stnc, work, nvcc
"$stnc" "$root/bench/workloads/hypterm_c.stn" -o "$work"
bench_nvcc "$work/hypterm_staged" "$root/bench/hypterm/hypterm_staged.cu" "$work/hypterm_c.cu"  # -fmad=false: bit for bit
bench_head "Staged hypterm (bench/hypterm/run.sh)" "ptxas (registers, spills):" \
  'stagedILi[0-9]+ELi[0-9]+ELi[0-9]+ELi[0-9]+E|9hypterm_c[^ ]*sweepPart' "$work/hypterm_staged"
echo
"$work/hypterm_staged" "${1:-256}" "${2:-30}"
if [[ ${PROFILE:-0} == 1 ]]; then  # ncu: stnc's fused kernel and the staged 32x8 one, one launch each
  m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
  m=$m,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__throughput.avg.pct_of_peak_sustained_active
  m=$m,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
  "${NCU:-/usr/local/cuda/bin/ncu}" --clock-control none -k regex:'sweepPart|staged' --metrics "$m" "$work/hypterm_staged" "${1:-256}" 1 profile | grep -v '^==PROF==' | sed -n '/sweepPart\|staged/,$p'
fi
if [[ ${SANITIZE:-0} == 1 ]]; then  # memcheck and racecheck at 64^3
  for t in memcheck racecheck; do "${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}" --tool $t --print-limit 5 "$work/hypterm_staged" 64 1 | tail -3; done
fi
