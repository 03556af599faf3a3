#!/usr/bin/env bash
# Tile shapes for star stencils of in-plane reach 1-3 in f32 and f64 (session 22's question, left open: the
# policy's wider f64 tiles were measured on the suite's 256^3 f64 rows; does f32 want them too?).
# Writes 7/13/19-point stars (constant coefficients) as .stn, random inputs as .npy, and times each with
# `stnc run --backend cuda --bench R` (median ms per sweep, cold L2) under every --block/--vec variant below,
# checking each variant's output against the policy's bit for bit. Prints one markdown table.
#   STNC=build-static/stnc bash bench/tiles/run.sh [N] [R]      (defaults 512, 30; BACKEND=cpu for a dry run;
#   TYPES="f32" or REACHES="1 2" for a subset)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" tiles  # root, stnc, work, nvcc
n=${1:-512} reps=${2:-30} backend=${BACKEND:-cuda}
# LABEL=FLAGS, separated by ';'
VARIANTS=${VARIANTS:-"policy=;16x16=--block 16x16;32x8=--block 32x8;64x4=--block 64x4;64x6=--block 64x6;64x4p3=--block 64x4 --prefetch 3"}
IFS=';' read -r -a variants <<< "$VARIANTS"
star() {  # star NAME TYPE R: a (6R+1)-point star with constant coefficients
  local e="0.4 * u" d
  for ((d = 1; d <= $3; d++)); do
    e="$e + 0.1 * (u[i-$d,j,k] + u[i+$d,j,k] + u[i,j-$d,k] + u[i,j+$d,k] + u[i,j,k-$d] + u[i,j,k+$d]) / $d.0"
  done
  printf 'stencil %s(i, j, k) : %s {\n  in u; out v;\n  v = %s;\n}\n' "$1" "$2" "$e" > "$work/$1.stn"
}
echo "# Tile shapes by reach and type (bench/tiles/run.sh), $(date -Is), $n^3, $reps sweeps, backend $backend"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null || true
echo
header="| stencil |"
for v in "${variants[@]}"; do header="$header ${v%%=*} |"; done
echo "$header (median ms per sweep; GB/s; = when the output has the policy's bits)"
echo "|---|$(for v in "${variants[@]}"; do printf -- '---:|'; done)"
# Build every (stencil, variant) first, BUILD_JOBS at a time, on a 8^3 grid: stnc run caches the compiled
# code, so the timed runs below start at once (nvcc, not the GPU, is what takes the time here).
for t in ${TYPES:-f32 f64}; do
  for r in ${REACHES:-1 2 3}; do
    name=star$((6 * r + 1))_$t
    star "$name" "$t" "$r"
    python3 "$root/bench/tiles/random_npy.py" "$work/small_$name.npy" "$t" $((8 + 2 * r)) "$r"
    for v in "${variants[@]}"; do
      # shellcheck disable=SC2086
      printf '%s\0' "$stnc run $work/$name.stn --stencil $name --size 8x8x8 --backend $backend --in u=$work/small_$name.npy ${v#*=}"
    done
  done
done | xargs -0 -P "${BUILD_JOBS:-$(nproc)}" -I{} sh -c '{} > /dev/null 2>&1' || true
for t in ${TYPES:-f32 f64}; do
  for r in ${REACHES:-1 2 3}; do
    name=star$((6 * r + 1))_$t
    h=$((n + 2 * r))
    python3 "$root/bench/tiles/random_npy.py" "$work/u.npy" "$t" "$h" "$r"
    row="| $name |"
    for v in "${variants[@]}"; do
      label=${v%%=*} flags=${v#*=}
      # shellcheck disable=SC2086
      out=$("$stnc" run "$work/$name.stn" --stencil "$name" --size "${n}x${n}x${n}" --backend "$backend" --in u="$work/u.npy" \
            --out v="$work/v_$label.npy" --bench "$reps" $flags 2>&1) || { row="$row failed |"; echo "$out" | tail -3 >&2; continue; }
      ms=$(echo "$out" | sed -n 's/.*median \([0-9.]*\) ms\/sweep.*/\1/p')
      gbs=$(echo "$out" | sed -n 's/.*, \([0-9.]*\) GB\/s effective.*/\1/p')
      same="="
      [[ $label == policy ]] || cmp -s "$work/v_policy.npy" "$work/v_$label.npy" || same="MISMATCH"
      row="$row $ms; $gbs; $same |"
    done
    echo "$row"
    rm -f "$work"/*.npy
  done
done
