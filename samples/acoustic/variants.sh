# samples/acoustic/variants.sh — sourced by profile.sh and ab.sh: builds the sample once per flag variant.
#
#   buildVariants SCRATCH LABEL=FLAGS[|NVCCFLAGS[|SED]] ...
#
# Each variant i is built in SCRATCH/b$i (make GPU=1 with STNC_FLAGS=FLAGS, NVCCFLAGS="-O3 NVCCFLAGS"; SED, when
# given, is a sed script applied to the generated acoustic.cu before nvcc compiles it, or, starting with '!', a
# command run with that file's path appended (a patch script: '!python3 samples/acoustic/exp/kbox.py'); either
# must change the file).
# Builds run in parallel; log SCRATCH/build$i.log. Sets the arrays `labels` (LABEL per variant) and `pids`
# (the build's process; `wait ${pids[i]}` gives its status); the binary is SCRATCH/b$i/gpu/acoustic.
# Needs $here (this folder) and $stnc (the stnc binary: prepareTools).
#
#   prepareTools NAME SCRATCH
#
# Sets $stnc from $STNC (default build-static/stnc, relative to $root), copied into SCRATCH when a carried file lost
# its mode bits; STNC_STDLIB defaults to the tree's stdlib/; /usr/local/cuda/bin joins PATH when nvcc is missing.
# Returns 1 (after an error naming NAME) when there is no stnc.
prepareTools() {
  local name=$1 scratch=$2
  stnc=${STNC:-build-static/stnc}
  [[ $stnc = /* ]] || stnc=$root/$stnc
  [[ -f $stnc ]] || { echo "$name: error: no stnc at '$stnc'" >&2; return 1; }
  if [[ ! -x $stnc ]]; then cp "$stnc" "$scratch/stnc" && chmod +x "$scratch/stnc" && stnc=$scratch/stnc; fi
  export STNC_STDLIB=${STNC_STDLIB:-$root/stdlib}
  if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
  return 0
}

buildVariants() {
  local scratch=$1
  shift
  labels=() pids=() runargs=()
  local i=0 v label flags nvflags sedscript
  for v in "$@"; do
    label=${v%%=*} flags=${v#*=} nvflags= sedscript=
    [[ $flags == *'|'* ]] && nvflags=${flags#*|} flags=${flags%%|*}
    [[ $nvflags == *'|'* ]] && sedscript=${nvflags#*|} nvflags=${nvflags%%|*}
    # LABEL:ARGS=...: the sample's runs of this variant get ARGS too (e.g. 'prof:--eta profiles=')
    if [[ $label == *:* ]]; then runargs+=("${label#*:}") label=${label%%:*}; else runargs+=(""); fi
    labels+=("$label")
    local build=(make -C "$here" -j4 GPU=1 STNC="$stnc" O="$scratch/b$i" STNC_FLAGS="$flags" NVCCFLAGS="-O3 $nvflags")
    (
      if [[ -n $sedscript ]]; then
        "${build[@]}" "$scratch/b$i/gen/acoustic.cu" || exit 1
        cp "$scratch/b$i/gen/acoustic.cu" "$scratch/b$i/gen/acoustic.cu.orig"
        if [[ $sedscript == '!'* ]]; then
          ${sedscript#!} "$scratch/b$i/gen/acoustic.cu" || exit 1
        else
          sed -i -e "$sedscript" "$scratch/b$i/gen/acoustic.cu" || exit 1
        fi
        if cmp -s "$scratch/b$i/gen/acoustic.cu" "$scratch/b$i/gen/acoustic.cu.orig"; then echo "the sed script changed nothing"; exit 1; fi
        diff "$scratch/b$i/gen/acoustic.cu.orig" "$scratch/b$i/gen/acoustic.cu"
      fi
      "${build[@]}" all
    ) >"$scratch/build$i.log" 2>&1 &
    pids+=($!)
    i=$((i + 1))
  done
}
