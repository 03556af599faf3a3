#!/usr/bin/env bash
# scripts/gpu/e2e-cuda.sh — the e2e cases of tests/e2e/RunCompare.cpp through `stnc run --backend cuda`, on a GPU
# machine: the generated CUDA code against the same independent plain-loop references the CPU backend meets
# in CI (bit for bit). Optionally under compute-sanitizer (E2E_SANITIZE=1: memcheck, then racecheck, per case).
#
#   STNC=build-static/stnc E2E=build-static/tests/e2e/stnc_e2e_run bash scripts/gpu/e2e-cuda.sh [CASE ...]
#
# Without cases: every case of tests/e2e/stn/lowerrank.stn (the lower-rank fields). Writes one line per case
# to stdout and $OUT/e2e-cuda.md when OUT is set; exit status 0 only if every case passed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stnc=${STNC:-$root/build-static/stnc}
e2e=${E2E:-$root/build-static/tests/e2e/stnc_e2e_run}
[[ $stnc = /* ]] || stnc=$root/$stnc
[[ $e2e = /* ]] || e2e=$root/$e2e
for f in "$stnc" "$e2e"; do [[ -f $f ]] || { echo "e2e-cuda.sh: error: no $f" >&2; exit 2; }; chmod +x "$f" 2>/dev/null; done
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
cases=("$@")
((${#cases[@]})) || cases=(coef3d_37x19x23 coef3d_8x3x64 damp2d_steps5_33x41 damp2d_sweep_7x128 pml3d_37x19x23 pml3d_64x40x70)
work=$(mktemp -d "${TMPDIR:-/tmp}/stnc-e2e-cuda.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
export STNC_CACHE_DIR=$work/cache
ok=1 rows=()
for c in "${cases[@]}"; do
  args=(--stnc "$stnc" --stn-dir "$root/tests/e2e/stn" --stdlib "$root/stdlib" --work "$work/$c" --backend cuda "$c")
  if "$e2e" "${args[@]}" >"$work/$c.log" 2>&1; then res=PASS; else res=FAIL; ok=0; fi
  summary=$(grep -E 'points, .* bit-identical' "$work/$c.log" | sed 's/^ *//' | paste -sd ';' -)
  san=
  if [[ ${E2E_SANITIZE:-0} == 1 && $res == PASS ]]; then
    for tool in memcheck racecheck; do
      if compute-sanitizer --tool "$tool" --require-cuda-init no --error-exitcode 3 "$e2e" "${args[@]}" >"$work/$c.$tool.log" 2>&1; then san+="$tool clean "
      else san+="$tool FAILED "; ok=0; tail -n 20 "$work/$c.$tool.log"; fi
    done
  fi
  [[ $res == FAIL ]] && tail -n 20 "$work/$c.log"
  rows+=("| $c | $res | $summary | ${san:-} |")
  echo "e2e-cuda: $c $res $summary $san"
done
if [[ -n ${OUT:-} ]]; then
  {
    echo "# e2e cases through the CUDA backend — $(date -Is)"
    echo
    echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
    echo
    echo "| case | result | outputs vs the reference | compute-sanitizer |"
    echo "| --- | --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
  } >"$OUT/e2e-cuda.md"
fi
((ok)) && exit 0 || exit 1
