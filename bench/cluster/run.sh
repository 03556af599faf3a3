#!/usr/bin/env bash
# Thread-block cluster (DSMEM) experiment: builds bench/cluster/cluster_star25.cu against the
# stnc-generated star25_c kernel, checks a small odd grid under compute-sanitizer memcheck, then prints
# per grid one table: own-halo 2.5-D kernels vs clusters along j that share halo rows through DSMEM.
#   STNC=build-static/stnc bash bench/cluster/run.sh [N ...]      (default: 256 512)
# Environment: BUILD_ONLY=1 (build, print registers, stop), REPS (timed runs per variant, default 30),
# CHUNK (planes per block, default: stnc's rule), SANITIZE (0 none, 1 memcheck [default], 2 + racecheck).
# bench/cluster/ring_model.py checks the kernel's dim-0 ring and queue logic on the CPU (python3, no GPU).
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" cluster  # root, stnc, work, nvcc
"$stnc" "$root/bench/workloads/star25_c.stn" -o "$work" ${STNC_FLAGS:-}
# -fmad=false on both (bench_nvcc; stnc's own flag): the variants evaluate the generated expression bit for bit.
bench_nvcc "$work/cluster_star25" "$root/bench/cluster/cluster_star25.cu" "$work/star25_c.cu"
# Registers and spills per variant, Cfg<TK, TJ, C, mode (0 own, 1 own + cluster barrier, 2 push, 3 pull), split, G>.
regs() {
  awk '/Compiling entry function/ { f = ""; if (match($0, /CfgIL[^E]*E[^E]*E[^E]*E[^E]*E[^E]*E[^E]*E/)) {
         f = substr($0, RSTART + 5, RLENGTH - 5); gsub(/ELi|ELb/, ",", f); gsub(/^i|E$/, "", f) } }
       /spill stores/ { sp = $5 "+" $9 }
       /Used [0-9]+ registers/ && f != "" { printf "  Cfg<%s>: %s registers, spill bytes (st+ld) %s\n", f, $5, sp; f = "" }' "$work/ptxas.txt"
}
if [[ ${BUILD_ONLY:-0} == 1 ]]; then regs; echo "built $work/cluster_star25"; exit 0; fi
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(256 512)
echo "# Thread-block clusters (DSMEM) vs own halos, star25_c f64 (bench/cluster/run.sh), $(date -Is)"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader || true
echo "stnc kernel: $(grep -m1 'schedule (cuda):' "$work/star25_c.cu" | sed 's/^ *\/\/ *//')"
regs
rc=0
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [[ ${SANITIZE:-1} != 0 && -x $san ]]; then
  tools=(memcheck)
  [[ ${SANITIZE:-1} == 2 ]] && tools+=(racecheck)
  for tool in "${tools[@]}"; do  # an odd grid: partial tiles in j and k, a partial cluster, a short last chunk
    # Exit status 9: the tool found errors (--error-exitcode); any other non-zero: the program failed
    # (1: a variant did not validate), with the tool clean.
    src=0
    "$san" --tool "$tool" --print-limit 5 --error-exitcode 9 "$work/cluster_star25" 61x37x45 0 > "$work/san.txt" 2>&1 || src=$?
    summary=$({ grep -E '(ERROR|RACECHECK) SUMMARY' "$work/san.txt" || true; } | sed 's/^=* *//' | paste -sd ';' -)
    if [[ $src == 0 ]]; then
      echo "$tool 61x37x45 (every variant, validated): clean (${summary:-no summary})"
    elif [[ $src == 9 ]]; then
      echo "$tool 61x37x45: TOOL ERRORS (${summary:-no summary}); first reports and the end:"
      grep -m 40 '^=========' "$work/san.txt" || true
      echo "..."; tail -20 "$work/san.txt"; rc=1
    else
      echo "$tool 61x37x45: tool clean (${summary:-no summary}), but the program exited $src (validation); its output:"
      grep -v '^=========' "$work/san.txt" || true
      rc=1
    fi
  done
fi
for n in "${sizes[@]}"; do
  echo
  "$work/cluster_star25" "$n" "${REPS:-30}" "${CHUNK:-0}" || rc=1
done
exit $rc
