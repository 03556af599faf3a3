#!/usr/bin/env bash
# scripts/bench.sh [--quick] [--only ID,...] [--no-peers] [--no-validate] [--autotune]
#
# The one entry point of the benchmark suite (bench/README.md). On a machine with an NVIDIA GPU,
# nvcc and python3 (torch, triton, matplotlib for the peers and the chart):
#   1. stnc generates FILE.cu/FILE.h for every bench/workloads/*.stn (and its DAG as JSON),
#   2. gen_registry.py writes the harness adapters, nvcc builds the harness (parallel),
#   3. the harness validates every kernel against `stnc run --backend cpu`, measures the ceilings
#      (D2D copy, FP64/FP32 FMA) and times every kernel and its hand-written CUDA peer,
#   4. peers.py times PyTorch conv3d (stars, boxes) and the Triton acoustic kernel,
#   5. report.py writes $OUT/bench-STAMP.{md,json,png,log} and prints the Markdown table last.
# --quick: 128^3 (f64) and 400^3 (acoustic) grids instead of 256^3 and 800^3, 20 timed sweeps.
# --n N / --na N: the f64 workloads' grid N^3 / the acoustic rows' grid N^3 (after --quick's), e.g. --n 512: rules
#   tuned at 256^3 checked where the arrays are 8x the L2 (session 23: a chunk rule 11 % off at 512^3).
# --autotune: first `stnc --autotune` every workload (schedules timed on this GPU, saved as
#   FILE.schedules.json next to the generated code and copied to $OUT), then benchmark those.
# Environment: OUT (default ./bench-results), STNC (default build-static/stnc, else build/stnc),
# STNC_FLAGS (extra stnc options, e.g. --schedule=naive), NVCC, BENCH_JOBS (parallel builds/validations, default nproc), BENCH_WORK (scratch directory).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QUICK=0 ONLY="" PEERS=1 VALIDATE=1 AUTOTUNE=0 GRID_N="" GRID_NA=""
CMDLINE="${STNC_FLAGS:+STNC_FLAGS='$STNC_FLAGS' }scripts/bench.sh $*"  # the flags every kernel was compiled with belong to the record
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --only) ONLY="$2"; shift ;;
    --only=*) ONLY="${1#--only=}" ;;
    --no-peers) PEERS=0 ;;
    --no-validate) VALIDATE=0 ;;
    --autotune) AUTOTUNE=1 ;;
    --n|--na)
      [[ ${2:-} =~ ^[1-9][0-9]*$ && ${2:-0} -ge 16 && ${2:-0} -le 2048 ]] ||
        { echo "bench.sh: $1 takes a grid size N (16..2048, the grid is N^3), not '${2:-}'" >&2; exit 2; }
      if [[ $1 == --n ]]; then GRID_N=$2; else GRID_NA=$2; fi
      shift ;;
    -h|--help) sed -n "2,18p" "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

OUT=${OUT:-$ROOT/bench-results}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
STAMP=$(date -u +%Y-%m-%dT%H%M%SZ)
LOG="$OUT/bench-$STAMP.log"
WORK=${BENCH_WORK:-$(mktemp -d /tmp/stnbench.XXXXXX)}
mkdir -p "$WORK"
JOBS=${BENCH_JOBS:-$(nproc 2>/dev/null || echo 8)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export STNC_CACHE_DIR="$WORK/stnc-cache"
export PYTHONUNBUFFERED=1
T0=$(date +%s)

# Everything goes to the log; the console gets the log too (the Markdown table comes last).
exec > >(tee -a "$LOG") 2>&1
TEE_PID=$!
trap 'exec >&- 2>&-; wait "$TEE_PID" 2>/dev/null' EXIT  # let tee flush the last lines

say() { echo "[bench $(( $(date +%s) - T0 ))s] $*"; }
die() { say "ERROR: $*"; exit 1; }

say "stnc benchmark $STAMP: $CMDLINE (quick=$QUICK, jobs=$JOBS, work=$WORK)"

# ---- stnc (travels as a static binary; built here only as a fallback) --------------------------
if [[ -z "${STNC:-}" ]]; then
  for c in "$ROOT/build-static/stnc" "$ROOT/build/stnc"; do
    if [[ -x "$c" ]]; then STNC="$c"; break; fi
  done
fi
if [[ -z "${STNC:-}" || ! -x "$STNC" ]]; then
  say "no stnc binary (carry build-static); trying to build one"
  cmake -S "$ROOT" -B "$WORK/build-stnc" -G Ninja -DSTNC_STATIC=ON >"$WORK/stnc-build.log" 2>&1 &&
    cmake --build "$WORK/build-stnc" -j"$JOBS" --target stnc >>"$WORK/stnc-build.log" 2>&1 ||
    { tail -20 "$WORK/stnc-build.log"; die "cannot build stnc"; }
  STNC="$WORK/build-stnc/stnc"
fi
"$STNC" --version >/dev/null 2>&1 || "$STNC" --help >/dev/null 2>&1 || die "$STNC does not run here"
say "stnc: $STNC ($("$STNC" --version 2>/dev/null | head -1))"
say "nvcc: $("$NVCC" --version | tail -1)"
if ! command -v c++ >/dev/null 2>&1; then
  export CXX=${CXX:-$(command -v g++ || echo c++)}
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader | sed 's/^/[gpu] /'

# ---- 1. generate -------------------------------------------------------------------------------
GEN="$WORK/gen" SRC="$WORK/src" OBJ="$WORK/obj"
mkdir -p "$GEN" "$SRC" "$OBJ"
FILES=$(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["files"]))' "$ROOT/bench/workloads/manifest.json") ||
  die "cannot read bench/workloads/manifest.json"
