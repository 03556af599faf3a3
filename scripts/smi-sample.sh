#!/usr/bin/env bash
# scripts/smi-sample.sh CMD [ARGS...]: runs CMD while nvidia-smi samples the SM and memory clocks, the
# power draw and the clock-event reasons every 200 ms, then prints one line about the samples taken
# while the GPU was busy (power above SMI_BUSY_W, default 200 W): median SM clock, memory clock and
# power, and in how many of them the software power cap held the clocks down. The H200 of the device
# sessions sits at its 700 W cap in sustained memory-bound runs (bench/results/2026-11-30-temporal-r4.md),
# which is why throughput reports carry this line. Exit status: CMD's. Without nvidia-smi: CMD alone.
set -uo pipefail
[[ $# -gt 0 ]] || { sed -n 2,8p "$0"; exit 2; }
if ! command -v nvidia-smi >/dev/null 2>&1; then "$@"; exit $?; fi
smi=$(mktemp "${TMPDIR:-/tmp}/smi.XXXXXX")
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,clocks_event_reasons.active --format=csv,noheader,nounits -lms 200 > "$smi" 2>/dev/null &
pid=$!
"$@"
rc=$?
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
busy=$(awk -F', *' -v w="${SMI_BUSY_W:-200}" '$3 + 0 > w' "$smi")
rm -f "$smi"
if [[ -z $busy ]]; then
  echo "nvidia-smi: no busy samples (power never above ${SMI_BUSY_W:-200} W)"
else
  n=$(wc -l <<< "$busy")
  med() { cut -d, -f"$1" <<< "$busy" | tr -d ' ' | sort -n | awk -v m=$(( (n + 1) / 2 )) 'NR == m'; }
  # Bit 2 (0x4) of the clock-event reasons: software power cap.
  cap=$(awk -F', *' '{ d = tolower(substr($4, length($4))); if (index("4567cdef", d)) c++ } END { print int(100 * c / NR) }' <<< "$busy")
  echo "nvidia-smi: $n busy samples: SM clock median $(med 1) MHz, memory clock $(med 2) MHz, power median $(med 3) W, power cap active in $cap % of them"
fi
exit $rc
