#!/usr/bin/env bash
# The one test command: installs what is missing, configures, builds and runs every test.
#   ./scripts/test.sh            (build dir: build/; set STNC_BUILD_DIR to change it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build=${STNC_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${STNC_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
echo "all stnc tests passed"
