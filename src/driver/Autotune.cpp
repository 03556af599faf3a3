#include "driver/Autotune.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>
#include <thread>

#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "codegen/Launcher.h"
#include "codegen/runtime/stnc_runtime.h"
#include "dag/Printer.h"
#include "driver/ArgText.h"
#include "driver/CompareResults.h"
#include "driver/Driver.h"
#include "driver/Files.h"

namespace stnc::driver {

namespace {

using json = nlohmann::json;

json scheduleJson(const dag::Schedule& s) {
  return {{"strategy", dag::strategyName(s.strategy)}, {"block", std::to_string(s.blockX) + "x" + std::to_string(s.blockY)},
          {"rows", s.rows}, {"vec", s.vec}, {"prefetch", s.prefetch}, {"unroll", s.unroll}, {"chunk", s.chunk}, {"smem", s.smem}, {"heads", s.heads}, {"tma", s.tma}};
}

bool scheduleFromJson(const json& j, dag::Schedule& s) {
  if (!j.is_object() || !j.contains("strategy") || !j.contains("block")) return false;
  const std::string st = j["strategy"].get<std::string>();
  if (st != "naive" && st != "stream" && st != "sumfactor" && st != "tensor") return false;
  s.strategy = st == "stream"      ? dag::Strategy::Stream
               : st == "sumfactor" ? dag::Strategy::SumFactor
               : st == "tensor"    ? dag::Strategy::Tensor
                                   : dag::Strategy::Naive;
  if (std::sscanf(j["block"].get<std::string>().c_str(), "%dx%d", &s.blockX, &s.blockY) != 2) return false;
  if (s.blockX <= 0 || s.blockX % 16 != 0 || s.blockY <= 0 || s.blockX * s.blockY > 1024) return false;
  s.rows = j.value("rows", 1);
  s.vec = j.value("vec", 1);
  s.prefetch = j.value("prefetch", 0);
  s.unroll = j.value("unroll", 1);
  s.chunk = j.value("chunk", 0);
  s.smem = j.value("smem", 0);
  s.heads = j.value("heads", 0);
  s.tma = j.value("tma", 0);
  return (s.heads == 0 || s.heads == 1) && (s.tma == 0 || s.tma == 1) && s.smem >= 0 && s.smem <= 2 && s.rows >= 1 && s.rows <= 8 && (s.vec == 1 || s.vec == 2 || s.vec == 4) && s.prefetch >= 0 && s.prefetch <= 8 && s.unroll >= 1 && s.unroll <= 16 && s.chunk >= 0;
}

// Interior extents used for timing: given by the user for rank 3, else large enough to exceed L2.
std::vector<long> tuneExtents(const dag::Kernel& k, const std::string& size) {
  std::vector<long> n;
  if (k.rank() == 3 && !size.empty()) {
    long a = 0, b = 0, c = 0;
    if (std::sscanf(size.c_str(), "%ldx%ldx%ld", &a, &b, &c) == 3 && a > 0 && b > 0 && c > 0) return {a, b, c};
  }
  if (k.rank() == 3) return {256, 256, 256};
  if (k.rank() == 2) return {4096, 4096};
  return {1L << 24};
}

struct Timing {
  double us = -1;
  std::string error;
  bool differs = false;  // ran, but its results are not the policy's: never chosen
};

// Builds (through the compile cache) the CUDA code of a module with its current schedules.
std::string buildModule(const dag::Module& m, const AutotuneOptions& o, std::string& error) {
  codegen::GenOptions go = genOptions("cuda");
  SharedObjectRequest req;
  req.backend = "cuda";
  req.baseName = m.sourceName;
  req.header = codegen::generateHeader(m, go);
  req.source = codegen::generateCuda(m, go);
  req.arch = o.arch;
  return buildSharedObject(req, o.verbose, error);
}

// Odd extents for the correctness run (no timing): partial tiles, rows, vectors and chunks everywhere,
// yet a box wider than the policy's widest ring tile (64 columns x 3/4) along the contiguous axis.
std::vector<long> checkExtents(const dag::Kernel& k) {
  if (k.rank() == 3) return {61, 37, 53};
  if (k.rank() == 2) return {1031, 37};
  return {4099};
}

// One set of runs of a kernel at one extent: random host arrays (every field, allocation-sized) made
// once, from which every candidate starts; the entry point overwrites its copies with the results of
// one clean sweep (after the timed ones, if any), and the policy's schedule (candidate 0, run first)
// leaves its results as the reference.
struct RunData {
  std::vector<std::vector<char>> inputs;
  std::vector<std::vector<char>> reference;
};
struct KernelData {
  RunData timed, odd;
};

void randomFill(std::vector<char>& b, size_t count, size_t es, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uni(0.5, 1.5);  // no zeros: divisions and logs stay finite
  b.resize(count * es);
  for (size_t e = 0; e < count; ++e) {
    const double v = uni(rng);
    if (es == 8) std::memcpy(b.data() + e * 8, &v, 8);
    else {
      const float fv = static_cast<float>(v);
      std::memcpy(b.data() + e * 4, &fv, 4);
    }
  }
}

// The first field whose results differ from the reference, described; "" when all agree.
std::string resultDifference(const dag::Module& m, const dag::Kernel& k, const std::vector<std::vector<char>>& got,
                             const std::vector<std::vector<char>>& want) {
  const size_t es = dag::elemSize(k.type);
  const bool exact = !callsLibm(m.ctx, k);
  for (size_t f = 0; f < k.fields.size(); ++f) {
    const size_t n = got[f].size() / es;
    const ValueDiff d = compareValues(got[f].data(), want[f].data(), n, es, exact);
    if (d.count) return "field '" + k.fields[f].name + "': " + describe(d, n);
  }
  return "";
}

// Runs kernel k at extents n (reps timed sweeps, then one clean one) and compares the results with the
// reference (or makes them the reference). Sets t.us (reps > 0), t.error, t.differs.
void runAndCheck(const dag::Module& m, const dag::Kernel& k, EntryFn entry, std::vector<long> n, int reps, RunData& d,
                 std::mt19937_64& rng, Timing& t) {
  stnc_rt::Layout L{};
  const size_t es = dag::elemSize(k.type);
  if (!kernelLayout(k, n.data(), L)) {
    t.error = "bad extents";
    return;
  }
  d.inputs.resize(k.fields.size());
  for (size_t f = 0; f < k.fields.size(); ++f)
    if (d.inputs[f].empty())
      randomFill(d.inputs[f], stnc_rt::fieldCount(L, dag::fieldDims(k, k.fields[f])), es, rng);
  std::vector<std::vector<char>> work = d.inputs;
  std::vector<void*> ptrs;
  for (std::vector<char>& b : work) ptrs.push_back(b.data());
  std::vector<double> params(k.params.size(), 0.25);
  double ms[2] = {0, 0};
  char err[512] = {0};
  if (entry(n.data(), ptrs.data(), params.data(), 0, 0, nullptr, nullptr, reps, ms, err, sizeof err) != 0) {
    t.error = err;
    return;
  }
  if (reps > 0) t.us = ms[0] * 1000.0;
  if (d.reference.empty()) {
    d.reference = std::move(work);
    return;
  }
  std::string diff = resultDifference(m, k, work, d.reference);
  if (!diff.empty()) {
    t.error = "its results at " + extentsText(n) + " differ from the policy's schedule's (" + diff + ")";
    t.differs = true;
  }
}

// Times every kernel of a built module (median µs per sweep at the tuning extents) and checks its
// results there and at odd extents against the policy's (the references; set by the first call).
std::vector<Timing> timeModule(const dag::Module& m, const std::string& so, const AutotuneOptions& o,
                               std::vector<KernelData>& data, std::string& error) {
  std::vector<Timing> out(m.kernels.size());
  void* lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error = std::string("cannot load '") + so + "': " + ::dlerror();
    return {};
  }
  std::mt19937_64 rng(12345);
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const dag::Kernel& k = m.kernels[i];
    auto entry = reinterpret_cast<EntryFn>(::dlsym(lib, codegen::entryName(k, "cuda").c_str()));
    if (!entry) {
      out[i].error = "entry point missing";
      continue;
    }
    runAndCheck(m, k, entry, tuneExtents(k, o.size), o.reps, data[i].timed, rng, out[i]);
    if (out[i].us > 0 && !out[i].differs) {
      Timing odd;
      runAndCheck(m, k, entry, checkExtents(k), 0, data[i].odd, rng, odd);
      if (!odd.error.empty()) {
        out[i].error = odd.error;
        out[i].differs = odd.differs;
        if (!odd.differs) out[i].us = -1;  // did not run at the odd extents
      }
    }
  }
  ::dlclose(lib);
  return out;
}

