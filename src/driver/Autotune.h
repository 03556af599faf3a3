// The autotuner (`stnc FILE.stn --autotune`): on a machine with a GPU, times every schedule
// candidate of passes::scheduleCandidates for every kernel of the file (generated, built through
// the compile cache, run through the C entry point on random data) and keeps the fastest per
// kernel whose results equal the policy's schedule's (a candidate computing anything else is
// logged as a compiler bug and never chosen). The choices are saved as FILE.schedules.json next
// to the outputs; later compiles into the same directory reuse them (`--schedules FILE` names
// another file, `--schedules none` ignores it), unless a schedule option on the command line
// forces something else.
#pragma once
#include <iosfwd>
#include <string>

#include "dag/Kernel.h"
#include "passes/ChooseSchedule.h"

namespace stnc::driver {

struct AutotuneOptions {
  std::string size;      // "256x256x256": the tuning extents for rank-3 kernels (rank 2/1: 4096², 2^24)
  std::string arch = "sm_90";
  int reps = 20;
  bool verbose = false;
};

// Tunes the kernels of m in place (m.kernels[i].schedule) and returns the schedules file's JSON
// text; "" with `error` set on failure (no GPU, nvcc failed, ...).
std::string autotune(dag::Module& m, const passes::ScheduleOverride& base, const AutotuneOptions& o, std::ostream& log,
                     std::string& error);

// Applies a schedules file to m: kernels found in it with the same DAG get the saved schedule.
// Returns how many kernels were set; error on a malformed file.
int applySchedules(dag::Module& m, const std::string& json, std::string& error);

// A fingerprint of a kernel's computation (its printed DAG): a saved schedule is reused only for
// the same computation.
std::string kernelFingerprint(const dag::Module& m, const dag::Kernel& k);

}  // namespace stnc::driver
