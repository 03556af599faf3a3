// The CPU backend: OpenMP C++17. One loop nest per kernel over the internal 3-D index space,
// outer two dimensions collapsed across threads, the contiguous one vectorised (`omp simd`).
// Built with -ffp-contract=off so results are bit-identical to the CUDA backend's (-fmad=false).
#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "support/Text.h"

namespace stnc::codegen {

namespace {

void emitKernel(CPrinter& p, const dag::Module& m, const dag::Kernel& k) {
  const std::string ns = "stn::" + cIdent(k.name);
  p.comment(kernelComment(m, k,
                          "schedule (cpu): dims 0-1 collapsed over OpenMP threads, dim 2 (contiguous) as an omp simd "
                          "loop, one point per iteration."));
  p.openScope("namespace " + ns);
  p.openScope("namespace");
  for (int part : dag::kernelParts(k)) {
    if (part >= 0) p.line("// region " + k.regions[part].name);
    p.openScope("void " + partName(k, part) + "(const stnc_rt::Layout& L_, const stnc_rt::Box& B_, " + declArgs(k, ArgMode::Sweep) + ")");
    std::string unused = usedNamesVoidCast(m.ctx, k, false, part);
    if (!unused.empty()) p.line(unused);
    p.line("const long s0_ = L_.stride[0];");
    p.line("const long s1_ = L_.stride[1];");
    p.line("(void)s0_; (void)s1_;");
    p.line("#pragma omp parallel for collapse(2) schedule(static)");
    p.openScope("for (long x_ = B_.lo[0]; x_ < B_.hi[0]; ++x_)");
    p.openScope("for (long y_ = B_.lo[1]; y_ < B_.hi[1]; ++y_)");
    p.line("const long row_ = stnc_rt::at(L_, x_, y_, 0);");
    p.line("#pragma omp simd");
    p.openScope("for (long z_ = B_.lo[2]; z_ < B_.hi[2]; ++z_)");
    p.line("const long p_ = row_ + z_;");
    emitPointBody(p, m.ctx, k, part);
    p.closeScope("for z_");
    p.closeScope("for y_");
    p.closeScope("for x_");
    p.closeScope(partName(k, part));
  }
  p.line("// Every part of the kernel over the interior points inside clip_.");
  p.openScope("bool sweepKernel(const stnc_rt::Layout& L_, const stnc_rt::Box& clip_, " + declArgs(k, ArgMode::Sweep) + ")");
  const std::string args = callArgs(k, ArgMode::Sweep);
  emitPartDispatch(p, k, [&](int part, const std::string& box) { return partName(k, part) + "(L_, " + box + ", " + args + ")"; },
                   "return false;");
  p.line("return true;");
  p.closeScope("sweepKernel");
  std::string fillDecl = declArgs(k, ArgMode::Fill);
  p.openScope("void fillKernel(const stnc_rt::Layout& L_" + (fillDecl.empty() ? "" : ", " + fillDecl) + ")");
  p.line("(void)L_;");
  emitFillBody(p, m.ctx, k, "stnc_rt::fillBoundaryDim<real>", "");
  p.closeScope("fillKernel");
  p.closeScope("namespace");
  p.line();
  std::string fillCall = callArgs(k, ArgMode::Fill);
  std::string ptrs;
  for (const dag::Field& f : k.fields) appendItem(ptrs, cIdent(f.name));
  p.openScope("namespace cpu");
  p.openScope("int sweep(const stnc_rt::Layout& L_, " + declArgs(k, ArgMode::Sweep) + ")");
  p.line("const void* ptrs_[kFieldCount] = {" + ptrs + "};");
  p.line("if (int s_ = check(L_, ptrs_, alignof(real))) return s_;");
  p.line("return sweepKernel(L_, stnc_rt::interiorBox(L_), " + callArgs(k, ArgMode::Sweep) + ") ? stnc_rt::kOk : stnc_rt::kBadArgument;");
  p.closeScope("sweep");
  p.openScope("int sweep_box(const stnc_rt::Layout& L_, const long* lo_, const long* hi_, " + declArgs(k, ArgMode::Sweep) + ")");
  p.line("const void* ptrs_[kFieldCount] = {" + ptrs + "};");
  p.line("if (int s_ = check(L_, ptrs_, alignof(real))) return s_;");
  p.line("if (!lo_ || !hi_) return stnc_rt::kNullPointer;");
  p.line("const stnc_rt::Box clip_ = stnc_rt::intersect(stnc_rt::interiorBox(L_), boxOf(lo_, hi_));");
  p.line("return sweepKernel(L_, clip_, " + callArgs(k, ArgMode::Sweep) + ") ? stnc_rt::kOk : stnc_rt::kBadArgument;");
  p.closeScope("sweep_box");
  p.openScope("int fill_boundaries(const stnc_rt::Layout& L_" + (fillDecl.empty() ? "" : ", " + fillDecl) + ")");
  p.line("if (L_.count == 0) return stnc_rt::kBadExtent;");
  for (const std::string& f : ruledFields(k)) p.line("if (!" + cIdent(f) + ") return stnc_rt::kNullPointer;");
  p.line("fillKernel(L_" + (fillCall.empty() ? "" : ", " + fillCall) + ");");
  p.line("return stnc_rt::kOk;");
  p.closeScope("fill_boundaries");
  p.openScope("int step(const stnc_rt::Layout& L_, long steps_, " + declArgs(k, ArgMode::Step) +
              ", const Source* sources_, int nsources_)");
  p.line("if (steps_ < 0 || nsources_ < 0 || (nsources_ > 0 && !sources_)) return stnc_rt::kBadArgument;");
  p.line("const void* ptrs_[kFieldCount] = {" + ptrs + "};");
  p.line("if (int s_ = check(L_, ptrs_, alignof(real))) return s_;");
  p.line("if (int s_ = checkSources(L_, sources_, nsources_)) return s_;");
  p.openScope("for (long s_ = 0; s_ < steps_; ++s_)");
  p.line("fillKernel(L_" + (fillCall.empty() ? "" : ", " + fillCall) + ");");
  p.line("if (!sweepKernel(L_, stnc_rt::interiorBox(L_), " + callArgs(k, ArgMode::Sweep) + ")) return stnc_rt::kBadArgument;");
  p.openScope("if (nsources_ > 0)");
  p.line("real* roles_[kFieldCount] = {" + ptrs + "};");
  p.line("for (int q_ = 0; q_ < nsources_; ++q_) roles_[sources_[q_].field][sourceIndex(L_, sources_[q_])] += sources_[q_].wavelet[s_];");
  p.closeScope("point sources");
  for (auto& [a, b] : k.swaps) p.line("std::swap(" + cIdent(a) + ", " + cIdent(b) + ");");
  p.closeScope("for s");
  p.line("return stnc_rt::kOk;");
  p.closeScope("step");
  p.closeScope("namespace cpu");
  p.closeScope("namespace " + ns);
  p.line();

  emitCpuEntry(p, k);
}

}  // namespace

std::string generateCpp(const dag::Module& m, const GenOptions& o) {
  CPrinter p;
  p.raw(banner(m, o, m.sourceName + ".cpp — CPU (OpenMP) kernels"));
  p.line("#include \"" + m.sourceName + ".h\"");
  p.line();
  p.line("#include <math.h>");
  p.line();
  p.line("#include <algorithm>");
  p.line("#include <chrono>");
  p.line("#include <cstdio>");
  p.line("#include <cstdlib>");
  p.line("#include <cstring>");
  p.line("#include <utility>");
  p.line("#include <vector>");
  p.line();
  for (const dag::Kernel& k : m.kernels) emitKernel(p, m, k);
  return p.str();
}

}  // namespace stnc::codegen
