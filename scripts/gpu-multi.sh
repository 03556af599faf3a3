#!/usr/bin/env bash
# Multi-GPU runs of the distributed launchers (stnc --distributed, FILE_mpi.h; docs/DISTRIBUTED.md)
# on a machine with 2 (or more) GPUs. Writes $OUT/gpu-multi.md (+ gpu-multi.log).
#
#   STNC=build-static/stnc bash scripts/gpu-multi.sh [--size N] [--steps S] [--gpus P] [--dry-run]
#
# --dry-run: on a machine without GPUs, probe, generate and build every variant, and launch the runs
# (which skip, exit 77): a test of this script and of the builds.
#
# 1. Probe: MPI (which mpirun mpicc mpicxx; MPI libraries; mpi4py's config), NCCL (nccl.h, libnccl),
#    the GPUs and their links (nvidia-smi topo -m).
# 2. Generate heat3d, hypterm, box2d, regions (tests/mpi/*.stn) with `stnc --distributed` and build
#    tests/mpi/multigpu.cu (nvcc) in every variant the machine allows:
#      multigpu_nompi  -DSTNC_NO_MPI -DSTNC_USE_NCCL: one thread per GPU, one NCCL communicator
#                      (ncclCommInitAll), no MPI at all       (needs NCCL)
#      multigpu_nccl   MPI ranks, halos through NCCL          (needs MPI + NCCL)
#      multigpu_mpi    MPI ranks, halos through MPI: pinned host staging (STNC_MPI_CUDA_AWARE=0), and
#                      CUDA-aware MPI when the MPI reports CUDA support (STNC_MPI_CUDA_AWARE=1)
# 3. Correctness (--check) on 1 GPU and on P GPUs: every kernel's fields after mpi::cuda::step are
#    bit-identical to cuda::step of the whole grid on one GPU (heat3d with three rank grids, hypterm,
#    box2d with corners, regions).
# 4. Timing (--bench N, heat3d f64 and CNS hypterm f64, --cns-size M for hypterm's N): strong scaling
#    (N^3 over 1 and P GPUs) and weak scaling (N^3 per GPU): ms per step, ms per halo exchange alone, ms per local sweep alone, halo bytes sent per step,
#    for each transport; the one-GPU cuda::step (CUDA graph) of the same grid for reference.
# With neither MPI nor NCCL it reports the probe and stops (exit 3).
#
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0, exported below; nothing here calls cuMulticastCreate).
set -uo pipefail
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
size=512
cns_size=0
steps=50
gpus=0
dry=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --size) size=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --cns-size) cns_size=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "gpu-multi: unknown option $1" >&2; exit 2 ;;
  esac
