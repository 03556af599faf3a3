#!/usr/bin/env bash
# The samples on a GPU machine: builds samples/heat (make: CPU, and GPU=1) and samples/cns (CMake:
# CPU, and CUDA) with a carried stnc binary, runs them, checks that the GPU results equal the CPU
# results bit for bit (f64; FMA contraction is off on both sides: -ffp-contract=off, nvcc -fmad=false),
# and writes a markdown report to $OUT/gpu-samples.md (+ gpu-samples.log, and the heat images).
#
#   STNC=build-static/stnc bash scripts/gpu-samples.sh        (about 1-2 minutes on 16 cores + an H200)
#
# Needs: nvcc, g++, cmake, ninja (or make for CMake), python3 (numpy optional: the field comparison
# falls back to cmp). Works without libpng (the heat images are PPM then: PNG=0) and without MPI (the
# MPI builds are skipped; with mpicxx + mpirun present, heat MPI=1 runs on 2 ranks as well).
# The CNS sample is configured with -DSTNC_EXECUTABLE (no stnc package needed: the source tree's
# cmake/StncAddStencil.cmake and stdlib/ are used). STNC_STDLIB defaults to stdlib/ of this tree.
# Exit status 0 only if every build, run and comparison passed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
out=${OUT:-$root/build-gpu-samples}
mkdir -p "$out" || exit 2
log=$out/gpu-samples.log
md=$out/gpu-samples.md
: >"$log"
t_start=$(date +%s)

