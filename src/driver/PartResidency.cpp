#include "driver/PartResidency.h"

#include "codegen/KernelBody.h"
#include "passes/SmemPlan.h"

namespace stnc::driver {

const PtxasInfo* partPtxas(const dag::Kernel& k, int part, const std::map<std::string, PtxasInfo>& ptxas, const std::string& suffix) {
  auto it = ptxas.find(k.name + "/" + codegen::partScope(k, part) + codegen::partName(k, part) + suffix);
  return it == ptxas.end() ? nullptr : &it->second;
}

std::map<int, passes::BlockUse> partBlockUses(const dag::Module& m, const dag::Kernel& k, const std::map<std::string, PtxasInfo>& ptxas) {
  std::map<int, passes::BlockUse> use;
  if (k.schedule.strategy != dag::Strategy::Stream) return use;
  for (int part : dag::kernelParts(k)) {
    const PtxasInfo* pi = partPtxas(k, part, ptxas);
    const dag::Schedule& s = k.scheduleOf(part);
    if (!pi || s.strategy != dag::Strategy::Stream) continue;
    passes::BlockUse b;
    b.threads = s.blockX * s.blockY, b.registers = pi->registers;
    if (s.smem) {
      const passes::SmemPlan sp = passes::planSmem(m.ctx, k, part);
      if (sp.ok) b.smem = sp.bytes;
    }
    use[part] = b;
  }
  return use;
}

bool slabBlockUse(const dag::Module& m, const dag::Kernel& k, const std::map<std::string, PtxasInfo>& ptxas, passes::BlockUse& use) {
  const dag::Schedule& s = k.scheduleOf(-1);
  if (k.regions.empty() || s.strategy != dag::Strategy::Stream || s.tma != 2) return false;
  const PtxasInfo* pi = partPtxas(k, -1, ptxas, "_tma");
  const passes::SmemPlan sp = passes::planSmemTma(m.ctx, k, -1);
  if (!pi || !sp.ok) return false;
  use.threads = s.blockX * s.blockY, use.registers = pi->registers, use.smem = sp.bytes;
  return true;
}

}  // namespace stnc::driver
