#!/usr/bin/env bash
# The hand-written hypterm experiments against stnc's fused kernel of bench/workloads/hypterm_c.stn (both built
# -fmad=false: bit for bit), each printing a markdown table:
#   staged  bench/hypterm/hypterm_staged.cu (session 11): the flux products staged once per point
#   split   bench/hypterm/hypterm_split.cu (session 22): the block's threads split by output
#   STNC=build-static/stnc [EXPERIMENTS="staged split"] bash bench/hypterm/run.sh [N] [reps]
# BUILD_ONLY=1: build both only (CI); PROFILE=1: ncu of one launch each of stnc's kernel and the experiment's;
# SANITIZE=1: memcheck and racecheck at 64^3.
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" hypterm  # root, stnc, work, nvcc
"$stnc" "$root/bench/workloads/hypterm_c.stn" -o "$work"
for x in staged split; do
  bench_nvcc "$work/hypterm_$x" "$root/bench/hypterm/hypterm_$x.cu" "$work/hypterm_c.cu"  # -fmad=false: bit for bit
done
bench_head "Hypterm experiments (bench/hypterm/run.sh)" "ptxas (registers, spills):" \
  'stagedILi[0-9]+ELi[0-9]+ELi[0-9]+ELi[0-9]+E|splitILi[0-9]+ELi[0-9]+ELi[0-9]+E|9hypterm_c[^ ]*sweepPart' "$work/hypterm_staged and hypterm_split"
for x in ${EXPERIMENTS:-staged split}; do
  echo
  echo "## $x"
  "$work/hypterm_$x" "${1:-256}" "${2:-30}"
  if [[ ${PROFILE:-0} == 1 ]]; then  # ncu: stnc's fused kernel and the experiment's, one launch each
    m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
    m=$m,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__throughput.avg.pct_of_peak_sustained_active
    m=$m,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct
    "${NCU:-/usr/local/cuda/bin/ncu}" --clock-control none -k regex:"sweepPart|$x" --metrics "$m" "$work/hypterm_$x" "${1:-256}" 1 profile | grep -v '^==PROF==' | sed -n "/sweepPart\|$x/,\$p"
  fi
  if [[ ${SANITIZE:-0} == 1 ]]; then  # memcheck and racecheck at 64^3
    for t in memcheck racecheck; do "${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}" --tool $t --print-limit 5 "$work/hypterm_$x" 64 1 | tail -3; done
  fi
done