stnc=${STNC:-build-static/stnc}
[[ $stnc == /* ]] || stnc=$root/$stnc
if [[ ! -f $stnc ]]; then
  echo "gpu-samples: error: no stnc binary at '$stnc' (build-static: cmake -S . -B build-static -G Ninja" \
       "-DSTNC_STATIC=ON -DCMAKE_BUILD_TYPE=Release && ninja -C build-static stnc; carry build-static/stnc)" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/stnc-gpu-samples.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
if [[ ! -x $stnc ]]; then  # a carried file may lose its mode bits
  cp "$stnc" "$work/stnc" && chmod +x "$work/stnc" && stnc=$work/stnc
fi
export STNC_STDLIB=${STNC_STDLIB:-$root/stdlib}
export STNC_CACHE_DIR=$work/cache
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
if [[ -z ${CXX:-} ]] && ! command -v c++ >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then export CXX=g++; fi
jobs=$(nproc 2>/dev/null || echo 4)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

# ---- environment ------------------------------------------------------------------------------------
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
[[ $cap =~ ^[0-9]+$ ]] || cap=90
arch=sm_$cap
nvcc_v=$(nvcc --version 2>/dev/null | tail -n 1)
stnc_v=$("$stnc" --version 2>&1 | head -n 1) || { echo "gpu-samples: error: $stnc does not run here: $stnc_v" >&2; exit 2; }
if printf '#include <png.h>\nint main() { return 0; }\n' | ${CXX:-c++} -x c++ -fsyntax-only - >/dev/null 2>&1; then
  png=1
else
  png=0
fi
have_mpi=0
if command -v mpicxx >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then have_mpi=1; fi
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
py=$(command -v python3 || true)
have_numpy=0
if [[ -n $py ]] && "$py" -c 'import numpy' >/dev/null 2>&1; then have_numpy=1; fi

{
  echo "== stnc gpu-samples: $(date -Is) on $(hostname)"
  echo "gpu: ${gpu:-none} ($arch); nvcc: ${nvcc_v:-none}; stnc: $stnc_v"
  echo "libpng: $([[ $png == 1 ]] && echo yes || echo 'no (PNG=0: images as PPM)'); MPI: $([[ $have_mpi == 1 ]] && echo yes || echo no); numpy: $have_numpy; cores: $jobs"
} | tee -a "$log"

# ---- steps ---------------------------------------------------------------------------------------------
rows=()      # markdown table rows
failed=0
# step NAME LIMIT_S CMD...: runs CMD (output to the log and to $work/NAME.out), records time and status.
step() {
  local name=$1 limit=$2
  shift 2
  local t0 t1 rc
  echo "-- $name: $*" >>"$log"
  t0=$(date +%s.%N)
  timeout "$limit" "$@" >"$work/$name.out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  cat "$work/$name.out" >>"$log"
  local secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  if [[ $rc == 0 ]]; then
    rows+=("| $name | ok | $secs s |")
  else
    local last
    last=$(tail -n 1 "$work/$name.out" | cut -c1-160 | tr '|' '/')
    rows+=("| $name | **FAILED** (exit $rc$([[ $rc == 124 ]] && echo ', timed out')): ${last} | $secs s |")
    failed=1
  fi
  echo "   $name: exit $rc, $secs s" | tee -a "$log"
  return $rc
}

# Compares two .npy files of the same run on two backends: bitwise, and the max |difference|.
compared=()  # markdown rows
compare_npy() {
  local what=$1 a=$2 b=$3 verdict detail
  if [[ ! -f $a || ! -f $b ]]; then
    compared+=("| $what | missing output | - |")
    failed=1
    return
  fi
  if cmp -s "$a" "$b"; then verdict="bit-identical"; else verdict="**DIFFERENT**"; failed=1; fi
  detail="-"
  if [[ $have_numpy == 1 ]]; then
    detail=$("$py" - "$a" "$b" <<'EOF'
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
ok = a.shape == b.shape
d = float(np.max(np.abs(a - b))) if ok else float('nan')
same = ok and np.array_equal(a.view(np.uint64), b.view(np.uint64))
print(f"{a.shape}, {a.size} values, max |cpu - gpu| = {d:.3e}, bitwise equal values: {same}")
EOF
    )
  fi
  compared+=("| $what | $verdict | $detail |")
}

heat_o=$work/heat
heat_mk=(make -C samples/heat "O=$heat_o" "STNC=$stnc" "CUDA_ARCH=$arch" "PNG=$png" -j "$jobs")

# heat, CPU then GPU=1 (the same gen dir; objects in cpu/ and gpu/)
step heat_build_cpu 300 "${heat_mk[@]}" all
step heat_build_gpu 300 "${heat_mk[@]}" GPU=1 all
img_suffix=png
[[ $png == 1 ]] || img_suffix=ppm
for dim in 3 2; do
  if [[ $dim == 3 ]]; then args=(--dim 3 --n 128 --steps 200); else args=(--dim 2 --n 512 --steps 400); fi
  step "heat_run_${dim}d_cpu" 120 "$heat_o/cpu/heat" "${args[@]}" --backend cpu --save "$work/heat${dim}d_cpu.npy"
  step "heat_run_${dim}d_gpu" 120 "$heat_o/gpu/heat" "${args[@]}" --backend cuda --save "$work/heat${dim}d_gpu.npy" \
       --png "$out/heat-${dim}d-gpu.png"
  compare_npy "heat ${dim}-D (${args[*]}), cpu vs cuda" "$work/heat${dim}d_cpu.npy" "$work/heat${dim}d_gpu.npy"
done
# The convergence study on the GPU; it also runs the CPU kernels and requires bitwise equality at every level.
step heat_check_gpu 300 "$heat_o/gpu/heat" --check --backend cuda
if [[ $have_mpi == 1 ]]; then
  mpiflags=()
  if mpirun --version 2>&1 | grep -q "Open MPI"; then mpiflags=(--oversubscribe); [[ $(id -u) == 0 ]] && mpiflags+=(--allow-run-as-root); fi
  step heat_build_mpi 300 "${heat_mk[@]}" MPI=1 all &&
    step heat_mpi_np2_verify 120 env OMP_NUM_THREADS=4 mpirun -np 2 "${mpiflags[@]}" "$heat_o/mpi/heat" --dim 3 --n 96 --steps 50 --verify
fi

# cns: CPU-only build, then the CUDA build (which has the CPU versions too)
cns_cfg=(cmake -S samples/cns "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "-DSTNC_EXECUTABLE=$stnc")
step cns_configure_cpu 120 "${cns_cfg[@]}" -B "$work/cns-cpu"
step cns_build_cpu 300 cmake --build "$work/cns-cpu" --parallel "$jobs"
step cns_check_cpu 300 "$work/cns-cpu/cns" --check --gpu off
step cns_configure_cuda 180 "${cns_cfg[@]}" -B "$work/cns-cuda" -DSTNC_CNS_CUDA=ON "-DCMAKE_CUDA_COMPILER=$(command -v nvcc)" \
     "-DCMAKE_CUDA_ARCHITECTURES=$cap"
step cns_build_cuda 300 cmake --build "$work/cns-cuda" --parallel "$jobs"
# Four versions (cpu/cuda x fused/five kernels) against the independent reference, each bit for bit
# (so cuda == cpu bit for bit), and 8th-order convergence where all four must give the same bits.
step cns_check_cuda 300 "$work/cns-cuda/cns" --check --gpu on
step cns_bench 180 "$work/cns-cuda/cns" --bench --size 256 --reps 20 --gpu on

# ---- report --------------------------------------------------------------------------------------------
t_total=$(( $(date +%s) - t_start ))
{
  echo "# gpu-samples: the heat and CNS samples on a GPU, CPU vs CUDA"
  echo
  echo "$(date -Is) on $(hostname), ${t_total} s in all. Command: \`STNC=${STNC:-build-static/stnc} bash scripts/gpu-samples.sh\`"
  echo
  echo "- GPU: ${gpu:-none} (built for $arch); nvcc: ${nvcc_v:-none}"
  echo "- stnc: $stnc_v (\`STNC_STDLIB=$STNC_STDLIB\`)"
  echo "- libpng: $([[ $png == 1 ]] && echo 'yes (PNG images)' || echo 'no: heat built with PNG=0, images written as PPM')"
  echo "- MPI: $([[ $have_mpi == 1 ]] && echo 'yes (heat MPI=1 on 2 ranks, --verify)' || echo 'no (MPI builds skipped)')"
  echo "- CNS configured without an stnc package: \`-DSTNC_EXECUTABLE=<carried stnc>\` (cmake/StncAddStencil.cmake, stdlib/ of this tree)"
  echo
  echo "## Steps"
  echo
  echo "| step | result | time |"
  echo "| --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
  echo
  echo "## heat: the same run on the CPU and on the GPU (final fields saved as .npy, compared here)"
  echo
  echo "| run | bitwise | detail |"
  echo "| --- | --- | --- |"
  printf '%s\n' "${compared[@]}"
  echo
  for r in heat_run_3d_cpu heat_run_3d_gpu heat_run_2d_cpu heat_run_2d_gpu; do
    [[ -f $work/$r.out ]] && { echo "\`$r\`:"; echo '```'; grep -E '^heat: ([0-9.]+ s,|final)' "$work/$r.out"; echo '```'; }
  done
  echo
  echo "## heat --check --backend cuda (convergence; cuda vs cpu bitwise at every level)"
  echo
  echo '```'
  [[ -f $work/heat_check_gpu.out ]] && cat "$work/heat_check_gpu.out"
  echo '```'
  if [[ $have_mpi == 1 && -f $work/heat_mpi_np2_verify.out ]]; then
    echo
    echo "## heat, MPI build on 2 ranks (--verify: bit-identical to one process)"
    echo
    echo '```'
    cat "$work/heat_mpi_np2_verify.out"
    echo '```'
  fi
  echo
  echo "## cns --check --gpu on (every version vs the independent reference, bit for bit; convergence)"
  echo
  echo '```'
  [[ -f $work/cns_check_cuda.out ]] && cat "$work/cns_check_cuda.out"
  echo '```'
  echo
  echo "## cns --bench --size 256 --reps 20"
  echo
  echo '```'
  [[ -f $work/cns_bench.out ]] && cat "$work/cns_bench.out"
  echo '```'
  echo
  if [[ $failed == 0 ]]; then
    echo "**Verdict: PASS** — every build and run succeeded; GPU results equal the CPU results bit for bit (heat runs compared here, heat --check and cns --check compare internally)."
  else
    echo "**Verdict: FAIL** — see the steps above and gpu-samples.log."
  fi
} >"$md"

echo
cat "$md"
echo
if [[ $failed == 0 ]]; then echo "gpu-samples: PASS (${t_total} s)"; else echo "gpu-samples: FAIL (${t_total} s)"; fi
exit $failed
