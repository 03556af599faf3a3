// The values a `schedule` statement accepts (docs/EXTENSIONS.md), shared by sema (which reports bad
// ones) and lowering (which fills dag::Kernel::request from checked statements). The ranges are the
// command line's: --schedule, --block, --chunk, --prefetch, --rows, --vec, --slab-vec, --unroll, --smem, --queue-heads, --tma.
//   schedule stream(block = 32x8, rows = 2, vec = 2, unroll = 2, prefetch = 2, chunk = 64, smem = on);
#pragma once
#include <string>
#include <vector>

#include "dag/Kernel.h"

namespace stnc::sema {

bool isScheduleStrategy(const std::string& word);  // auto | naive | stream
// Reads `key = value` into r. False when the key is unknown (`expected` empty) or the value is out of
// range (`expected` says what the key takes).
bool readScheduleArg(const std::string& key, const std::string& value, dag::ScheduleRequest& r, std::string& expected);
// The keys readScheduleArg knows, in alphabetical order (for the unknown-key message and its "did you mean").
const std::vector<std::string>& scheduleKeys();

}  // namespace stnc::sema
