#!/usr/bin/env bash
# Experiment helper (session 36, issue 8): a variant of the sample with its acoustic.stn edited, for ab.sh.
#
#   restn.sh SEDSCRIPT [STNC FLAGS...] GEN/acoustic.cu
#
# ab.sh's SED slot ('!bash samples/acoustic/exp/restn.sh ...') runs this with the generated acoustic.cu appended:
# it applies SEDSCRIPT to a copy of samples/acoustic/acoustic.stn (e.g. a per-part schedule key the command line
# cannot give one part alone) and regenerates acoustic.cu and acoustic.h into the same folder with the given stnc
# flags (repeat the variant's FLAGS). $STNC (default build-static/stnc) and $STNC_STDLIB as for ab.sh.
set -euo pipefail
(($# >= 2)) || { echo "restn.sh: usage: restn.sh SEDSCRIPT [FLAGS...] GEN/acoustic.cu" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
script=$1
shift
cu=${*: -1}
flags=("${@:1:$#-1}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e "$script" "$here/acoustic.stn" >"$tmp/acoustic.stn"
if cmp -s "$here/acoustic.stn" "$tmp/acoustic.stn"; then echo "restn.sh: the sed script changed nothing" >&2; exit 1; fi
diff "$here/acoustic.stn" "$tmp/acoustic.stn" || true
"${STNC:-build-static/stnc}" "$tmp/acoustic.stn" -o "$(dirname "$cu")" --target all --arch sm_90 "${flags[@]}"
