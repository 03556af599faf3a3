#include "codegen/mpi/MpiLauncher.h"

#include <algorithm>
#include <utility>

#include "codegen/KernelBody.h"
#include "support/Text.h"

namespace stnc::codegen {

// The runtime header as a string: between its markers the file is one raw string literal.
namespace {
const char* const kMpiRuntimeRaw =
#define STNC_MPI_RUNTIME_AS_STRING
#include "codegen/mpi/stnc_mpi_runtime.h"
#undef STNC_MPI_RUNTIME_AS_STRING
    ;

// Drops the marker lines left at both ends of the embedded text ("#endif" first, "#ifdef ..." last).
std::string runtimeText() {
  std::string s = kMpiRuntimeRaw;
  const std::string head = "\n#endif\n";
  if (s.compare(0, head.size(), head) == 0) s.erase(0, head.size());
  const size_t tail = s.rfind("#ifdef STNC_MPI_RUNTIME_AS_STRING");
  if (tail != std::string::npos) s.erase(tail);
  return s;
}
}  // namespace

ExchangeWidths exchangeWidths(const dag::Kernel& k) {
  ExchangeWidths w;
  w.lo.assign(k.fields.size(), {0, 0, 0});
  w.hi.assign(k.fields.size(), {0, 0, 0});
  for (const dag::FieldFootprint& ff : k.footprint.fields) {
    int f = k.fieldIndex(ff.field);
    if (f < 0) continue;
    for (int a = 0; a < k.rank(); ++a) {
      w.lo[f][internalDim(k, a)] = -ff.lo[a];
      w.hi[f][internalDim(k, a)] = ff.hi[a];
    }
  }
  return w;
}

bool readsCorners(const dag::Context& ctx, const dag::Kernel& k) {
  for (dag::NodeId id : dag::liveNodes(ctx, k)) {
    const dag::Node& n = ctx.node(id);
    if (n.kind != dag::NodeKind::Access) continue;
    int axes = 0;
    for (int a = 0; a < 3; ++a) axes += n.offset.d[a] != 0;
    if (axes >= 2) return true;
  }
  return false;
}

namespace {

std::string kindName(dag::BoundaryKind b) {
  switch (b) {
    case dag::BoundaryKind::Periodic: return "stnc_rt::kPeriodic";
    case dag::BoundaryKind::Value: return "stnc_rt::kValue";
    case dag::BoundaryKind::Clamp: return "stnc_rt::kClamp";
    case dag::BoundaryKind::Mirror: return "stnc_rt::kMirror";
  }
  return "stnc_mpi::kNoRule";
}

// The rule of field f along internal dimension d, or null.
const dag::Boundary* ruleOf(const dag::Kernel& k, const std::string& f, int d) {
  const int axis = d - (3 - k.rank());
  if (axis < 0) return nullptr;
  for (const dag::Boundary& b : k.boundaries)
    if (b.field == f && (b.axisMask & (1u << axis))) return &b;
  return nullptr;
}

std::string triple(const std::array<int, 3>& v) {
  return "{" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "}";
}

std::string paramDecls(const dag::Kernel& k) {
  std::string s;
  for (const std::string& p : k.params) s += ", real " + cIdent(p);
  return s;
}

std::string paramNames(const dag::Kernel& k) {
  std::string s;
  for (const std::string& p : k.params) s += ", " + cIdent(p);
  return s;
}

std::string fieldList(const dag::Kernel& k) {
  std::string s;
  for (const dag::Field& f : k.fields) appendItem(s, cIdent(f.name));
  return s;
}

// "real* u, real* unew": every field as a plain pointer (exchange).
std::string plainFieldDecls(const dag::Kernel& k) {
  std::string s;
  for (const dag::Field& f : k.fields) appendItem(s, std::string("real* ") + cIdent(f.name));
  return s;
}

std::string distributedComment(const dag::Context& ctx, const dag::Kernel& k, const ExchangeWidths& w) {
  std::string s = "distributed (MPI): per field, the halo cells exchanged below..above the interior per axis:\n";
  bool any = false;
  for (size_t f = 0; f < k.fields.size(); ++f) {
    std::string line = "  " + k.fields[f].name + ":";
    bool read = false;
    for (int a = 0; a < k.rank(); ++a) {
      int d = internalDim(k, a);
      line += " " + k.axes[a] + "[" + std::to_string(w.lo[f][d]) + ".." + std::to_string(w.hi[f][d]) + "]";
      read |= w.lo[f][d] > 0 || w.hi[f][d] > 0;
      const dag::Boundary* b = ruleOf(k, k.fields[f].name, d);
      if (b) line += std::string("(") + dag::boundaryName(b->kind) + ")";
    }
    if (!read) continue;
    any = true;
    s += line + (dag::isWritten(k.fields[f].role) || inSwap(k, k.fields[f].name) ? "" : "  constant: once per call") + "\n";
  }
  if (!any) s += "  (none: no field is read at an offset)\n";
  s += readsCorners(ctx, k) ? "exchange: axis by axis (a field is read off-axis, so halo corners are needed); the first axis "
                              "overlaps the interior sweep."
                            : "exchange: every axis at once over the faces (no field is read off-axis), overlapping the "
                              "interior sweep.";
  return s;
}

void emitKernelMpi(CPrinter& p, const dag::Module& m, const dag::Kernel& k) {
  const std::string ns = "stn::" + cIdent(k.name);
  const ExchangeWidths w = exchangeWidths(k);
  const bool corners = readsCorners(m.ctx, k);
  // Regions are placed relative to the interior a sweep is given (stnc_rt::regionBox reads L.n), so
  // the sweeps of a kernel with regions get the local arrays in global coordinates (D_.F, see
  // stnc_mpi::frameLayout) and boxes shifted by D_.offset: each region lands where it is on the
  // global grid, whichever ranks it spans.
  const bool frame = !k.regions.empty();
  std::string comment = distributedComment(m.ctx, k, w);
  if (frame)
    comment += "\nregions: each rank sweeps its box in global coordinates (D_.F), so the regions are placed on the global grid.";
  p.comment(kernelComment(m, k, comment));
  p.openScope("namespace " + ns + "::mpi");
  p.line("using Domain = stnc_mpi::Domain;");
  p.line("// Halo cells each field is read at below (Lo) and above (Hi) the interior, per internal dimension");
  p.line("// (the footprint; 0 = not read there): exactly what the exchange moves, per field and side.");
  std::string lo, hi, rule, constant;
  for (size_t f = 0; f < k.fields.size(); ++f) {
    const std::string sep = f + 1 < k.fields.size() ? "," : "";
    const std::string note = "  // " + k.fields[f].name;
    lo += triple(w.lo[f]) + sep + note + "\n";
    hi += triple(w.hi[f]) + sep + note + "\n";
    std::string r = "{";
    for (int d = 0; d < 3; ++d) {
      const dag::Boundary* b = ruleOf(k, k.fields[f].name, d);
      r += std::string(d ? ", " : "") + (b ? kindName(b->kind) : "stnc_mpi::kNoRule");
    }
    rule += r + "}" + sep + note + "\n";
    const bool isConst = !dag::isWritten(k.fields[f].role) && !inSwap(k, k.fields[f].name);
    constant += std::string(f ? ", " : "") + (isConst ? "true" : "false");
  }
  auto table = [&](const std::string& head, const std::string& rows) {
    p.openScope(head + " =");
    std::string r = rows;
    size_t pos = 0;
    while (pos < r.size()) {
      size_t e = r.find('\n', pos);
      p.line(r.substr(pos, e - pos));
      pos = e + 1;
    }
    p.closeScope("", ";");
  };
  table("inline constexpr int kExchangeLo[kFieldCount][3]", lo);
  table("inline constexpr int kExchangeHi[kFieldCount][3]", hi);
  p.line("// The boundary rule of each field per internal dimension (numpy.pad semantics, applied by the rank");
  p.line("// that owns that side of the global boundary); kNoRule: the halo keeps its scattered values.");
  table("inline constexpr int kRule[kFieldCount][3]", rule);
  p.line("// Never written (an `in` field in no swap pair): exchanged on the first step of each call only.");
  p.line("inline constexpr bool kConstant[kFieldCount] = {" + constant + "};");
  p.line(std::string("// Some field is read off-axis, so halo corners matter: ") +
         (corners ? "exchange axis by axis." : "no, every axis at once."));
  p.line(std::string("inline constexpr bool kCorners = ") + (corners ? "true" : "false") + ";");
  std::array<int, 3> ih = internalHalo(k);
  p.line("inline constexpr stnc_mpi::KernelSpec kSpec = {kRank, kFieldCount, kExchangeLo, kExchangeHi, kRule, kConstant, " +
         triple(ih) + ", static_cast<int>(sizeof(real)), kCorners};");
  p.line();

  // make_domain
  std::string axisDecl, axisList;
  for (int a = 0; a < k.rank(); ++a) {
    axisDecl += std::string(a ? ", " : "") + "long n" + k.axes[a];
    axisList += std::string(a ? ", " : "") + "n" + k.axes[a];
  }
  p.line("// Splits the global interior over the ranks of comm_ (collective): MPI_Cart_create over the kernel's");
  p.line("// axes with dims from MPI_Dims_create (dims_: ranks per axis, 0 = free; null = all free), periodic");
  p.line("// along axes where a field has a periodic rule; an axis that does not divide gives its first ranks one");
  p.line("// more point. Local arrays: D_.L (= layout(D_.n...)); global offsets: D_.offset (internal dimensions).");
  p.line("#if !defined(STNC_NO_MPI)");
  p.openScope("inline int make_domain(MPI_Comm comm_, " + axisDecl + ", Domain& D_, const int* dims_ = nullptr)");
  p.line("const long n_[kRank] = {" + axisList + "};");
  p.line("return stnc_mpi::decompose(comm_, kSpec, n_, dims_, D_);");
  p.closeScope("make_domain");
  p.line("#else");
  p.line("// STNC_NO_MPI: the same over the ranks of an NCCL communicator (one per GPU; processes or threads).");
  p.line("// The communicator stays the caller's; call with the rank's device current.");
  p.openScope("inline int make_domain(ncclComm_t comm_, " + axisDecl + ", Domain& D_, const int* dims_ = nullptr)");
  p.line("const long n_[kRank] = {" + axisList + "};");
  p.line("return stnc_mpi::decomposeNccl(comm_, kSpec, n_, dims_, D_);");
  p.closeScope("make_domain");
  p.line("#endif");
  p.line("// The layout of this rank's arrays (allocate L.count elements, 128-byte aligned).");
  p.line("inline const stnc_rt::Layout& local_layout(const Domain& D_) { return D_.L; }");
  p.line("// The layout of the global array that gather/scatter use on the root.");
  p.line("inline const stnc_rt::Layout& global_layout(const Domain& D_) { return D_.G; }");
  p.line();

  // rule values
  p.line("// The value of each value(EXPR) rule, [field * 3 + dimension] (0 elsewhere).");
  p.openScope("inline void rule_values_(real* v_" + paramDecls(k) + ")");
  for (const std::string& prm : k.params) p.line("(void)" + cIdent(prm) + ";");
  p.line("for (int i_ = 0; i_ < kFieldCount * 3; ++i_) v_[i_] = real(0);");
  for (size_t f = 0; f < k.fields.size(); ++f)
    for (int d = 0; d < 3; ++d) {
      const dag::Boundary* b = ruleOf(k, k.fields[f].name, d);
      if (!b || b->kind != dag::BoundaryKind::Value || b->value == dag::kNoNode) continue;
      p.line("v_[" + std::to_string(f * 3 + d) + "] = static_cast<real>(" + scalarExpr(m.ctx, k, b->value) + ");  // " +
             k.fields[f].name);
    }
  p.closeScope("rule_values_");
  p.line();

  const std::string fields = fieldList(k);
  const std::string sweepArgs = callArgs(k, ArgMode::Sweep);
  std::string readChecks;
  for (size_t f = 0; f < k.fields.size(); ++f) {
    bool read = false;
    for (int d = 0; d < 3; ++d) read |= w.lo[f][d] > 0 || w.hi[f][d] > 0;
    if (read) readChecks += "if (!" + cIdent(k.fields[f].name) + ") return stnc_rt::kNullPointer;\n";
  }
  // The sweep over a box of the local interior (internal dimensions) through sweep_box (axis order).
  std::string boxLo, boxHi;
  for (int a = 0; a < k.rank(); ++a) {
    const std::string d = std::to_string(internalDim(k, a));
    boxLo += std::string(a ? ", " : "") + "b_.lo[" + d + "]";
    boxHi += std::string(a ? ", " : "") + "b_.hi[" + d + "]";
  }
  if (frame) {
    boxLo.clear();
    boxHi.clear();
    for (int a = 0; a < k.rank(); ++a) {
      const std::string d = std::to_string(internalDim(k, a));
      boxLo += std::string(a ? ", " : "") + "b_.lo[" + d + "] + D_.offset[" + d + "]";
      boxHi += std::string(a ? ", " : "") + "b_.hi[" + d + "] + D_.offset[" + d + "]";
    }
  }
  const std::string boxArrays = "const long lo_[kRank] = {" + boxLo + "}, hi_[kRank] = {" + boxHi + "}; ";
  const std::string sweepLayout = frame ? "D_.F" : "D_.L";
  auto emitSwaps = [&] {
    for (auto& [a, b] : k.swaps) p.line("std::swap(" + cIdent(a) + ", " + cIdent(b) + ");");
  };
  auto emitReadChecks = [&] {
    std::string r = readChecks;
    size_t pos = 0;
    while (pos < r.size()) {
      size_t e = r.find('\n', pos);
      p.line(r.substr(pos, e - pos));
      pos = e + 1;
    }
  };
  // The boundary rules' values from the parameters (every step and exchange needs them).
  auto emitRuleValues = [&] {
    p.line("real values_[kFieldCount * 3];");
    p.line("rule_values_(values_" + paramNames(k) + ");");
  };
  const std::string fieldArray = "real* const f_[kFieldCount] = {" + fields + "};";
  // An exchange's head: the domain, the fields it reads, the rules' values and the field array.
  auto emitExchangeHead = [&] {
    p.line("if (D_.spec != &kSpec) return stnc_mpi::kWrongDomain;");
    emitReadChecks();
    emitRuleValues();
    p.line(fieldArray);
  };

  // A source g_ (global coordinates) on this rank: the test, and its local coordinates.
  std::string inside, local;
  for (int a = 0; a < k.rank(); ++a) {
    const std::string d = std::to_string(internalDim(k, a)), c = "g_." + cIdent(k.axes[a]);
    inside += std::string(a ? " && " : "") + c + " >= D_.offset[" + d + "] && " + c + " < D_.offset[" + d + "] + D_.n[" + d + "]";
    local += std::string(a ? ", " : "") + c + " - D_.offset[" + d + "]";
  }
  // The head of a step: arguments checked (arrays aligned to `align`), the rules' values, hot_ = whether
  // every field is exchanged every step.
  auto emitStepHead = [&](const std::string& align) {
    p.line("if (steps_ < 0 || nsources_ < 0 || (nsources_ > 0 && !sources_)) return stnc_rt::kBadArgument;");
    p.line("if (D_.spec != &kSpec) return stnc_mpi::kWrongDomain;");
    p.line("const void* ptrs_[kFieldCount] = {" + fields + "};");
    p.line("if (int s_ = ::" + ns + "::check(D_.L, ptrs_, " + align + ")) return s_;");
    p.line("if (int s_ = ::" + ns + "::checkSources(D_.G, sources_, nsources_)) return s_;");
    emitRuleValues();
    p.line("// A source into a constant field makes it change: then every field is exchanged every step.");
    p.line("bool hot_ = false;");
    p.line("for (int q_ = 0; q_ < nsources_; ++q_) hot_ = hot_ || kConstant[sources_[q_].field];");
  };

  p.line("#if !defined(STNC_NO_MPI)");
  p.openScope("namespace cpu");
  p.line("// steps x (halo exchange + boundary rules, sweep, swap pairs) on this rank's host arrays; the interior");
  p.line("// part of each sweep runs while the messages are in flight. Collective over D_.comm. Same arguments and");
  p.line("// results as ::" + ns + "::cpu::step on the global grid, bit for bit. Point sources use global");
  p.line("// coordinates; the rank that owns the point adds wavelet[t] after the sweep, before the swaps.");
  p.openScope("inline int step(Domain& D_, long steps_, " + declArgs(k, ArgMode::Step) +
              ", const Source* sources_ = nullptr, int nsources_ = 0)");
  emitStepHead("alignof(real)");
  p.openScope("for (long s_ = 0; s_ < steps_; ++s_)");
  p.line(fieldArray);
  p.line("auto sweep_ = [&](const stnc_mpi::Box3& b_) { " + boxArrays + "return ::" + ns + "::cpu::sweep_box(" + sweepLayout + ", lo_, hi_, " +
         sweepArgs + "); };");
  p.line("if (int e_ = stnc_mpi::stepHost<real>(D_, kSpec, f_, values_, s_ == 0 || hot_, sweep_)) return e_;");
  {
    p.openScope("for (int q_ = 0; q_ < nsources_; ++q_)");
    p.line("const Source& g_ = sources_[q_];");
    p.line("if (!(" + inside + ")) continue;");
    p.line("f_[g_.field][::" + ns + "::index(D_.L, " + local + ")] += g_.wavelet[s_];");
    p.closeScope("point sources");
  }
  emitSwaps();
  p.closeScope("for s_");
  p.line("return stnc_rt::kOk;");
  p.closeScope("step");
  p.line("// The halo update alone (exchange + boundary rules of every field read at an offset). Collective.");
  p.openScope("inline int exchange(Domain& D_, " + plainFieldDecls(k) + paramDecls(k) + ")");
  emitExchangeHead();
  p.line("auto none_ = [](const stnc_mpi::Box3&) { return 0; };");
  p.line("return stnc_mpi::stepHost<real>(D_, kSpec, f_, values_, true, none_, false);");
  p.closeScope("exchange");
  p.closeScope("namespace cpu");
  p.line();
  p.line("// Collects every rank's interior into `global_` (global_layout(D_), on root_ only). Collective.");
  p.openScope("inline int gather(const Domain& D_, int root_, const real* local_, real* global_)");
  p.line("if (D_.spec != &kSpec) return stnc_mpi::kWrongDomain;");
  p.line("return stnc_mpi::gatherHost<real>(D_, root_, local_, global_);");
  p.closeScope("gather");
  p.line("// Gives every rank its box of `global_` (root_'s array) with the halo around it. Collective.");
  p.openScope("inline int scatter(const Domain& D_, int root_, const real* global_, real* local_)");
  p.line("if (D_.spec != &kSpec) return stnc_mpi::kWrongDomain;");
  p.line("return stnc_mpi::scatterHost<real>(D_, root_, global_, local_);");
  p.closeScope("scatter");
  p.line("#endif  // !STNC_NO_MPI");

  p.line("#if defined(__CUDACC__) || defined(STNC_WITH_CUDA)");
  p.openScope("namespace cuda");
  p.line("// As cpu::step on device arrays: the interior sweep runs on stream_ while the halos are packed");
  p.line("// (cudaMemcpy3DAsync), sent (STNC_USE_NCCL: ncclSend/ncclRecv on the second stream, no host wait;");
  p.line("// else MPI: device buffers with CUDA-aware MPI, or pinned host staging) and unpacked on a second");
  p.line("// stream. Returns a stnc_mpi/stnc_rt status (kCudaError: see cudaGetLastError; kNcclError).");
  p.line("// Point sources use global coordinates (wavelets: device pointers); the rank that owns the point adds");
  p.line("// wavelet[t] on stream_ after the sweep, before the swaps (::" + ns + "::cuda::add_sources).");
  p.openScope("inline int step(Domain& D_, long steps_, " + declArgs(k, ArgMode::Step) +
              ", cudaStream_t stream_ = 0, const Source* sources_ = nullptr, int nsources_ = 0)");
  emitStepHead("128");
  p.line("std::vector<Source> mine_;  // this rank's sources, in local coordinates");
  p.openScope("for (int q_ = 0; q_ < nsources_; ++q_)");
  p.line("const Source& g_ = sources_[q_];");
  p.line("if (!(" + inside + ")) continue;");
  p.line("mine_.push_back(Source{g_.field, " + local + ", g_.wavelet});");
  p.closeScope("for q_");
  p.openScope("for (long s_ = 0; s_ < steps_; ++s_)");
  p.line(fieldArray);
  p.line("auto sweep_ = [&](const stnc_mpi::Box3& b_, cudaStream_t st_) { " + boxArrays + "return ::" + ns +
         "::cuda::sweep_box(" + sweepLayout + ", lo_, hi_, " + sweepArgs + ", st_); };");
  p.line("if (int e_ = stnc_mpi::stepCuda<real>(D_, kSpec, f_, values_, s_ == 0 || hot_, sweep_, stream_)) return e_;");
  p.line("if (!mine_.empty() && ::" + ns + "::cuda::add_sources(D_.L, f_, mine_.data(), static_cast<int>(mine_.size()), s_, stream_) != cudaSuccess)");
  p.line("  return stnc_mpi::kCudaError;");
  emitSwaps();
  p.closeScope("for s_");
  p.line("return stnc_mpi::cudaStatus(cudaStreamSynchronize(stream_));");
  p.closeScope("step");
  p.openScope("inline int exchange(Domain& D_, " + plainFieldDecls(k) + paramDecls(k) + ", cudaStream_t stream_ = 0)");
  emitExchangeHead();
  p.line("auto none_ = [](const stnc_mpi::Box3&, cudaStream_t) { return cudaSuccess; };");
  p.line("if (int e_ = stnc_mpi::stepCuda<real>(D_, kSpec, f_, values_, true, none_, stream_, false)) return e_;");
  p.line("return stnc_mpi::cudaStatus(cudaStreamSynchronize(stream_));");
  p.closeScope("exchange");
  p.line("// gather/scatter of device arrays (MPI: through a host copy of the local array; STNC_NO_MPI: through");
  p.line("// NCCL, one rank's box at a time); global_ is host memory.");
  p.openScope("inline int gather(const Domain& D_, int root_, const real* local_, real* global_)");
  p.line("if (D_.spec != &kSpec) return stnc_mpi::kWrongDomain;");
  p.line("return stnc_mpi::gatherCuda<real>(D_, root_, local_, global_);");
  p.closeScope("gather");
  p.openScope("inline int scatter(const Domain& D_, int root_, const real* global_, real* local_)");
  p.line("if (D_.spec != &kSpec) return stnc_mpi::kWrongDomain;");
  p.line("return stnc_mpi::scatterCuda<real>(D_, root_, global_, local_);");
  p.closeScope("scatter");
  p.closeScope("namespace cuda");
  p.line("#endif");
  p.closeScope("namespace " + ns + "::mpi");
  p.line();
}

}  // namespace

std::string generateMpiHeader(const dag::Module& m, const GenOptions& o) {
  GenOptions go = o;
  go.commandLine += (go.commandLine.empty() ? "" : " ") + std::string("--distributed");
  CPrinter p;
  p.raw(banner(m, go, m.sourceName + "_mpi.h — distributed (MPI) launchers of the stencils in " + m.sourceName + ".stn"));
  p.line("// Domain decomposition over MPI ranks on top of " + m.sourceName + ".h (docs/DISTRIBUTED.md). Header-only:");
  p.line("// include it after compiling " + m.sourceName + ".cpp (and " + m.sourceName +
         ".cu for cuda::) and link MPI. -DSTNC_USE_NCCL: the cuda:: halo");
  p.line("// exchange goes through NCCL (link it too); -DSTNC_NO_MPI (with STNC_USE_NCCL): no MPI, cuda:: only.");
  p.line("#pragma once");
  p.line("#include \"" + m.sourceName + ".h\"");
  p.line();
  p.line("// Only MPI's C API is used; skip the deprecated C++ bindings (they do not build warning-free).");
  p.line("#ifndef OMPI_SKIP_MPICXX");
  p.line("#define OMPI_SKIP_MPICXX 1");
  p.line("#endif");
  p.line("#ifndef MPICH_SKIP_MPICXX");
  p.line("#define MPICH_SKIP_MPICXX 1");
  p.line("#endif");
  p.line("#include <math.h>");
  p.line("#if !defined(STNC_NO_MPI)");
  p.line("#include <mpi.h>");
  p.line("#endif");
  p.line();
  p.line("#include <utility>");
  p.line();
  p.raw(runtimeText());
  p.line();
  for (const dag::Kernel& k : m.kernels) emitKernelMpi(p, m, k);
  return p.str();
}

}  // namespace stnc::codegen
