#!/usr/bin/env bash
# scripts/bench-variants.sh "LABEL=STNC FLAGS" ... : one benchmark run per variant (no peers, no
# validation unless BENCH_VALIDATE=1), then one table of median µs per kernel and variant, so a
# schedule policy can be chosen from one device call. Writes $OUT/variants.md (+ each run's files).
#   STNC=build-static/stnc bash scripts/bench-variants.sh "base=" "pf2=--prefetch 2" "fma=--fp-contract=on"
# Extra arguments for bench.sh: BENCH_ARGS (e.g. "--only star7_c,box125_rt").
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/bench-results}
mkdir -p "$OUT"
[[ $# -gt 0 ]] || { sed -n 2,6p "$0"; exit 2; }
labels=()
for v in "$@"; do
  label=${v%%=*} flags=${v#*=}
  labels+=("$label")
  extra=(--no-peers)
  [[ ${BENCH_VALIDATE:-0} == 1 ]] || extra+=(--no-validate)
  echo "== variant $label: STNC_FLAGS='$flags'"
  OUT="$OUT/v-$label" STNC_FLAGS="$flags" bash "$ROOT/scripts/bench.sh" "${extra[@]}" ${BENCH_ARGS:-} > "$OUT/v-$label.log" 2>&1 \
    || echo "variant $label: bench.sh failed (see v-$label.log)"
  tail -n 3 "$OUT/v-$label.log"
done
python3 - "$OUT" "${labels[@]}" "$@" <<'PY'
import glob, json, sys
out, n = sys.argv[1], (len(sys.argv) - 2) // 2
labels, specs = sys.argv[2:2 + n], sys.argv[2 + n:]
runs = {}
for l in labels:
    f = sorted(glob.glob("%s/v-%s/bench-*.json" % (out, l)))
    runs[l] = {r["id"]: r for r in json.load(open(f[-1]))["table"]} if f else {}
ids = []
for l in labels:
    for i in runs[l]:
        if i not in ids: ids.append(i)
L = ["# Schedule variants", "", "Median µs (fraction of floor); variants:", ""]
L += ["- **%s**: `%s`" % (l, s.split("=", 1)[1] or "(defaults)") for l, s in zip(labels, specs)]
L += ["", "| kernel | " + " | ".join(labels) + " | best |", "|---|" + "---:|" * (len(labels) + 1)]
for i in ids:
    cells, best = [], None
    for l in labels:
        r = runs[l].get(i)
        if not r or r.get("median_us") is None:
            cells.append("–"); continue
        cells.append("%.1f (%.2f)" % (r["median_us"], r["fraction_of_floor"] or 0))
        if best is None or r["median_us"] < best[1]: best = (l, r["median_us"])
    L.append("| %s | %s | %s |" % (i, " | ".join(cells), best[0] if best else "–"))
md = "\n".join(L) + "\n"
open(out + "/variants.md", "w").write(md)
print(md)
PY
