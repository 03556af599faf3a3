#include "passes/Occupancy.h"

#include "support/Text.h"

namespace stnc::passes {

SmLimits smLimits(int smVersion) {
  SmLimits s;
  if (smVersion >= 90 || smVersion <= 0) return s;
  if (smVersion == 80) {
    s.smem = 167936, s.smemPerBlock = 166912;  // 164 / 163 KiB
  } else if (smVersion == 86 || smVersion == 89) {
    s.threads = 1536, s.blocks = smVersion == 86 ? 16 : 24;
    s.smem = 102400, s.smemPerBlock = 101376;  // 100 / 99 KiB
  }
  return s;
}

namespace {
int warpsOf(int threads) { return (threads + 31) / 32; }
int registersPerWarp(int regs, const SmLimits& sm) { return (regs * 32 + sm.regUnit - 1) / sm.regUnit * sm.regUnit; }
}  // namespace

Residency residentBlocks(const BlockUse& b, const SmLimits& sm, const std::vector<std::pair<BlockUse, int>>& beside) {
  long regs = sm.registers, threads = sm.threads, blocks = sm.blocks, smem = sm.smem;
  for (const auto& [o, n] : beside) {
    regs -= static_cast<long>(n) * registersPerWarp(o.registers, sm) * warpsOf(o.threads);
    threads -= static_cast<long>(n) * warpsOf(o.threads) * 32;
    blocks -= n;
    smem -= n * (o.smem + sm.reserved);
  }
  Residency r;
  if (b.threads <= 0 || b.smem > sm.smemPerBlock || regs < 0 || threads < 0 || blocks < 0 || smem < 0) return r;
  const long rpw = registersPerWarp(b.registers, sm);
  const long byRegs = rpw > 0 ? regs / rpw / warpsOf(b.threads) : blocks;
  const long byThreads = threads / (warpsOf(b.threads) * 32L);
  const long bySmem = smem / (b.smem + sm.reserved);
  const std::pair<long, const char*> limits[] = {{byRegs, "registers"}, {bySmem, "shared memory"}, {byThreads, "threads"}, {blocks, "blocks"}};
  long least = blocks;
  for (const auto& [n, what] : limits) least = n < least ? n : least;
  r.blocks = static_cast<int>(least);
  for (const auto& [n, what] : limits)
    if (n == least) appendItem(r.limit, std::string(what));
  return r;
}

int defaultBlocksBeside(const std::map<int, BlockUse>& uses, const SmLimits& sm) {
  auto def = uses.find(-1);
  if (def == uses.end()) return -1;
  int least = -1;
  for (const auto& [part, b] : uses) {
    if (part < 0) continue;
    const int beside = residentBlocks(def->second, sm, {{b, residentBlocks(b, sm).blocks}}).blocks;
    least = least < 0 || beside < least ? beside : least;
  }
  return least;
}

}  // namespace stnc::passes