// The most outputs one CUDA kernel of k computes (each region part is its own kernel).
size_t maxPartOutputs(const dag::Kernel& k) {
  std::map<int, size_t> per;
  size_t most = 0;
  for (const dag::Output& o : k.outputs) most = std::max(most, ++per[o.region]);
  return most;
}

std::string overrideText(const passes::ScheduleOverride& c) {
  std::string s = "--schedule=" + c.strategy;
  if (c.blockX) s += " --block " + std::to_string(c.blockX) + "x" + std::to_string(c.blockY);
  if (c.rows) s += " --rows " + std::to_string(c.rows);
  if (c.vec) s += " --vec " + std::to_string(c.vec);
  if (c.prefetch >= 0) s += " --prefetch " + std::to_string(c.prefetch);
  if (c.unroll) s += " --unroll " + std::to_string(c.unroll);
  if (c.smem != "auto") s += " --smem=" + c.smem;
  if (c.queueHeads != "auto") s += " --queue-heads=" + c.queueHeads;
  if (c.tma != "auto") s += " --tma=" + c.tma;
  return s;
}

}  // namespace

std::string kernelFingerprint(const dag::Module& m, const dag::Kernel& k) {
  // The live nodes renumbered from 0, so the text does not depend on other kernels of the file.
  std::vector<dag::NodeId> live = dag::liveNodes(m.ctx, k);
  std::map<dag::NodeId, size_t> local;
  std::string text = k.name + " " + dag::elemTypeName(k.type) + " rank " + std::to_string(k.rank()) + "\n";
  for (dag::NodeId id : live) {
    const dag::Node& n = m.ctx.node(id);
    local[id] = local.size();
    text += std::to_string(static_cast<int>(n.kind)) + " " + std::to_string(static_cast<int>(n.op)) + " ";
    for (int i = 0; i < n.operandCount(); ++i) text += std::to_string(local[n.operands[i]]) + ",";
    if (n.kind == dag::NodeKind::Const) text += dag::exactLiteral(n.value);
    if (n.kind == dag::NodeKind::Param || n.isLoad()) text += m.ctx.name(n.sym);
    if (n.isLoad())
      for (int d : n.offset.d) text += " " + std::to_string(d);
    if (n.kind == dag::NodeKind::Broadcast) text += " axes " + std::to_string(n.axes);
    text += "\n";
  }
  for (const dag::Output& o : k.outputs) text += o.field + "=" + std::to_string(local[o.value]) + " r" + std::to_string(o.region) + "\n";
  return hashHex(text);
}

