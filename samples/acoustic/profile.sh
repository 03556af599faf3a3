#!/usr/bin/env bash
# samples/acoustic/profile.sh — where one step's time goes: every kernel of one 800^3 step under Nsight
# Compute (duration, DRAM bytes, registers, achieved occupancy), for one or more stnc flag variants.
#
#   STNC=build-static/stnc bash samples/acoustic/profile.sh [LABEL=FLAGS[|NVCCFLAGS] ...]
#
# Without arguments: the default policy only. Each LABEL=FLAGS[|NVCCFLAGS[|SED]] builds the sample with
# STNC_FLAGS=FLAGS and NVCCFLAGS="-O3 NVCCFLAGS" (e.g. 'nohints=|-DSTNC_L2_HINTS=0'; builds run in parallel);
# SED, when given, is a sed script applied to the generated acoustic.cu before nvcc compiles it (experiments
# on the generated code before the generator changes, e.g. 'lb3=||s/bounds__(kBlockX \* kBlockY) sweepPart(/bounds__(kBlockX * kBlockY, 3) sweepPart(/'), then runs
# `acoustic --n N --steps 1` under
#   ncu --clock-control none (METHOD.md: leave the clocks alone)
# and prints one table row per kernel launch of the step (fill, inner, PML slabs, source). The sum of the
# kernel durations is a lower bound on the step (ncu serializes launches; the graph replay of the
# benchmark overlaps nothing either: one stream). Needs ncu on PATH (or /usr/local/cuda/bin).
# Writes $OUT/acoustic-profile.md (default samples/acoustic/out). N: PROFILE_N (default 800).
# PROFILE_SASS=1 adds, per variant, the SASS instruction mix of each kernel (cuobjdump + scripts/gpu/sass_summary.py).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 2
out=${OUT:-$here/out}
mkdir -p "$out" || exit 2
md=$out/acoustic-profile.md
n=${PROFILE_N:-800}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/stnc-acoustic-prof.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

source "$here/variants.sh"
prepareTools profile.sh "$scratch" || exit 2
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
[[ -n $ncu ]] || { echo "profile.sh: error: ncu not found" >&2; exit 2; }
unset MAKEFLAGS MFLAGS MAKELEVEL

variants=("$@")
((${#variants[@]})) || variants=("policy=")
buildVariants "$scratch" "${variants[@]}"

metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread
metrics+=,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,launch__shared_mem_per_block_dynamic,lts__t_sectors_srcunit_tex_op_read.sum
metrics+=,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
{
  echo "# samples/acoustic: one ${n}³ step per kernel under ncu — $(date -Is)"
  echo
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)."
  echo "Command: \`STNC=${STNC:-build-static/stnc} bash samples/acoustic/profile.sh ${variants[*]@Q}\`"
  echo "(\`$ncu --clock-control none --metrics $metrics\`; DRAM GB/s = (read + write) / duration)."
  echo
} >"$md"
for i in "${!variants[@]}"; do
  {
    echo "## ${labels[$i]}: STNC_FLAGS[|NVCCFLAGS]='${variants[$i]#*=}'"
    echo
  } >>"$md"
  if ! wait "${pids[$i]}"; then
    { echo '```'; tail -n 30 "$scratch/build$i.log"; echo '```'; echo; } >>"$md"
    continue
  fi
  bin=$scratch/b$i/gpu/acoustic
  "$ncu" --clock-control none --metrics "$metrics" --csv --print-units base \
    "$bin" --backend cuda --n "$n" --steps 1 --init random >"$scratch/ncu$i.csv" 2>"$scratch/ncu$i.err"
  python3 - "$scratch/ncu$i.csv" >>"$md" <<'EOF'
import csv, sys, re
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    print("(no ncu rows)\n"); sys.exit(0)
head, data = rows[0], rows[1:]
ix = {h: k for k, h in enumerate(head)}
kern = {}
order = []
for r in data:
    key = r[ix["ID"]]
    if key not in kern:
        kern[key] = {"name": r[ix["Kernel Name"]], "grid": r[ix.get("Grid Size", 0)], "block": r[ix.get("Block Size", 0)]}
        order.append(key)
    kern[key][r[ix["Metric Name"]]] = r[ix["Metric Value"]].replace(",", "")
print("| # | kernel | grid | block | regs | dyn smem | occupancy % | µs | DRAM MB read | written | GB/s | L2 MB read by SMs | L2 hit % |")
print("| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
tot = 0.0
for k in order:
    m = kern[k]
    name = re.sub(r"\(.*", "", m["name"]).split("::")[-1]
    t = float(m.get("gpu__time_duration.sum", 0)) * 1e-3  # ns -> us
    rd = float(m.get("dram__bytes_read.sum", 0)) / 1e6
    wr = float(m.get("dram__bytes_write.sum", 0)) / 1e6
    tot += t
    sec = float(m.get("lts__t_sectors_srcunit_tex_op_read.sum", 0))
    l2 = sec * 32 / 1e6
    hit = 100.0 * float(m.get("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 0)) / sec if sec > 0 else 0
    gbs = (rd + wr) / t * 1e3 if t > 0 else 0  # MB/us = TB/s; x1000 = GB/s
    print(f"| {k} | {name} | {m['grid']} | {m['block']} | {m.get('launch__registers_per_thread','')} | "
          f"{m.get('launch__shared_mem_per_block_dynamic','')} | {float(m.get('sm__warps_active.avg.pct_of_peak_sustained_active',0)):.1f} | "
          f"{t:.1f} | {rd:.1f} | {wr:.1f} | {gbs:.0f} | {l2:.1f} | {hit:.1f} |")
print(f"\nSum of kernel durations: **{tot:.1f} µs**.\n")
EOF
  tail -n 5 "$scratch/ncu$i.err" | sed 's/^/    /' >>"$md"
  if [[ ${PROFILE_SASS:-0} == 1 ]] && command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$bin" >"$scratch/sass$i.txt" 2>/dev/null
    python3 "$here/../../scripts/gpu/sass_summary.py" "$scratch/sass$i.txt" >>"$md"
  fi
done
cat "$md"
