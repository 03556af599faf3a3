# Sourced by the experiment scripts under bench/ (temporal, smem, cluster, divide):
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
