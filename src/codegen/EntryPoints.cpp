// The C entry points `stnc run` (and gpu_check's harness, the autotuner) call in a generated source:
// host arrays in the kernel's layout in, the same arrays out; one sweep or the step loop with point
// sources; optional timed sweeps on scratch copies. Signature and contract: codegen/Backends.h.
#include "codegen/Backends.h"
#include "codegen/KernelBody.h"
#include "support/Text.h"

namespace stnc::codegen {

namespace {

// The entry point's signature, extents, params and point sources (codegen/Backends.h).
void emitEntryPrologue(CPrinter& p, const dag::Kernel& k, const std::string& backend) {
  p.openScope("extern \"C\" int " + entryName(k, backend) +
              "(const long* n_, void** fields_, const double* params_, long steps_, int nsrc_, const long* srcAt_, "
              "const double* srcWave_, long reps_, double* ms_, char* err_, unsigned long errlen_)");
  p.line("using namespace stn::" + cIdent(k.name) + ";");
  std::string ns;
  for (int a = 0; a < k.rank(); ++a) ns += (a ? ", " : "") + std::string("n_[") + std::to_string(a) + "]";
  p.line("const stnc_rt::Layout L_ = layout(" + ns + ");");
  for (size_t i = 0; i < k.params.size(); ++i)
    p.line("const real " + cIdent(k.params[i]) + " = static_cast<real>(params_[" + std::to_string(i) + "]);");
  if (k.params.empty()) p.line("(void)params_;");
  const std::string stride = std::to_string(k.rank() + 1);
  p.line("// Point sources: field and interior point from srcAt_, one wavelet value per step (in `real`) from srcWave_;");
  p.line("// each Source's wavelet pointer is set by the caller below (host or device memory).");
  p.openScope("if (nsrc_ < 0 || (nsrc_ > 0 && (!srcAt_ || !srcWave_ || steps_ < 1)))");
  p.line("std::snprintf(err_, errlen_, \"point sources need steps >= 1 and their coordinates and wavelets\");");
  p.line("return stnc_rt::kBadArgument;");
  p.closeScope("bad sources");
  p.line("std::vector<Source> src_(static_cast<size_t>(nsrc_));");
  p.line("std::vector<real> srcWaveR_(static_cast<size_t>(nsrc_) * static_cast<size_t>(steps_));");
  p.line("for (size_t i_ = 0; i_ < srcWaveR_.size(); ++i_) srcWaveR_[i_] = static_cast<real>(srcWave_[i_]);");
  p.openScope("for (int q_ = 0; q_ < nsrc_; ++q_)");
  p.line("const long* at_ = srcAt_ + q_ * " + stride + ";");
  p.line("src_[q_].field = static_cast<int>(at_[0]);");
  for (int a = 0; a < k.rank(); ++a) p.line("src_[q_]." + cIdent(k.axes[a]) + " = at_[" + std::to_string(a + 1) + "];");
  p.closeScope("for q_");
}

// "scratch_[0], scratch_[1], ..., p1, p2": the fields from an array of slots, then the params.
std::string slotArgs(const dag::Kernel& k, const std::string& slots) {
  std::string s;
  for (size_t i = 0; i < k.fields.size(); ++i) s += (i ? ", " : "") + slots + "[" + std::to_string(i) + "]";
  for (const std::string& prm : k.params) s += ", " + cIdent(prm);
  return s;
}

// "real* u = PRE0POST;" per field: the kernel's field names bound to the slots the entry point holds them in.
void bindFields(CPrinter& p, const dag::Kernel& k, const std::string& pre, const std::string& post) {
  for (size_t i = 0; i < k.fields.size(); ++i)
    p.line("real* " + cIdent(k.fields[i].name) + " = " + pre + std::to_string(i) + post + ";");
}

std::string fillCallArgs(const dag::Kernel& k) {
  const std::string fill = callArgs(k, ArgMode::Fill);
  return "L_" + (fill.empty() ? "" : ", " + fill);
}

}  // namespace

std::string entryName(const dag::Kernel& k, const std::string& backend) { return "stnc_entry_" + k.name + "_" + backend; }

void emitCpuEntry(CPrinter& p, const dag::Kernel& k) {
  emitEntryPrologue(p, k, "cpu");
  bindFields(p, k, "static_cast<real*>(fields_[", "])");
  p.openScope("if (reps_ > 0)");
  p.line("// Time `reps` sweeps on scratch copies, so the real run below sees untouched inputs.");
  p.line("std::vector<real*> scratch_(kFieldCount);");
  p.openScope("for (int f_ = 0; f_ < kFieldCount; ++f_)");
  p.line("scratch_[f_] = static_cast<real*>(std::aligned_alloc(128, stnc_rt::roundUp(count(L_, f_) * sizeof(real), 128)));");
  p.line("if (!scratch_[f_]) { std::snprintf(err_, errlen_, \"out of memory\"); return stnc_rt::kBadArgument; }");
  p.line("std::memcpy(scratch_[f_], fields_[f_], count(L_, f_) * sizeof(real));");
  p.closeScope("for f");
  p.line("std::vector<double> times_;");
  p.openScope("for (long r_ = 0; r_ <= reps_; ++r_)  // the first sweep warms up");
  p.line("const auto t0_ = std::chrono::steady_clock::now();");
  p.line("cpu::sweep(L_, " + slotArgs(k, "scratch_") + ");");
  p.line("const double ms1_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();");
  p.line("if (r_ > 0) times_.push_back(ms1_);");
  p.closeScope("for r");
  p.line("std::sort(times_.begin(), times_.end());");
  p.line("ms_[0] = times_[times_.size() / 2];");
  p.line("ms_[1] = times_.front();");
  p.line("for (real* s_ : scratch_) std::free(s_);");
  p.closeScope("if reps");
  p.line("int status_ = stnc_rt::kOk;");
  p.openScope("if (steps_ > 0)");
  p.line("for (int q_ = 0; q_ < nsrc_; ++q_) src_[q_].wavelet = srcWaveR_.data() + q_ * steps_;");
  p.line("status_ = cpu::step(L_, steps_, " + callArgs(k, ArgMode::Sweep) + ", src_.data(), nsrc_);");
  for (size_t i = 0; i < k.fields.size(); ++i)
    p.line("fields_[" + std::to_string(i) + "] = " + cIdent(k.fields[i].name) + ";");
  p.closeScope("steps > 0");
  p.openScope("else");
  p.line("status_ = cpu::fill_boundaries(" + fillCallArgs(k) + ");");
  p.line("if (status_ == stnc_rt::kOk) status_ = cpu::sweep(L_, " + callArgs(k, ArgMode::Sweep) + ");");
  p.closeScope("else");
  p.line("if (status_ != stnc_rt::kOk) std::snprintf(err_, errlen_, \"%s\", stnc_rt::statusName(status_));");
  p.line("return status_;");
  p.closeScope(entryName(k, "cpu"));
  p.line();
}

void emitCudaEntry(CPrinter& p, const dag::Kernel& k) {
  const std::string sweepCall = callArgs(k, ArgMode::Sweep);
  std::string ptrs;
  for (const dag::Field& f : k.fields) appendItem(ptrs, cIdent(f.name));
  emitEntryPrologue(p, k, "cuda");
  p.line("int count_ = 0;");
  p.openScope("if (cudaGetDeviceCount(&count_) != cudaSuccess || count_ == 0)");
  p.line("std::snprintf(err_, errlen_, \"no CUDA device available\");");
  p.line("return 100;");
  p.closeScope("no device");
  p.line("if (L_.count == 0) { std::snprintf(err_, errlen_, \"extent must be positive\"); return stnc_rt::kBadExtent; }");
  p.line("size_t bytes_[kFieldCount];  // per field: the layout's arrays, or a lower-rank field's dense extent");
  p.line("for (int f_ = 0; f_ < kFieldCount; ++f_) bytes_[f_] = count(L_, f_) * sizeof(real);");
  p.line("real* dev_[kFieldCount] = {};");
  p.line("cudaError_t e_ = cudaSuccess;");
  p.line("for (int f_ = 0; f_ < kFieldCount && e_ == cudaSuccess; ++f_) e_ = cudaMalloc(&dev_[f_], bytes_[f_]);");
  p.line("auto upload_ = [&] { for (int f_ = 0; f_ < kFieldCount && e_ == cudaSuccess; ++f_) e_ = cudaMemcpy(dev_[f_], fields_[f_], bytes_[f_], cudaMemcpyHostToDevice); };");
  p.line("upload_();");
  p.openScope("if (e_ == cudaSuccess && reps_ > 0)");
  p.line("cudaEvent_t a_ = nullptr, b_ = nullptr;");
  p.line("cudaEventCreate(&a_);");
  p.line("cudaEventCreate(&b_);");
  p.line("std::vector<double> times_;");
  p.line("const stnc_rt::L2Flusher flush_;  // every timed sweep starts with a cold L2");
  p.openScope("for (long r_ = 0; r_ <= reps_ && e_ == cudaSuccess; ++r_)  // the first sweep warms up");
  p.line("e_ = flush_.flush();");
  p.line("if (e_ != cudaSuccess) break;");
  p.line("cudaEventRecord(a_);");
  p.line("e_ = cuda::sweep(L_, " + slotArgs(k, "dev_") + ");");
  p.line("cudaEventRecord(b_);");
  p.line("if (e_ == cudaSuccess) e_ = cudaEventSynchronize(b_);");
  p.line("float t_ = 0;");
  p.line("cudaEventElapsedTime(&t_, a_, b_);");
  p.line("if (r_ > 0) times_.push_back(t_);");
  p.closeScope("for r");
  p.line("cudaEventDestroy(a_);");
  p.line("cudaEventDestroy(b_);");
  p.openScope("if (e_ == cudaSuccess)");
  p.line("std::sort(times_.begin(), times_.end());");
  p.line("ms_[0] = times_[times_.size() / 2];");
  p.line("ms_[1] = times_.front();");
  p.closeScope("");
  p.line("upload_();  // the timed sweeps may have updated inout fields");
  p.closeScope("bench");
  bindFields(p, k, "dev_[", "]");
  p.openScope("if (e_ == cudaSuccess)");
  p.openScope("if (steps_ > 0)");
  p.line("real* devWave_ = nullptr;  // the sources' wavelets, on the device");
  p.openScope("if (nsrc_ > 0)");
  p.line("e_ = cudaMalloc(&devWave_, srcWaveR_.size() * sizeof(real));");
  p.line("if (e_ == cudaSuccess) e_ = cudaMemcpy(devWave_, srcWaveR_.data(), srcWaveR_.size() * sizeof(real), cudaMemcpyHostToDevice);");
  p.line("for (int q_ = 0; q_ < nsrc_; ++q_) src_[q_].wavelet = devWave_ + q_ * steps_;");
  p.closeScope("");
  p.line("if (e_ == cudaSuccess) e_ = cuda::step(L_, steps_, " + sweepCall + ", nullptr, src_.data(), nsrc_);");
  p.line("if (e_ == cudaSuccess) e_ = cudaDeviceSynchronize();");
  p.line("cudaFree(devWave_);");
  p.closeScope("");
  p.openScope("else");
  p.line("e_ = cuda::fill_boundaries(" + fillCallArgs(k) + ");");
  p.line("if (e_ == cudaSuccess) e_ = cuda::sweep(L_, " + sweepCall + ");");
  p.closeScope("");
  p.line("if (e_ == cudaSuccess) e_ = cudaDeviceSynchronize();");
  p.closeScope("run");
  p.line("real* roles_[kFieldCount] = {" + ptrs + "};");
  p.line("for (int f_ = 0; f_ < kFieldCount && e_ == cudaSuccess; ++f_) e_ = cudaMemcpy(fields_[f_], roles_[f_], bytes_[f_], cudaMemcpyDeviceToHost);");
  p.line("for (int f_ = 0; f_ < kFieldCount; ++f_) cudaFree(dev_[f_]);");
  p.line("if (e_ != cudaSuccess) std::snprintf(err_, errlen_, \"CUDA error: %s\", cudaGetErrorString(e_));");
  p.line("return e_ == cudaSuccess ? 0 : 200 + static_cast<int>(e_);");
  p.closeScope(entryName(k, "cuda"));
  p.line();
}

}  // namespace stnc::codegen
