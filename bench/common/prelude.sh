# Sourced by the experiment scripts under bench/ (temporal, smem, cluster, divide, hypterm):
#   source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" NAME
# sets root (the repository), stnc (STNC, default build-static/stnc, made absolute; copied and made
# executable when it arrived without the x bit, as carried binaries may), work (a scratch directory
# stnc-NAME.XXXXXX, removed on exit) and nvcc (NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stnc=${STNC:-$root/build-static/stnc}
[[ $stnc == /* ]] || stnc=$root/$stnc
work=$(mktemp -d "${TMPDIR:-/tmp}/stnc-$1.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [[ -e $stnc && ! -x $stnc ]]; then cp "$stnc" "$work/stnc" && chmod +x "$work/stnc" && stnc=$work/stnc; fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

# bench_nvcc OUT SOURCES...: the experiments' build (-fmad=false, so a hand kernel can match the generated
# expression bit for bit; -Werror; ptxas -v into $work/ptxas.txt, printed when the build fails).
bench_nvcc() {
  local out=$1
  shift
  "$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings -Xptxas -v -I "$work" -I "$root/bench/common" "$@" -o "$out" \
    2> "$work/ptxas.txt" || { cat "$work/ptxas.txt"; exit 1; }
}

# ptxas_summary REGEX: "    NAME: Used N registers, ...; spills" for each kernel in $work/ptxas.txt whose mangled
# name matches REGEX (NAME: the part of the mangled name REGEX matched).
ptxas_summary() {
  awk -v re="$1" '/Compiling entry function/ { f = match($0, re); n = substr($0, RSTART, RLENGTH) }
       f && /spill stores/ { s = $0 } f && /Used [0-9]+ registers/ { sub(/.*Used/, "Used"); print "    " n ": " $0 "; " s; f = 0 }' \
    "$work/ptxas.txt" | sed 's/  */ /g' || true
}

# bench_head TITLE HEADING REGEX BINARY: the report's first lines (title with the date, the GPU, HEADING and
# ptxas_summary REGEX); under BUILD_ONLY=1 says BINARY was built and ends the script here.
bench_head() {
  echo "# $1, $(date -Is)"
  nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null || true
  echo
  echo "$2"
  ptxas_summary "$3"
  if [[ ${BUILD_ONLY:-0} == 1 ]]; then
    echo "built $4"
    exit 0
  fi
}