done
out=${OUT:-$root/build-gpu-multi}
mkdir -p "$out" || exit 2
log=$out/gpu-multi.log
md=$out/gpu-multi.md
: >"$log"
t_start=$(date +%s)
stnc=${STNC:-build-static/stnc}
[[ $stnc == /* ]] || stnc=$root/$stnc
work=$(mktemp -d "${TMPDIR:-/tmp}/stnc-gpu-multi.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
if [[ -f $stnc && ! -x $stnc ]]; then cp "$stnc" "$work/stnc" && chmod +x "$work/stnc" && stnc=$work/stnc; fi
export STNC_STDLIB=${STNC_STDLIB:-$root/stdlib}
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
say() { echo "$*" | tee -a "$log"; }
run_log() {  # run_log FILE CMD...: output to FILE and the log; returns CMD's status
  local f=$1
  shift
  echo "\$ $*" >>"$log"
  "$@" >"$f" 2>&1
  local rc=$?
  cat "$f" >>"$log"
  return $rc
}

# ---- 1. probe -----------------------------------------------------------------------------------------
probe=$work/probe.txt
{
  echo "\$ which mpirun mpicc mpicxx"
  which mpirun mpicc mpicxx 2>&1 || true
  echo "\$ ls /usr/lib/x86_64-linux-gnu | grep -i mpi"
  ls /usr/lib/x86_64-linux-gnu 2>/dev/null | grep -i mpi | head -n 12 || echo "(none)"
  echo "\$ python3 -c 'import mpi4py; print(mpi4py.get_config())'"
  python3 -c 'import mpi4py; print(mpi4py.get_config())' 2>&1 | tail -n 3 || true
  echo "\$ mpirun --version"
  mpirun --version 2>&1 | head -n 2 || true
  echo "\$ ompi_info (CUDA support)"
  ompi_info --parsable --all 2>/dev/null | grep -i "mpi_built_with_cuda_support:value" || echo "(no ompi_info / not reported)"
  echo "\$ nvidia-smi -L"
  nvidia-smi -L 2>&1 || true
  echo "\$ nvidia-smi topo -m"
  nvidia-smi topo -m 2>&1 || true
  echo "\$ nvcc --version"
  nvcc --version 2>&1 | tail -n 2 || true
} >"$probe" 2>&1
cat "$probe" >>"$log"
cat "$probe"

devices=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ $gpus -gt 0 ]] || gpus=$devices
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
[[ $cap =~ ^[0-9]+$ ]] || cap=90
have_mpi=0
command -v mpicxx >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 && have_mpi=1
cuda_aware=0
ompi_info --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true" && cuda_aware=1

# NCCL: the CUDA toolkit's, the system's, or the nvidia-nccl pip wheel's (include/ and lib/libnccl.so.2).
nccl_inc=""
nccl_lib=""
site=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null || true)
cuda_home=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
for d in "$cuda_home/include" /usr/local/cuda/include /usr/include ${site:+"$site/include"}; do
  [[ -f $d/nccl.h ]] && { nccl_inc=$d; break; }
done
for d in "$cuda_home/lib64" "$cuda_home/lib" /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu ${site:+"$site/lib"}; do
  for f in "$d/libnccl.so" "$d/libnccl.so.2"; do
    [[ -f $f ]] && { nccl_lib=$f; break 2; }
  done
done
have_nccl=0
[[ -n $nccl_inc && -n $nccl_lib ]] && have_nccl=1
say "probe: $devices GPU(s) (sm_$cap), MPI: $([[ $have_mpi == 1 ]] && echo yes || echo no)$([[ $cuda_aware == 1 ]] && echo ', CUDA-aware'), NCCL: $([[ $have_nccl == 1 ]] && echo "$nccl_inc/nccl.h, $nccl_lib" || echo no)"

write_report_header() {
  echo "# gpu-multi: the distributed launchers on several GPUs"
  echo
  echo "$(date -Is) on $(hostname). Command: \`STNC=${STNC:-build-static/stnc} bash scripts/gpu-multi.sh --size $size --cns-size $cns_size --steps $steps\`"
  echo "(NCCL_NVLS_ENABLE=0: NVLink multicast off.)"
  echo
  echo "## Probe"
  echo
  echo '```'
  cat "$probe"
  echo '```'
  echo
  echo "- GPUs: $devices (using $gpus), sm_$cap"
  echo "- MPI: $([[ $have_mpi == 1 ]] && echo "yes$([[ $cuda_aware == 1 ]] && echo ', CUDA-aware (ompi_info)' || echo ', not CUDA-aware (or not reported)')" || echo 'no (no mpicxx/mpirun)')"
  echo "- NCCL: $([[ $have_nccl == 1 ]] && echo "\`$nccl_inc/nccl.h\`, \`$nccl_lib\`" || echo 'not found')"
}

if [[ $have_mpi == 0 && $have_nccl == 0 ]]; then
  { write_report_header; echo; echo "Neither MPI nor NCCL: nothing to run. Stopped after the probe."; } >"$md"
  cat "$md"
  exit 3
fi
if [[ ! -f $stnc ]] || ! "$stnc" --version >/dev/null 2>&1; then
  { write_report_header; echo; echo "No runnable stnc at \`$stnc\` (carry build-static/stnc)."; } >"$md"
  cat "$md"
  exit 2
fi
if [[ $devices -lt 1 && $dry == 0 ]]; then
  { write_report_header; echo; echo "No GPU answers nvidia-smi -L: nothing to run."; } >"$md"
  cat "$md"
  exit 3
fi

# ---- 2. generate and build ----------------------------------------------------------------------------
gen=$work/gen
mkdir -p "$gen" "$work/obj"
for k in heat3d hypterm box2d regions; do
  "$stnc" "tests/mpi/$k.stn" -o "$gen" --target all --distributed >>"$log" 2>&1 || { say "stnc failed on $k.stn"; exit 1; }
done
nvflags=(-std=c++17 -O3 "-arch=sm_$cap" -fmad=false -Xcompiler -pthread "-I$gen" -Itests/mpi)
t0=$(date +%s)
pids=()
for k in heat3d hypterm box2d regions; do
  nvcc "${nvflags[@]}" -c "$gen/$k.cu" -o "$work/obj/$k.o" >>"$log" 2>&1 &
  pids+=($!)
done
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
[[ $ok == 1 ]] || { say "nvcc failed on the generated kernels (see gpu-multi.log)"; exit 1; }
objs=("$work"/obj/*.o)
nccl_link=()
if [[ $have_nccl == 1 ]]; then
  nccl_link=("-I$nccl_inc" "$nccl_lib" -Xlinker -rpath -Xlinker "$(dirname "$nccl_lib")")
fi
build() {  # build NAME FLAGS... (run in the background; the result is read from the files below)
  local name=$1
  shift
  nvcc "${nvflags[@]}" "$@" tests/mpi/multigpu.cu "${objs[@]}" -o "$work/$name" >"$work/$name.build" 2>&1
}
[[ $have_nccl == 1 ]] && build multigpu_nompi -DSTNC_USE_NCCL -DSTNC_NO_MPI "${nccl_link[@]}" &
[[ $have_mpi == 1 ]] && build multigpu_mpi -ccbin mpicxx &
[[ $have_mpi == 1 && $have_nccl == 1 ]] && build multigpu_nccl -ccbin mpicxx -DSTNC_USE_NCCL "${nccl_link[@]}" &
wait
builds=()
for b in multigpu_nompi multigpu_mpi multigpu_nccl; do
  [[ -x $work/$b ]] && builds+=("$b: built")
  [[ -f $work/$b.build && ! -x $work/$b ]] && { builds+=("$b: BUILD FAILED"); cat "$work/$b.build" >>"$log"; }
done
say "build: $(( $(date +%s) - t0 )) s; ${builds[*]}"

mpirun_flags=()
if [[ $have_mpi == 1 ]] && mpirun --version 2>&1 | grep -q "Open MPI"; then
  [[ $(id -u) == 0 ]] && mpirun_flags+=(--allow-run-as-root)
  mpirun_flags+=(--oversubscribe)  # local ranks inherit this environment (NCCL_NVLS_ENABLE=0 included)
fi
# launch VARIANT NP ARGS...: one run of a variant on NP GPUs (MPI ranks or threads).
launch() {
  local v=$1 np=$2
  shift 2
  case $v in
    nompi) timeout 300 "$work/multigpu_nompi" --gpus "$np" "$@" ;;
    nccl) timeout 300 mpirun -np "$np" "${mpirun_flags[@]}" "$work/multigpu_nccl" "$@" ;;
    staging) STNC_MPI_CUDA_AWARE=0 timeout 300 mpirun -np "$np" "${mpirun_flags[@]}" "$work/multigpu_mpi" "$@" ;;
    aware) STNC_MPI_CUDA_AWARE=1 timeout 300 mpirun -np "$np" "${mpirun_flags[@]}" "$work/multigpu_mpi" "$@" ;;
  esac
}
variants=()
[[ -x $work/multigpu_nompi ]] && variants+=(nompi)
[[ -x $work/multigpu_nccl ]] && variants+=(nccl)
[[ -x $work/multigpu_mpi ]] && variants+=(staging)
[[ -x $work/multigpu_mpi && $cuda_aware == 1 ]] && variants+=(aware)
declare -A vname=([nompi]="NCCL, no MPI (1 process, 1 thread per GPU)" [nccl]="MPI ranks, halos through NCCL"
                  [staging]="MPI ranks, host staging" [aware]="MPI ranks, CUDA-aware MPI")
counts=(1)
[[ $dry == 1 && $gpus -lt 2 ]] && gpus=2
[[ $gpus -ge 2 ]] && counts+=("$gpus")

# ---- 3. correctness -------------------------------------------------------------------------------------
checks=()
failed=0
for v in "${variants[@]}"; do
  for np in "${counts[@]}"; do
    f=$work/check_${v}_$np.out
    run_log "$f" launch "$v" "$np" --check
    rc=$?
    while IFS= read -r line; do checks+=("| ${vname[$v]} | $np | ${line} |"); done < <(grep -E '^(PASS|FAIL|SKIP)' "$f")
    if [[ $rc == 77 ]] && grep -q '^SKIP' "$f"; then
      :
    elif [[ $rc == 77 ]]; then
      checks+=("| ${vname[$v]} | $np | skipped (exit 77: no GPU, or fewer than $np) |")
    elif [[ $rc != 0 ]]; then
      failed=1
      checks+=("| ${vname[$v]} | $np | **exit $rc** (see gpu-multi.log) |")
    fi
    say "check $v np=$np: exit $rc"
  done
done

# ---- 4. timing --------------------------------------------------------------------------------------------
results=$work/results.txt
: >"$results"
for v in "${variants[@]}"; do
  for np in "${counts[@]}"; do
    f=$work/bench_${v}_$np.out
    run_log "$f" launch "$v" "$np" --bench "$size" --cns-size "$cns_size" --steps "$steps"
    rc=$?
    if [[ $rc != 0 && $rc != 77 ]]; then failed=1; say "bench $v np=$np failed (exit $rc)"; fi
    grep '^RESULT ' "$f" | sed "s/^RESULT /variant=$v /" >>"$results"
  done
done

# ---- report ---------------------------------------------------------------------------------------------
t_total=$(( $(date +%s) - t_start ))
table=$(python3 - "$results" "$size" <<'EOF'
import re, sys
rows = []
for line in open(sys.argv[1]):
    # values may contain spaces ("transport=MPI, host staging"): a key is a word followed by '='
    kv = dict(re.findall(r"(\w+)=(.*?)(?= \w+=|$)", line.strip()))
    rows.append(kv)
names = {"nompi": "NCCL, no MPI (threads)", "nccl": "MPI + NCCL", "staging": "MPI, host staging", "aware": "MPI, CUDA-aware"}
def f(x):
    try:
        v = float(x)
        return "-" if v < 0 else f"{v:.3f}"
    except Exception:
        return x
print("| kernel | transport | GPUs | scaling | global grid | rank grid | local box | ms/step | ms/exchange alone | ms/local sweep alone | halo MiB sent/step | Gpts/s | 1-GPU cuda::step ms |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    print(f"| {r['kernel']} | {names.get(r['variant'], r['variant'])} | {r['gpus']} | {r['mode']} | {r['global']} | {r['grid']} | {r['local']} | "
          f"{f(r['step_ms'])} | {f(r['exchange_ms'])} | {f(r['sweep_ms'])} | {f(r['halo_send_mib'])} | {f(r['gpts_per_s'])} | {f(r['one_gpu_step_ms'])} |")
print()
# Derived: strong-scaling speed-up and weak-scaling efficiency per transport, overlap.
by = {}
for r in rows:
    by[(r["kernel"], r["variant"], r["mode"], int(r["gpus"]))] = r
lines = []
for kn, v in sorted({(r["kernel"], r["variant"]) for r in rows}):
    ps = sorted({int(r["gpus"]) for r in rows if r["variant"] == v and r["kernel"] == kn})
    if 1 not in ps:
        continue
    for p in ps:
        if p == 1:
            continue
        s1, sp = by.get((kn, v, "strong", 1)), by.get((kn, v, "strong", p))
        w1, wp = by.get((kn, v, "weak", 1)), by.get((kn, v, "weak", p))
        if s1 and sp:
            sp_up = float(s1["step_ms"]) / float(sp["step_ms"])
            ideal = float(sp["sweep_ms"])
            lines.append(f"- {kn}, {names.get(v, v)}, strong {s1['global']}: {p} GPUs {sp_up:.2f}x faster than 1 (ideal {p}x; "
                         f"parallel efficiency {sp_up / p:.0%}); step {float(sp['step_ms']):.3f} ms vs local sweep alone "
                         f"{ideal:.3f} ms + exchange alone {float(sp['exchange_ms']):.3f} ms "
                         f"(overlap hides {max(0.0, 1 - (float(sp['step_ms']) - ideal) / max(1e-9, float(sp['exchange_ms']))):.0%} of the exchange)")
        if w1 and wp:
            lines.append(f"- {kn}, {names.get(v, v)}, weak ({w1['local']} per GPU): efficiency {float(w1['step_ms']) / float(wp['step_ms']):.0%} "
                         f"({float(w1['step_ms']):.3f} ms on 1 GPU, {float(wp['step_ms']):.3f} ms on {p})")
print("\n".join(lines) if lines else "(no multi-GPU rows to derive scaling from)")
EOF
)
{
  write_report_header
  echo
  echo "Builds: ${builds[*]:-none}. ${t_total} s in all."
  echo
  echo "## Correctness: distributed (mpi::cuda::step) vs one GPU (cuda::step), bitwise"
  echo
  echo "| transport | GPUs | result |"
  echo "| --- | --- | --- |"
  printf '%s\n' "${checks[@]}"
  echo
  echo "## Timing: heat3d f64 and CNS hypterm f64, $steps steps (after 4 warm-up steps); halo exchange alone and local sweep alone: mean of 20"
  echo
  echo "$table"
  echo
  echo "Strong scaling: the global grid ${size}^3 over 1 and $gpus GPUs; weak: ${size}^3 per GPU (global extent"
  echo "multiplied along the split axes). ms/exchange alone = mpi::cuda::exchange (pack, transfer, unpack, rules;"
  echo "synchronous), ms/local sweep alone = cuda::sweep of the local box (no exchange): with perfect overlap"
  echo "ms/step ~ max(interior sweep, exchange) + shell. The model these numbers test is in docs/DISTRIBUTED.md"
  echo "(performance model)."
  echo
  if [[ $dry == 1 && $devices -lt 1 ]]; then
    echo "**Dry run without a GPU:** every variant built; the runs skipped (exit 77)."
  elif [[ $failed == 0 ]]; then
    echo "**Verdict: PASS** (every check bit-identical, every run finished)."
  else
    echo "**Verdict: FAIL** (see above and gpu-multi.log)."
  fi
} >"$md"
cat "$md"
exit $failed
