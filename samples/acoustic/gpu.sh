#!/usr/bin/env bash
# samples/acoustic/gpu.sh — the acoustic sample on a GPU machine: CUDA build, check-gpu, 800^3 benchmark.
#
#   STNC=build-static/stnc bash samples/acoustic/gpu.sh          (from anywhere; paths are the tree's)
#
# 1. make GPU=1 with the given stnc (a carried static build; STNC_STDLIB defaults to the tree's stdlib/);
#    the same commands spelled out when make is missing; PNG images if <png.h> is there, else PPM
# 2. check-gpu (= make GPU=1 check-gpu): CUDA vs the reference (64^3 200 steps, 60x64x72 201 steps) and
#    CUDA vs the CPU kernels (128x120x112, 1000 steps random / 999 steps zero fields), all bit for bit
# 3. acoustic --bench at 800^3, 1000 steps (+20 warm-up), random fields, then zero fields: CUDA events
#    around each step(100) call, median and mean per step, Gpts/s; one-sweep breakdown inner vs PML; then
#    both again with --eta profiles (eta as three 1-D profiles, stencil acoustic_sep)
# 4. if time is left: a 400^3 demo run, $OUT/acoustic.png ($OUT/acoustic.ppm without libpng)
# Writes $OUT/acoustic-gpu.md (the report, also printed at the end) and $OUT/acoustic-gpu.log (all output).
# OUT defaults to samples/acoustic/out (git-ignored). Every stage has a time limit: the whole script ends
# within ACOUSTIC_GPU_BUDGET seconds (default 345). Exit status 0 only if stages 1-3 all succeeded.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 2
start=$(date +%s)
deadline=$((start + ${ACOUSTIC_GPU_BUDGET:-345}))

out=${OUT:-$here/out}
mkdir -p "$out" || exit 2
log=$out/acoustic-gpu.log
md=$out/acoustic-gpu.md
: >"$log"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/stnc-acoustic.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

