#!/usr/bin/env bash
# Zero-numerator division experiment (session 10): builds bench/divide/zero_numerator.cu and runs it;
# prints a markdown table (plain a / b vs stnc_rt::divide, random vs zero numerators, bit-identity).
#   bash bench/divide/run.sh          BUILD_ONLY=1: build only (CI does that: tests/bench)
source "$(dirname "${BASH_SOURCE[0]}")/../common/prelude.sh" divide  # root, stnc, work, nvcc
"$nvcc" -O3 -std=c++17 -arch=sm_90 -Werror all-warnings "$root/bench/divide/zero_numerator.cu" -o "$work/zero_numerator"
[[ ${BUILD_ONLY:-0} == 1 ]] && { echo "built $work/zero_numerator"; exit 0; }
echo "# Division with zero numerators (bench/divide/run.sh), $(date -Is)"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null || true
"$work/zero_numerator"
