#!/usr/bin/env bash
# samples/acoustic/ab.sh — A/B of flag variants in the sample's own step loop (the issue-8 number), on a GPU machine.
#
#   STNC=build-static/stnc bash samples/acoustic/ab.sh [LABEL[:RUNARGS]=FLAGS[|NVCCFLAGS[|SED]] ...]
#   (RUNARGS: passed to the variant's acoustic runs, e.g. 'prof:--eta profiles=' for the lower-rank eta)
#
# Builds every variant in parallel (variants.sh; without arguments: the policy alone), then for each
# variant runs `acoustic --check --backend cuda` once (every case, or with AB_CHECK=cpu only the CUDA vs
# CPU kernel cases: a variant that reassociates, e.g. --fp-contract=on, cannot equal the plain-loop
# reference bit for bit, but must still equal the CPU backend) and then AB_ROUNDS (default 2) rounds of
#   acoustic --bench --n AB_N (800) --steps 1000 --chunk 100 --init random, then --init zero
# interleaved across the variants (A B A B ...: one board's drift and power state hit all alike), each under
# scripts/smi-sample.sh (clocks, power, power-cap share). Prints one table row per run and writes
# $OUT/acoustic-ab.md (OUT defaults to samples/acoustic/out). AB_SANITIZE=all (or LABEL,LABEL...) also runs
# every (every named) variant under compute-sanitizer, racecheck then memcheck, on one case
# `--compare --size 128x120x112 --steps 3 --init random` (a patched kernel's shared-memory rings are what
# racecheck is for); a finding fails the script.
# Every stage has a time limit; the whole script ends within AB_BUDGET seconds (default 420). Exit status 0
# only if every build, check, sanitizer run and timed run succeeded.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 2
start=$(date +%s)
deadline=$((start + ${AB_BUDGET:-420}))
out=${OUT:-$here/out}
mkdir -p "$out" || exit 2
md=$out/acoustic-ab.md
log=$out/acoustic-ab.log
: >"$log"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/stnc-acoustic-ab.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

source "$here/variants.sh"
prepareTools ab.sh "$scratch" || exit 2
unset MAKEFLAGS MFLAGS MAKELEVEL
rounds=${AB_ROUNDS:-2} n=${AB_N:-800}
case $rounds in '' | *[!0-9]*) echo "ab.sh: error: AB_ROUNDS must be a number, not '$rounds'" >&2; exit 2 ;; esac
case ${AB_CHECK:-all} in all | cpu | none) ;; *) echo "ab.sh: error: AB_CHECK must be all, cpu or none" >&2; exit 2 ;; esac

