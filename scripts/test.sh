#!/usr/bin/env bash
# The one test command: installs what is missing, configures, builds and runs every test, then
# builds and runs the suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
#   ./scripts/test.sh            (build dirs: build/ and build-asan/; STNC_BUILD_DIR and
#                                 STNC_ASAN_BUILD_DIR change them; STNC_SANITIZE=0 skips the second run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build=${STNC_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${STNC_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
echo "all stnc tests passed"

if [[ ${STNC_SANITIZE:-1} != 0 ]]; then
  # -DSTNC_SANITIZE=ON: -fsanitize=address,undefined -fno-sanitize-recover=undefined on stnc, the
  # test programs and the generated code they link; -O1 -g1 (the usual sanitizer level: quicker
  # to build, line numbers in the reports). -Werror off: gcc's warnings change under the
  # sanitizers (false -Wmaybe-uninitialized and the like); the tree above keeps -Werror.
  asan=${STNC_ASAN_BUILD_DIR:-$root/build-asan}
  cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
        -DSTNC_SANITIZE=ON -DSTNC_WERROR=OFF ${STNC_CMAKE_ARGS:-}
  cmake --build "$asan" -j "$(nproc)"
  # Not run under the sanitizers (each still runs in the normal tree above):
  #  - label `cuda`: nvcc (or host-compiler) builds of generated CUDA code at test time, and GPU runs
  #    (skipped without a GPU anyway). The generated code comes from the sanitized stnc either way:
  #    e2e.compile.cpp.* runs the same `stnc --target all` as e2e.compile.cu.*, and the MPI/NCCL and
  #    sample sources are generated at build time; nvcc itself is not sanitized.
  #  - fuzz.frontend, fuzz.regressions: the libFuzzer target is an ASan + UBSan build of its own
  #    (not built in a STNC_SANITIZE tree); fuzz.inputs (the sanitized stnc on every kept input) stays.
  # Leaks are errors too (LeakSanitizer); abort with a stack on the first finding.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir "$asan" --output-on-failure -j "$(nproc)" -LE '^cuda$' -E '^fuzz\.(frontend|regressions)$'
  echo "all stnc tests passed under ASan + UBSan"
fi
