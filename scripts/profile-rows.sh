#!/usr/bin/env bash
# scripts/profile-rows.sh ID[,ID...] — Nsight Compute over benchmark rows and their streaming ceilings.
#
# For each row ID of bench/workloads/manifest.json: one launch of each of the row's generated kernels
# and one launch of the harness's streaming kernel over the row's own arrays (bench/harness/ceilings.cu),
# under `ncu --clock-control none`: duration, DRAM bytes, L2 bytes (lts__t_bytes) and the sectors the
# SMs ask L2 for, L1 bytes, occupancy and issue activity. The streaming kernel is
# what a kernel with no neighbours does with the same arrays, so the difference between the two is
# what the stencil's own access pattern costs.
#
# Needs the harness binary: builds it with scripts/bench.sh (--no-peers --only IDS, BENCH_WORK) unless
# $BENCH_WORK/stnbench exists. Environment: BENCH_WORK (default /tmp/stnbench-prof), STNC, STNC_FLAGS,
# OUT (default ./profile-results; writes OUT/profile-rows.txt; the raw CSVs stay in BENCH_WORK), NCU (default ncu on PATH or in CUDA).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
IDS=${1:?usage: scripts/profile-rows.sh ID[,ID...]}
export BENCH_WORK=${BENCH_WORK:-/tmp/stnbench-prof}
OUT=${OUT:-./profile-results}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$OUT"
REPORT="$OUT/profile-rows.txt"
if [[ ! -x "$BENCH_WORK/stnbench" ]]; then
  OUT="$OUT/bench" bash "$ROOT/scripts/bench.sh" --no-peers --only "$IDS" >"$OUT/build.log" 2>&1 ||
    { echo "profile-rows: bench.sh failed (see $OUT/build.log)"; tail -20 "$OUT/build.log"; exit 1; }
fi
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
METRICS+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
METRICS+=,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_bytes.sum
METRICS+=,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
METRICS+=,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
METRICS+=,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
: >"$REPORT"
IFS=, read -r -a LIST <<<"$IDS"
for id in "${LIST[@]}"; do
  echo "## $id" | tee -a "$REPORT"
  # Every launch of the row's kernels and of the streaming kernel (ncu flushes the caches before each);
  # the table keeps the last launch of each kernel name.
  "$NCU" --clock-control none -k 'regex:^(sweep|stream|stepPair).*' --metrics "$METRICS" --csv --print-units base \
    "$BENCH_WORK/stnbench" --n 256 --na 800 --reps 1 --warmup 1 --sets 1 --no-validate --only "$id" \
    --json /tmp/profile-rows.json >"$BENCH_WORK/ncu-$id.csv" 2>"$BENCH_WORK/ncu-$id.err" ||
    { echo "ncu failed for $id"; tail -5 "$BENCH_WORK/ncu-$id.err"; }
  python3 - "$BENCH_WORK/ncu-$id.csv" <<'EOF' | tee -a "$REPORT"
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows:
    print("(no ncu rows)"); sys.exit(0)
h = rows[0]; ki, mi, vi, ii = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
by, last = collections.OrderedDict(), collections.OrderedDict()
for r in rows[1:]:
    by.setdefault((r[ii], r[ki]), {})[r[mi]] = r[vi]
for (i, k), m in by.items():
    last[k.split("(")[0]] = m
for name, m in last.items():
    f = lambda key: float(m.get(key, "nan").replace(",", ""))
    us = f("gpu__time_duration.sum") / 1e3
    print("%-40s %8.1f us  regs %3.0f  warps %4.1f%%  issue %4.1f%%  DRAM r/w %6.0f/%6.0f MB  L2 %6.0f MB (%4.1f%%)"
          "  SM->L2 r/w %6.0f/%6.0f MB  L2 hit(rd) %4.1f%%  L1 %6.0f MB (%4.1f%%)  DRAM %4.1f%%" % (
        name[-40:], us, f("launch__registers_per_thread"), f("sm__warps_active.avg.pct_of_peak_sustained_active"),
        f("smsp__issue_active.avg.pct_of_peak_sustained_active"), f("dram__bytes_read.sum") / 1e6,
        f("dram__bytes_write.sum") / 1e6, f("lts__t_bytes.sum") / 1e6,
        f("lts__throughput.avg.pct_of_peak_sustained_elapsed"),
        f("lts__t_sectors_srcunit_tex_op_read.sum") * 32 / 1e6, f("lts__t_sectors_srcunit_tex_op_write.sum") * 32 / 1e6,
        100 * f("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum") / max(f("lts__t_sectors_srcunit_tex_op_read.sum"), 1),
        f("l1tex__t_bytes.sum") / 1e6, f("l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
        f("dram__throughput.avg.pct_of_peak_sustained_elapsed")))
EOF
done
echo "profile-rows: wrote $REPORT"