export STNC GEN ROOT
if [[ $AUTOTUNE == 1 ]]; then
  say "autotuning every workload: candidates built in parallel, timed one file at a time (STNC_GPU_LOCK)"
  export STNC_GPU_LOCK="$WORK/gpu.lock"
  # Timed at the grid the harness measures (acoustic: --na; the rest: --n), since the best schedule
  # depends on it (session 3: acoustic autotuned at 256^3 chose a candidate 10 % slower at 800^3).
  if [[ $QUICK == 1 ]]; then export TUNE_N=128 TUNE_NA=400; else export TUNE_N=256 TUNE_NA=800; fi
  export TUNE_N=${GRID_N:-$TUNE_N} TUNE_NA=${GRID_NA:-$TUNE_NA}
  printf '%s\n' $FILES | xargs -P 2 -I{} bash -c '
    n=$TUNE_N; [[ {} == acoustic* ]] && n=$TUNE_NA
    "$STNC" "$ROOT/bench/workloads/{}.stn" --autotune --autotune-size "${n}x${n}x${n}" --target cuda ${STNC_FLAGS:-} -o "$GEN" >"$GEN/{}.tune.log" 2>&1 ||
    { echo "autotune failed on {}.stn:"; tail -n 5 "$GEN/{}.tune.log"; }'
  cat "$GEN"/*.tune.log
  mkdir -p "$OUT/schedules" && cp "$GEN"/*.schedules.json "$OUT/schedules/" 2>/dev/null
fi
printf '%s\n' $FILES | xargs -P "$JOBS" -I{} bash -c '
  "$STNC" "$ROOT/bench/workloads/{}.stn" --target cuda ${STNC_FLAGS:-} -o "$GEN" >"$GEN/{}.stnc.log" 2>&1 &&
  "$STNC" "$ROOT/bench/workloads/{}.stn" --emit=json >"$GEN/{}.dag.json" 2>>"$GEN/{}.stnc.log" ||
  { echo "stnc failed on {}.stn:"; cat "$GEN/{}.stnc.log"; exit 255; }' || die "stnc could not compile the workloads"
python3 "$ROOT/bench/harness/gen_registry.py" --manifest "$ROOT/bench/workloads/manifest.json" --gen "$GEN" \
  --out "$SRC" ${ONLY:+--only "$ONLY"} || die "gen_registry.py failed"
say "generated $(ls "$GEN"/*.cu | wc -l) .cu files"
# stnc's optimization report (schedules, tiles), when this stnc has one: into the log.
if "$STNC" --help 2>&1 | grep -q -- '--report'; then
  for f in $FILES; do
    echo "[stnc --report] $f.stn"
    "$STNC" "$ROOT/bench/workloads/$f.stn" --report --target cuda ${STNC_FLAGS:-} -o "$GEN" 2>&1 | sed 's/^/    /' || true
  done
fi

# ---- 2. build the harness ----------------------------------------------------------------------
HARN="$ROOT/bench/harness"
BASEFLAGS="-std=c++17 -O3 -arch=sm_90 -I$SRC -I$GEN -I$HARN"
# stnc's generated code is compiled with the flags stnc itself uses (FMA contraction off, so CPU
# and GPU agree bit for bit: docs/DESIGN.md); the harness, the peers and the ceilings use defaults.
{
  for f in $(cat "$SRC/files.txt"); do echo "$SRC/wrap_$f.cu|${STNC_NVCC_FLAGS:--fmad=false}"; done
  for f in registry; do echo "$SRC/$f.cu|"; done
  for f in main peers ceilings; do echo "$HARN/$f.cu|"; done
} >"$WORK/tus.txt"
export NVCC BASEFLAGS OBJ
xargs -P "$JOBS" -I{} bash -c '
  src="${1%%|*}"; extra="${1#*|}"; obj="$OBJ/$(basename "${src%.cu}").o"
  if ! "$NVCC" $BASEFLAGS $extra -Xptxas -v -c "$src" -o "$obj" >"$obj.log" 2>&1; then
    echo "nvcc failed: $src"; grep -v "ptxas info" "$obj.log" | head -40; exit 255; fi' _ {} <"$WORK/tus.txt" ||
  die "harness build failed"
"$NVCC" -arch=sm_90 -o "$WORK/stnbench" "$OBJ"/*.o -lpthread || die "harness link failed"
# Registers / spills of stnc's kernels (ptxas -v), for the record.
python3 - "$OBJ" <<'PYEOF' || true
import glob, re, sys
for log in sorted(glob.glob(sys.argv[1] + "/wrap_*.o.log")):
    name = None
    for line in open(log):
        m = re.search(r"Compiling entry function '_ZN3stn(\d+)(\w+)", line)
        if m:
            n = int(m.group(1)); name = m.group(2)[:n]
            rest, kern = m.group(2)[n:], "?"
            for _ in range(2):  # [anonymous namespace,] kernel name: <len><identifier>
                d = re.match(r"(\d+)", rest)
                if not d:
                    break
                comp = rest[d.end():d.end() + int(d.group(1))]
                rest = rest[d.end() + int(d.group(1)):]
                if not comp.startswith("_GLOBAL__N"):
                    kern = comp
                    break
            name += "::" + kern
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and name:
            spill = "%s B stack, %s/%s B spill st/ld" % m.groups()
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            if "fillBoundary" not in name:
                print("[ptxas] %-32s %3s regs, %s" % (name, m.group(1), spill))
            name = None
PYEOF
say "harness built"

# ---- 3. harness: validation, ceilings, stnc kernels, CUDA peers ----------------------------------
if [[ $QUICK == 1 ]]; then SIZES=(--n 128 --na 400 --reps 20 --warmup 2 --steps 20); else SIZES=(--n 256 --na 800 --reps 30 --warmup 3 --steps 100); fi
[[ -n $GRID_N ]] && SIZES+=(--n "$GRID_N")    # the harness takes the last value of an option
[[ -n $GRID_NA ]] && SIZES+=(--na "$GRID_NA")
VALARGS=(--stnc "$STNC" --workloads "$ROOT/bench/workloads")
[[ $VALIDATE == 0 ]] && VALARGS=(--no-validate)
NOTES=()
timeout 420 "$WORK/stnbench" "${SIZES[@]}" --sets 3 --jobs "$JOBS" --work "$WORK" --json "$WORK/stnc.json" \
  "${VALARGS[@]}" ${ONLY:+--only "$ONLY"}
HST=$?
if [[ $HST != 0 ]]; then
  [[ -s "$WORK/stnc.json" ]] || die "harness failed (status $HST) before measuring anything"
  say "harness failed (status $HST): reporting the rows measured before"
  NOTES+=(--note "**The harness stopped early (status $HST)**: rows after the last one shown are missing; see the log.")
fi
say "harness done"

# ---- 4. Python peers ----------------------------------------------------------------------------
if [[ $PEERS == 1 ]]; then
  REM=$(( 470 - ($(date +%s) - T0) ))
  (( REM < 30 )) && REM=30
  if [[ $QUICK == 1 ]]; then PREPS=(--reps 20 --warmup 2); else PREPS=(--reps 30 --warmup 3); fi
  timeout "$REM" python3 "$HARN/peers.py" --manifest "$ROOT/bench/workloads/manifest.json" --harness "$WORK/stnc.json" \
    --json "$WORK/peers.json" "${PREPS[@]}" || { NOTES+=(--note "peers.py stopped early (status $?; time limit ${REM}s)"); say "peers.py failed or timed out"; }
  say "peers done"
fi

# ---- 5. report ----------------------------------------------------------------------------------
say "total $(( $(date +%s) - T0 ))s; report:"
PEERARG=()
[[ $PEERS == 1 ]] && PEERARG=(--peers "$WORK/peers.json")
[[ $PEERS == 0 ]] && NOTES+=(--note "Python peers skipped (--no-peers).")
python3 "$HARN/report.py" --harness "$WORK/stnc.json" "${PEERARG[@]}" --out "$OUT" --stamp "$STAMP" \
  --command "$CMDLINE" "${NOTES[@]}" || die "report.py failed"
