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
# Needs $here (this folder) and $stnc (the stnc binary).
buildVariants() {
  local scratch=$1
  shift
  labels=() pids=()
  local i=0 v label flags nvflags sedscript
  for v in "$@"; do
    label=${v%%=*} flags=${v#*=} nvflags= sedscript=
    [[ $flags == *'|'* ]] && nvflags=${flags#*|} flags=${flags%%|*}
    [[ $nvflags == *'|'* ]] && sedscript=${nvflags#*|} nvflags=${nvflags%%|*}
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
