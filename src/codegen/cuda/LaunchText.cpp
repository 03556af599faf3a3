#include "codegen/cuda/LaunchText.h"

namespace stnc::codegen {

void emitSmCount(CPrinter& p, const std::string& extra, const std::string& once) {
  p.line("static int sms_ = 0" + (extra.empty() ? std::string() : ", " + extra + " = 0") + ";  // multiprocessors of the current device" +
         (extra.empty() ? "" : " (and " + extra + ")") + ", read once");
  p.openScope("if (sms_ == 0)");
  p.line("int dev_ = 0;");
  p.line("if (cudaGetDevice(&dev_) != cudaSuccess || cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, dev_) != cudaSuccess || sms_ <= 0) sms_ = 132;");
  if (!once.empty()) p.line(once);
  p.closeScope("");
}

void emitChunkClamp(CPrinter& p) {
  p.line("if (chunk_ < 1) chunk_ = 1;");
  p.line("if (chunk_ > nx_) chunk_ = nx_;");
  p.line("if ((nx_ + chunk_ - 1) / chunk_ > 65535) chunk_ = (nx_ + 65534) / 65535;");
}

void emitChunkedGrid(CPrinter& p) {
  emitChunkClamp(p);
  p.line("const dim3 block_(kBlockX, kBlockY, 1);");
  p.line("const dim3 grid_(static_cast<unsigned>(gx_), static_cast<unsigned>(gy_), static_cast<unsigned>((nx_ + chunk_ - 1) / chunk_));");
}

}  // namespace stnc::codegen
