#!/usr/bin/env bash
# What limits box125_rt (issue 6: 0.70 of the FP64 FMA floor, target 0.75)? Builds the stnc-generated kernel
# once per variant (bench/sumfactor/patch.py: launch bounds, FMA chains) and chunk length, times each on n^3
# (bench/sumfactor/box125_variants.cu), then the hand-written FP64 tensor-core form (box125_dmma.cu; DMMA=0
# skips it) and, with PROFILE=1, prints Nsight Compute's warp stall breakdown of
# the base kernel and the SASS instruction mix of its inner loop (SASS_OUT=FILE: the listing).
#   STNC=build-static/stnc bash bench/sumfactor/run.sh [N]        (default 256)
#   VARIANTS="base lb4 lb4+chain" CHUNKS="0 64" ...                  (0: the launcher's own rule)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" sumfactor  # root, stnc, work, nvcc
n=${1:-256}
variants=(${VARIANTS:-base lb4 chain split2 lb4+chain lb4+split2})
chunks=(${CHUNKS:-0 64})
builds=()
for ch in "${chunks[@]}"; do
  flags=(--fp-contract=on --factor-sums=on --tensor-cores=off)  # the sumfactor kernel (the tensor schedule would take box125_rt)
  [[ $ch == 0 ]] || flags+=(--chunk "$ch")
  mkdir -p "$work/c$ch"
  "$stnc" "$root/bench/workloads/box125_rt.stn" --target cuda "${flags[@]}" -o "$work/c$ch" > /dev/null
  for v in "${variants[@]}"; do
    d="$work/c$ch/$v"
    mkdir -p "$d"
    cp "$work/c$ch/box125_rt.h" "$d/"
    python3 "$root/bench/sumfactor/patch.py" "$work/c$ch/box125_rt.cu" "$d/box125_rt.cu" "$v"
    builds+=("$d|$v, chunk ${ch/#0/rule}")
  done
done
# Parallel builds (each binary in its own directory; ptxas -v kept per build).
printf '%s\n' "${builds[@]}" | xargs -P "$(nproc)" -I{} bash -c '
  d=${3%%|*}
  "$1" -O3 -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -Xptxas -v -I "$d" -I "$2/bench/common" \
    "$2/bench/sumfactor/box125_variants.cu" "$d/box125_rt.cu" -o "$d/run" 2> "$d/ptxas.txt" || { cat "$d/ptxas.txt"; exit 255; }' \
  _ "$nvcc" "$root" {}
# The FP64 tensor-core form (bench/sumfactor/box125_dmma.cu: hand-written, the same coefficients and check).
"$nvcc" -O3 -std=c++17 -arch=sm_90 -Werror all-warnings -Xptxas -v -I "$root/bench/common" "$root/bench/sumfactor/box125_dmma.cu" \
  -o "$work/dmma" 2> "$work/dmma-ptxas.txt" || { cat "$work/dmma-ptxas.txt"; exit 1; }
if [[ ${BUILD_ONLY:-0} == 1 ]]; then echo "built ${#builds[@]} variants and the DMMA form"; exit 0; fi
echo "# box125_rt variants (bench/sumfactor/run.sh $n), $(date -Is)"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader || true
echo
echo "| variant | grid | µs | of FMA floor | max rel. diff vs the sum as written | check | registers, spills |"
echo "|---|---|---:|---:|---:|---|---|"
rc=0
for b in "${builds[@]}"; do
  d=${b%%|*}
  regs=$(awk '/sweepPart_sf/ { f = 1 } f && /spill stores/ { s = $5 " B spill" } f && /Used [0-9]+ registers/ { print $5 " regs, " s; exit }' "$d/ptxas.txt")
  row=$("$d/run" "$n" 30 "${b#*|}") || rc=1
  echo "${row% |} $regs |"
done
if [[ ${DMMA:-1} == 1 ]]; then
  echo
  echo "## The FP64 tensor-core form (bench/sumfactor/box125_dmma.cu)"
  "$work/dmma" "$n" 30 || rc=1
fi
if [[ ${PROFILE:-0} == 1 ]] && command -v ncu > /dev/null; then
  base="$work/c${chunks[0]}/${variants[0]}/run"
  echo
  echo "## Nsight Compute, ${variants[0]} (chunk ${chunks[0]/#0/rule}): pipes, occupancy, warp stalls (cycles per issued instruction)"
  ncu --clock-control none -k regex:sweepPart_sf --launch-skip 2 --launch-count 1 \
    --section ComputeWorkloadAnalysis --section Occupancy --section SpeedOfLight \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio "$base" "$n" 3 base 2>&1 |
    grep -v '^==PROF==' | sed -n '/sweepPart_sf/,$p' | grep -v ' 0$\| 0\.0[0-9]$' | head -90
  if command -v cuobjdump > /dev/null; then
    echo
    echo "## SASS of sweepPart_sf (${variants[0]}): instruction mix (whole kernel, static)"
    cuobjdump -sass "$base" | awk '/Function : .*sweepPart_sf/ { f = 1; next } /Function : / { f = 0 } f' > "$work/sf.sass"
    grep -oE '^ +/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T] +)?[A-Z0-9_.]+' "$work/sf.sass" | awk '{ print $NF }' | sed 's/\..*//' |
      sort | uniq -c | sort -rn | head -25
    [[ -z ${SASS_OUT:-} ]] || cp "$work/sf.sass" "$SASS_OUT"
  fi
fi
exit $rc