std::string autotune(dag::Module& m, const passes::ScheduleOverride& base, const AutotuneOptions& o, std::ostream& log,
                     std::string& error) {
  std::vector<passes::ScheduleOverride> cands = passes::scheduleCandidates(base);
  const size_t K = m.kernels.size();
  std::vector<std::vector<double>> us(K, std::vector<double>(cands.size(), -1));
  std::vector<std::vector<dag::Schedule>> sched(K, std::vector<dag::Schedule>(cands.size()));
  std::vector<std::vector<char>> differs(K, std::vector<char>(cands.size(), 0));  // ran, other results
  // Phase 1: build every candidate in parallel (nvcc dominates; the compile cache keys differ).
  // Skipped: candidates that change no kernel's schedule, and several rows or points per thread for
  // kernels with more than two outputs (the code grows with rows x outputs; nvcc takes minutes).
  std::vector<dag::Module> trials(cands.size(), m);
  std::vector<std::string> sos(cands.size()), errs(cands.size());
  std::vector<char> skip(cands.size(), 0);
  auto same = [](const dag::Schedule& a, const dag::Schedule& b) {
    return a.strategy == b.strategy && a.blockX == b.blockX && a.blockY == b.blockY && a.rows == b.rows && a.vec == b.vec &&
           a.prefetch == b.prefetch && a.unroll == b.unroll && a.chunk == b.chunk && a.smem == b.smem && a.heads == b.heads && a.tma == b.tma;
  };
  for (size_t c = 0; c < cands.size(); ++c) {
    bool fresh = c == 0, tooBig = false;
    for (size_t i = 0; i < K; ++i) {
      // A kernel whose source gives its schedule keeps it in every candidate (the command line still wins).
      const dag::ScheduleRequest& req = m.kernels[i].request;
      const passes::ScheduleOverride o = req.present ? passes::withRequest(base, req) : cands[c];
      dag::Schedule s = trials[c].kernels[i].schedule = sched[i][c] = passes::chooseSchedule(trials[c].ctx, trials[c].kernels[i], o);
      passes::fillPartSchedules(trials[c].ctx, trials[c].kernels[i], o);
      tooBig |= (s.rows > 1 || s.vec > 1) && maxPartOutputs(m.kernels[i]) > 2;
      bool seen = false;
      for (size_t d = 0; d < c; ++d) seen |= !skip[d] && same(sched[i][d], s);
      fresh |= !seen;
    }
    skip[c] = c > 0 && (!fresh || tooBig);
  }
  {
    // Builds in parallel, at most as many at a time as there are cores (nvcc is single-threaded).
    const size_t width = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (size_t c = 0; c < cands.size(); ++c) {
      if (skip[c]) continue;
      if (pool.size() >= width) {
        for (std::thread& t : pool) t.join();
        pool.clear();
      }
      pool.emplace_back([&, c] { sos[c] = buildModule(trials[c], o, errs[c]); });
    }
    for (std::thread& t : pool) t.join();
  }
  // Phase 2: time them one after the other, each kernel's results checked against the policy's
  // (candidate 0, timed first); with STNC_GPU_LOCK=FILE, concurrent stnc processes (a parallel build
  // of many .stn files) take turns on the GPU.
  std::vector<KernelData> data(K);
  int lockFd = -1;
  if (const char* lk = std::getenv("STNC_GPU_LOCK")) {
    lockFd = ::open(lk, O_CREAT | O_RDWR, 0644);
    if (lockFd >= 0) ::flock(lockFd, LOCK_EX);
  }
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) ::close(fd);  // releases the flock
    }
  } unlock{lockFd};
  for (size_t c = 0; c < cands.size(); ++c) {
    if (skip[c]) continue;
    const dag::Module& trial = trials[c];
    std::string err = errs[c];
    std::vector<Timing> t = sos[c].empty() ? std::vector<Timing>{} : timeModule(trial, sos[c], o, data, err);
    if (t.empty()) {
      if (c == 0) {  // the policy's own schedule must build and run
        error = "autotune: " + err;
        return "";
      }
      log << "autotune: candidate " << overrideText(cands[c]) << " failed: " << err.substr(0, 300) << "\n";
      continue;
    }
    for (size_t i = 0; i < K; ++i) {
      us[i][c] = t[i].differs ? -1 : t[i].us;
      differs[i][c] = t[i].differs;
      if (c == 0 && t[i].us <= 0) {  // the policy's own schedule must run (no GPU, out of memory, ...)
        error = "autotune: kernel '" + m.kernels[i].name + "' did not run: " + t[i].error;
        return "";
      }
      if (t[i].differs)
        log << "autotune: warning: " << m.kernels[i].name << " with " << overrideText(cands[c]) << " is not used: " << t[i].error
            << " -- a schedule must not change results; please report this as an stnc bug\n";
      else if (!t[i].error.empty())
        log << "autotune: " << m.kernels[i].name << " with " << overrideText(cands[c]) << ": " << t[i].error << "\n";
    }
  }
  json file = {{"stnc", stncVersion()}, {"source", m.sourceName}, {"arch", o.arch}, {"reps", o.reps}, {"kernels", json::object()}};
  for (size_t i = 0; i < K; ++i) {
    dag::Kernel& k = m.kernels[i];
    if (k.request.present) {  // not tuned: the schedule the source gives (timed once), not saved
      k.schedule = sched[i][0];
      k.schedule.reason += "; the source asks for schedule " + k.request.text + " (not autotuned)";
      passes::fillPartSchedules(m.ctx, k, passes::withRequest(base, k.request));
      log << "autotune: " << k.name << ": the source's schedule " << k.request.text << " (" << (us[i][0] > 0 ? std::to_string(us[i][0]) : "untimed")
          << " us)\n";
      continue;
    }
    size_t best = 0;
    for (size_t c = 0; c < cands.size(); ++c)
      if (us[i][c] > 0 && (us[i][best] <= 0 || us[i][c] < us[i][best])) best = c;
    json tried = json::array();
    for (size_t c = 0; c < cands.size(); ++c) {
      json e = {{"flags", overrideText(cands[c])}, {"us", us[i][c] > 0 ? json(us[i][c]) : json(nullptr)}};
      if (differs[i][c]) e["differs"] = true;  // its results were not the policy's
      tried.push_back(e);
    }
    dag::Schedule s = sched[i][best];
    char buf[200];
    size_t timed = 0;
    for (size_t c = 0; c < cands.size(); ++c) timed += us[i][c] > 0;
    std::snprintf(buf, sizeof buf, "autotuned: %.1f us (policy's choice %.1f us) over %zu candidates with the policy's results",
                  us[i][best], us[i][0], timed);
    s.reason = buf;
    k.schedule = s;
    passes::fillPartSchedules(m.ctx, k, passes::withRequest(base, k.request));
    file["kernels"][k.name] = {{"fingerprint", kernelFingerprint(m, k)}, {"size", extentsText(tuneExtents(k, o.size))}, {"schedule", scheduleJson(s)},
                               {"us", us[i][best] > 0 ? json(us[i][best]) : json(nullptr)}, {"candidates", tried}};
    log << "autotune: " << k.name << ": " << overrideText(cands[best]) << " (" << buf << ")\n";
  }
  return file.dump(1) + "\n";
}