variants=("$@")
((${#variants[@]})) || variants=("policy=")
buildVariants "$scratch" "${variants[@]}"

ok=1
built=()
for i in "${!variants[@]}"; do
  if wait "${pids[$i]}"; then
    built+=("$i")
  else
    ok=0
    echo "== build ${labels[$i]} FAILED:" | tee -a "$log"
    tail -n 30 "$scratch/build$i.log" | tee -a "$log"
  fi
done

# limited LIMIT CMD...: CMD with at most LIMIT seconds (less if the budget is nearly spent); 124 = not run/cut.
limited() {
  local limit=$1 left=$((deadline - $(date +%s)))
  shift
  ((limit > left)) && limit=$left
  ((limit < 5)) && { echo "(skipped: the time budget is spent)"; return 124; }
  timeout --kill-after=5 "$limit" "$@"
}

checks=()
for i in "${built[@]}"; do
  bin=$scratch/b$i/gpu/acoustic
  echo "== check ${labels[$i]} (${AB_CHECK:-all})" >>"$log"
  if [[ ${AB_CHECK:-all} == none ]]; then
    checks[$i]=skipped
    continue
  fi
  limited 90 env OMP_WAIT_POLICY=passive "$bin" --check --backend cuda ${runargs[$i]} >"$scratch/check$i.out" 2>&1
  rc=$?
  cat "$scratch/check$i.out" >>"$log"
  if [[ ${AB_CHECK:-all} == cpu ]]; then
    # Only the "stnc cuda vs stnc cpu" cases decide; the reference cases are printed, not judged.
    if ((rc == 124)) || grep -q 'cuda vs stnc cpu.*\(MISMATCH\|NOT FINITE\|NO SIGNAL\)' "$scratch/check$i.out" ||
       ! grep -q 'cuda vs stnc cpu.* ok$' "$scratch/check$i.out"; then checks[$i]=FAILED; ok=0; else checks[$i]="cuda = cpu"; fi
  else
    if ((rc == 0)); then checks[$i]=PASSED; else checks[$i]=FAILED; ok=0; fi
  fi
done

sanit=()
if [[ -n ${AB_SANITIZE:-} ]]; then
  for i in "${built[@]}"; do
    [[ $AB_SANITIZE == all || ,$AB_SANITIZE, == *,${labels[$i]},* ]] || continue
    bin=$scratch/b$i/gpu/acoustic
    sanit[$i]=clean
    for tool in racecheck memcheck; do
      echo "== compute-sanitizer --tool $tool ${labels[$i]}" >>"$log"
      limited 150 compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin" --compare ${runargs[$i]} --size 128x120x112 --steps 3 \
        --init random --backend cuda >"$scratch/san$i-$tool.out" 2>&1
      rc=$?
      cat "$scratch/san$i-$tool.out" >>"$log"
      if ((rc != 0)); then sanit[$i]="$tool FAILED (rc $rc)"; ok=0; break; fi
    done
  done
fi

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
rows=()
for ((r = 1; r <= rounds; ++r)); do
  for init in random zero; do
    for i in "${built[@]}"; do
      bin=$scratch/b$i/gpu/acoustic
      f=$scratch/run-$i-$r-$init.out
      echo "== run ${labels[$i]} round $r $init" >>"$log"
      limited 75 bash "$root/scripts/smi-sample.sh" "$bin" --bench --backend cuda ${runargs[$i]} --n "$n" --steps 1000 --chunk 100 \
        --init "$init" >"$f" 2>&1 || ok=0
      cat "$f" >>"$log"
      res=$(grep '^RESULT' "$f" | tail -n 1)
      smiLine=$(grep '^nvidia-smi:' "$f" | sed 's/^nvidia-smi: //')
      if [[ -z $res ]]; then
        rows+=("| ${labels[$i]} | $r | $init | **no result** | | | | | |")
        ok=0
        continue
      fi
      rows+=("| ${labels[$i]} | $r | $init | **$(field gpts_median "$res")** | $(field gpts_mean "$res") | $(field median_ms "$res") |"\
" $(field b2b_sweep_ms "$res") | $(field inner_sweep_ms "$res") | ${smiLine:-} |")
    done
  done
done

{
  echo "# samples/acoustic A/B in the step loop — $(date -Is)"
  echo
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1). Grid ${n}³ f32,"
  echo "1000 timed steps (10 x step(100), CUDA events, after 20 warm-up steps) per run; runs interleaved across the variants."
  echo "Command: \`STNC=${STNC:-build-static/stnc} AB_ROUNDS=$rounds AB_CHECK=${AB_CHECK:-all} AB_SANITIZE=${AB_SANITIZE:-} bash samples/acoustic/ab.sh ${variants[*]@Q}\`"
  echo
  echo "| variant | flags (stnc \| nvcc \| sed) | check | compute-sanitizer |"
  echo "| --- | --- | --- | --- |"
  for i in "${!variants[@]}"; do echo "| ${labels[$i]} | \`${variants[$i]#*=}\` | ${checks[$i]:-not built} | ${sanit[$i]:-not run} |"; done
  echo
  echo "| variant | round | init | Gpts/s (median) | Gpts/s (mean) | median ms/step | b2b sweep ms | inner sweep ms | nvidia-smi |"
  echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Elapsed $(($(date +%s) - start)) s. $( ((ok)) && echo 'Every build, check and run succeeded.' || echo '**Something FAILED: see acoustic-ab.log.**')"
} >"$md"
cat "$md"
((ok)) && exit 0 || exit 1