stnc=${STNC:-build-static/stnc}
[[ $stnc = /* ]] || stnc=$root/$stnc
if [[ ! -f $stnc ]]; then
  echo "acoustic gpu.sh: error: no stnc at '$stnc' (build-static/stnc: cmake -S . -B build-static -G Ninja" \
       "-DSTNC_STATIC=ON -DCMAKE_BUILD_TYPE=Release && cmake --build build-static; or set STNC)" >&2
  exit 2
fi
if [[ ! -x $stnc ]]; then  # a carried file may lose its mode bits
  cp "$stnc" "$scratch/stnc" && chmod +x "$scratch/stnc" && stnc=$scratch/stnc
fi
export STNC_STDLIB=${STNC_STDLIB:-$root/stdlib}  # the binary's built-in path is the build machine's
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
if [[ -z ${CXX:-} ]] && ! command -v c++ >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then export CXX=g++; fi
unset MAKEFLAGS MFLAGS MAKELEVEL
build=$scratch/build
bin=$build/gpu/acoustic
jobs=$(nproc 2>/dev/null || echo 4)

names=() rcs=() secs=() files=()
# stage NAME LIMIT CMD...: runs CMD with at most LIMIT seconds (less if the budget is nearly spent),
# output to $scratch/NAME.out and the log.
stage() {
  local name=$1 limit=$2
  shift 2
  local left=$((deadline - $(date +%s)))
  ((limit > left)) && limit=$left
  local f=$scratch/$name.out t0 rc
  t0=$(date +%s)
  echo "== $name: $* (limit ${limit}s)" | tee -a "$log"
  if ((limit < 5)); then
    echo "skipped: the time budget is spent" | tee "$f" >>"$log"
    rc=124
  else
    timeout --kill-after=5 "$limit" "$@" >"$f" 2>&1
    rc=$?
    ((rc == 124 || rc == 137)) && echo "(stopped after ${limit}s: time limit)" >>"$f"
    cat "$f" >>"$log"
  fi
  echo "== $name: exit $rc, $(($(date +%s) - t0)) s" | tee -a "$log"
  names+=("$name") rcs+=("$rc") secs+=("$(($(date +%s) - t0))") files+=("$f")
  return "$rc"
}

{
  echo "== acoustic gpu.sh: $(date -Is) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1 || echo "(nvidia-smi unavailable)"
  nvcc --version 2>&1 | tail -n 2
  ${CXX:-c++} --version 2>&1 | head -n 1
  "$stnc" --version 2>&1
} | tee -a "$log"

# Without GNU make: the Makefile's GPU=1 build spelled out (same flags; PNG when <png.h> compiles).
build_direct() {
  local gen=$build/gen obj=$build/gpu cxx=${CXX:-c++} png=0 cuda_home
  cuda_home=$(cd "$(dirname "$(readlink -f "$(command -v nvcc)")")/.." && pwd)
  mkdir -p "$gen" "$obj" || return 1
  printf '#include <png.h>\n' | "$cxx" -x c++ -fsyntax-only - >/dev/null 2>&1 && png=1
  local cxxflags=(-std=c++17 -fopenmp -ffp-contract=off -Wall -Wextra -O3)
  local cppflags=(-I"$gen" -DACOUSTIC_PNG=$png -DSTNC_WITH_CUDA -I"$cuda_home/include")
  local libs=(-lm -L"$cuda_home/lib64" -lcudart_static -ldl -lrt -lpthread)
  ((png)) && libs=(-lpng "${libs[@]}")
  set -x
  "$stnc" "$here/acoustic.stn" -o "$gen" --target all --arch sm_90 || return 1
  "$cxx" "${cppflags[@]}" "${cxxflags[@]}" -c "$here/main.cpp" -o "$obj/main.o" &
  local p1=$!
  "$cxx" "${cppflags[@]}" "${cxxflags[@]}" -c "$gen/acoustic.cpp" -o "$obj/acoustic.o" &
  local p2=$!
  nvcc -std=c++17 -arch=sm_90 -fmad=false -I"$gen" -O3 -c "$gen/acoustic.cu" -o "$obj/acoustic_cu.o" || return 1
  wait $p1 || return 1
  wait $p2 || return 1
  "$cxx" "${cxxflags[@]}" "$obj/main.o" "$obj/acoustic.o" "$obj/acoustic_cu.o" -o "$bin" "${libs[@]}"
}

ok=1
if [[ -z ${ACOUSTIC_NO_MAKE:-} ]] && command -v make >/dev/null 2>&1; then
  stage build 150 make -C "$here" -j"$jobs" all GPU=1 STNC="$stnc" O="$build" || ok=0
else
  export -f build_direct
  export build bin stnc here
  stage build 150 bash -c build_direct || ok=0
fi
if [[ -x $bin ]]; then
  # = make GPU=1 check-gpu
  stage check-gpu 75 env OMP_WAIT_POLICY=passive "$bin" --check --backend cuda || ok=0
  # Clocks and power sampled during each benchmark (the board is power-capped in sustained runs).
  smi=$root/scripts/smi-sample.sh
  stage bench-random 60 bash "$smi" "$bin" --bench --backend cuda --n 800 --steps 1000 --chunk 100 --init random || ok=0
  stage bench-zero 60 bash "$smi" "$bin" --bench --backend cuda --n 800 --steps 1000 --chunk 100 --init zero || ok=0
  # The same with eta as three 1-D profiles (stencil acoustic_sep: lower-rank fields, the same bits).
  stage bench-random-profiles 60 bash "$smi" "$bin" --bench --backend cuda --eta profiles --n 800 --steps 1000 --chunk 100 --init random || ok=0
  stage bench-zero-profiles 60 bash "$smi" "$bin" --bench --backend cuda --eta profiles --n 800 --steps 1000 --chunk 100 --init zero || ok=0
  # A picture: acoustic.png, or acoustic.ppm where the build has no libpng.
  stage demo 25 "$bin" --backend cuda --n 400 --steps 1300 --png "$out/acoustic.png" || true
else
  ok=0
fi

# ---- the report ------------------------------------------------------------------------------------
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
{
  echo "# samples/acoustic on the GPU — $(date -Is)"
  echo
  echo "| | |"
  echo "| --- | --- |"
  echo "| host | $(hostname), $(nproc 2>/dev/null) cores |"
  echo "| GPU | $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null | head -n 1 || true) |"
  echo "| nvcc | $(nvcc --version 2>&1 | tail -n 1) |"
  echo "| host C++ | $(${CXX:-c++} --version 2>&1 | head -n 1) |"
  echo "| stnc | $("$stnc" --version 2>&1 | head -n 1) (${STNC:-build-static/stnc}) |"
  echo "| command | \`STNC=${STNC:-build-static/stnc} bash samples/acoustic/gpu.sh\` |"
  echo "| elapsed | $(($(date +%s) - start)) s |"
  echo
  echo "| stage | exit | seconds |"
  echo "| --- | --- | --- |"
  for i in "${!names[@]}"; do
    echo "| ${names[$i]} | ${rcs[$i]}$( ((rcs[i] == 0)) || echo ' **FAILED**') | ${secs[$i]} |"
  done
  echo
  results=$(cat "$scratch"/bench-*.out 2>/dev/null | grep '^RESULT' || true)
  if [[ -n $results ]]; then
    echo "800³ f32 (27-cell PML on every side inside the 800³), 1000 timed steps after 20 warm-up steps, CUDA events"
    echo "around each \`cuda::step(100)\` call (fill, inner + 6 PML-slab kernels, source kernel, swap; a 2-step CUDA graph"
    echo "replayed), per-step time = call time / 100. Gpts/s = 800³ / time per step. The sweep columns are single"
    echo "\`cuda::sweep\` / \`cuda::sweep_box(inner)\` calls (median of 10, each synchronised); b2b: 200 \`cuda::sweep\` calls"
    echo "back to back (one event pair: as hot as the step loop)."
    echo
    echo "| eta | init | median ms/step | mean ms/step | Gpts/s (median) | Gpts/s (mean) | one sweep ms | inner-only sweep ms | b2b sweep ms | finite |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    while read -r line; do
      echo "| $(field eta "$line") | $(field init "$line") | $(field median_ms "$line") | $(field mean_ms "$line") | **$(field gpts_median "$line")** |" \
           "$(field gpts_mean "$line") | $(field sweep_ms "$line") | $(field inner_sweep_ms "$line") | $(field b2b_sweep_ms "$line") | $(field finite "$line") |"
    done <<<"$results"
    echo
    for b in bench-random bench-zero bench-random-profiles bench-zero-profiles; do  # scripts/smi-sample.sh's line: clocks and power during the run
      smiLine=$(grep -h '^nvidia-smi:' "$scratch/$b.out" 2>/dev/null || true)
      [[ -n $smiLine ]] && echo "- $b: $smiLine"
    done
    echo
  fi
  for i in "${!names[@]}"; do
    [[ ${names[$i]} == build ]] && [[ ${rcs[$i]} == 0 ]] && continue
    echo "## ${names[$i]}"
    echo
    echo '```'
    tail -n 40 "${files[$i]}"
    echo '```'
    echo
  done
  for img in "$out"/acoustic.png "$out"/acoustic.ppm; do
    [[ -f $img ]] && echo "Demo slice: \`$(basename "$img")\` (plane j = 200 of a 400³ run, 1300 steps, layered model)." && echo
  done
  if ((ok)); then echo "**Result: build, check-gpu and the four benchmarks succeeded.**"; else echo "**Result: FAILED (see above).**"; fi
} >"$md"
cat "$md"
((ok)) && exit 0 || exit 1
