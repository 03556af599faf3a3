#!/usr/bin/env bash
# Experiment helper (session 38, issue 8): the sample's lanes with stream priorities that reach the step's graph.
#
#   prio.sh [SEDSCRIPT [STNC FLAGS...]] GEN/acoustic.cu
#
# ab.sh's SED slot ('!bash samples/acoustic/exp/prio.sh ...') runs this with the generated acoustic.cu appended.
# With a SEDSCRIPT it first regenerates the folder through restn.sh (acoustic.stn edited, e.g. the shell's block),
# then patches acoustic.cu: the region kernels' lanes come from stnc_exp::prioLanes (lane 0, the inner region's
# launch, at the device's greatest stream priority, the shell's lanes at the least) instead of
# stnc_rt::threadLanes, and the step's graph is instantiated with cudaGraphInstantiateFlagUseNodePriority (a
# captured kernel node keeps its stream's priority only under that flag). Session 16 measured this with 16x16
# shell blocks, which cannot fit beside the inner kernel's two per SM: no change. With shell blocks that fit
# (16x8), the block scheduler should fill each SM with inner blocks first and the shell's blocks take what is left.
set -euo pipefail
(($# >= 1)) || { echo "prio.sh: usage: prio.sh [SEDSCRIPT [FLAGS...]] GEN/acoustic.cu" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cu=${*: -1}
(($# >= 2)) && bash "$here/restn.sh" "$@"
grep -q 'stnc_rt::threadLanes(' "$cu" || { echo "prio.sh: no threadLanes call in $cu" >&2; exit 1; }
grep -q 'cudaGraphInstantiate(&exec_, graph_, 0)' "$cu" || { echo "prio.sh: no graph instantiation in $cu" >&2; exit 1; }
cat >"$cu.prio" <<'EOF'
// prio.sh: lanes with stream priorities (lane 0 greatest), made once per host thread; nullptr on failure.
namespace stnc_exp {
inline stnc_rt::Lanes* prioLanes(int n) {
  thread_local stnc_rt::Lanes l;
  thread_local bool made = false, ok = false;
  if (!made) {
    made = true;
    int least = 0, greatest = 0;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&l.fork, cudaEventDisableTiming);
    for (int i = 0; e == cudaSuccess && i < n && i < stnc_rt::Lanes::kMax; ++i) {
      e = cudaStreamCreateWithPriority(&l.s[i], cudaStreamNonBlocking, i == 0 ? greatest : least);
      if (e == cudaSuccess) e = cudaEventCreateWithFlags(&l.done[i], cudaEventDisableTiming);
      if (e == cudaSuccess) ++l.n;
    }
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
    ok = e == cudaSuccess;
    if (!ok) (void)cudaGetLastError();
    else std::fprintf(stderr, "prio.sh: %d lanes, priorities %d (lane 0) and %d\n", l.n, greatest, least);
  }
  return ok ? &l : nullptr;
}
}  // namespace stnc_exp
EOF
first=$(grep -n '^namespace stn::' "$cu" | head -n 1 | cut -d: -f1)
[[ -n $first ]] || { echo "prio.sh: no 'namespace stn::' in $cu" >&2; exit 1; }
sed -i -e "$((first - 1))r $cu.prio" -e 's/stnc_rt::threadLanes(/stnc_exp::prioLanes(/g' \
  -e 's/cudaGraphInstantiate(&exec_, graph_, 0)/cudaGraphInstantiate(\&exec_, graph_, cudaGraphInstantiateFlagUseNodePriority)/g' "$cu"
rm -f "$cu.prio"
