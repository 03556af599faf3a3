#!/usr/bin/env bash
# Experiment helper (session 37, issue 8): a variant of the sample compiled by another stnc binary (an older
# compiler, to A/B compiler changes on the same acoustic.stn), for ab.sh.
#
#   withstnc.sh OTHER_STNC [STNC FLAGS...] GEN/acoustic.cu
#
# ab.sh's SED slot ('!bash samples/acoustic/exp/withstnc.sh build-old/stnc ...') runs this with the generated
# acoustic.cu appended: it regenerates acoustic.cu, .h, .cpp and .json into the same folder from
# samples/acoustic/acoustic.stn with OTHER_STNC and the given flags (repeat the variant's FLAGS), so the CUDA
# and CPU kernels of the variant both come from that compiler. (variants.sh fails the variant when the output is
# byte-identical to what the current stnc generated: nothing to compare.)
set -euo pipefail
(($# >= 2)) || { echo "withstnc.sh: usage: withstnc.sh OTHER_STNC [FLAGS...] GEN/acoustic.cu" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
other=$1
shift
cu=${*: -1}
flags=("${@:1:$#-1}")
[[ -f $other ]] || { echo "withstnc.sh: no stnc at '$other'" >&2; exit 2; }
if [[ ! -x $other ]]; then cp "$other" "$(dirname "$cu")/other-stnc" && chmod +x "$(dirname "$cu")/other-stnc" && other=$(dirname "$cu")/other-stnc; fi
"$other" "$here/acoustic.stn" -o "$(dirname "$cu")" --target all --arch sm_90 "${flags[@]}"