int applySchedules(dag::Module& m, const std::string& text, std::string& error) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("kernels") || !j["kernels"].is_object()) {
    error = "not a schedules file (expected a JSON object with \"kernels\")";
    return -1;
  }
  int set = 0;
  for (dag::Kernel& k : m.kernels) {
    if (!j["kernels"].contains(k.name)) continue;
    if (k.request.present) {  // the source's schedule wins over a saved one
      std::fprintf(stderr, "stnc: note: '%s' keeps the schedule its source gives; the saved one is not used\n", k.name.c_str());
      continue;
    }
    const json& e = j["kernels"][k.name];
    if (!e.is_object() || e.value("fingerprint", "") != kernelFingerprint(m, k)) {  // the stencil changed
      std::fprintf(stderr, "stnc: note: the saved schedule of '%s' is for another version of it; choosing anew\n", k.name.c_str());
      continue;
    }
    dag::Schedule s;
    s.temporal = k.schedule.temporal;  // a step-loop choice, not timed by the autotuner: the policy's stays
    s.temporalWhy = k.schedule.temporalWhy;
    if (!e.contains("schedule") || !scheduleFromJson(e["schedule"], s)) {
      error = "kernel '" + k.name + "': malformed schedule entry";
      return -1;
    }
    if (s.strategy == dag::Strategy::Stream && k.rank() != 3) continue;
    if (s.strategy == dag::Strategy::SumFactor && !k.sumFactor) continue;  // saved for a --factor-sums=on build
    if (s.strategy == dag::Strategy::Tensor && !k.tensorSum) continue;     // saved for a --fp-contract=on build
    s.reason = "from the schedules file (autotuned" + (e.contains("us") && e["us"].is_number() ? ": " + std::to_string(e["us"].get<double>()).substr(0, 8) + " us" : std::string()) + ")";
    k.schedule = s;
    passes::fillPartSchedules(m.ctx, k);
    ++set;
  }
  return set;
}

}  // namespace stnc::driver
