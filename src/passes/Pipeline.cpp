#include "passes/Pipeline.h"

#include <filesystem>

#include "lower/AstToDag.h"
#include "passes/CheckUnused.h"
#include "passes/ChooseSchedule.h"
#include "passes/ContractFma.h"
#include "passes/FactorSums.h"
#include "passes/Footprint.h"
#include "passes/TensorSums.h"
#include "passes/FuseGroups.h"
#include "passes/PruneDeadNodes.h"
#include "sema/CheckDecls.h"
#include "support/LargeStack.h"

namespace stnc::passes {

namespace {
CompileResult compileModuleHere(const std::string& path, const std::string* text, const LoadOptions& load,
                                const PassOptions& popts, SourceManager& sm, DiagEngine& diags, std::ostream& log,
                                const ScheduleOverride& schedule);
}  // namespace

PassManager standardPasses(const ScheduleOverride& schedule) {
  PassManager pm;
  // Groups first: the later passes see a fused group as one ordinary kernel.
  pm.add("fuse-groups", fuseGroups);
  // Compile-time evaluation leaves dead nodes; drop them before anything counts nodes.
  pm.add("prune-dead-nodes", pruneDeadNodes);
  // Opt-in FMA contraction (--fp-contract=on); a no-op otherwise, so the pass list stays fixed.
  pm.add("contract-fma", [schedule](dag::Module& m, DiagEngine& d) { return schedule.contractFma && contractFma(m, d); });
  // Wide weighted box sums that the FP64 tensor cores compute bit for bit as written (an fma chain, so only
  // with --fp-contract=on; --tensor-cores=off disables): marked before factor-sums, which leaves them.
  pm.add("tensor-sums", [schedule](dag::Module& m, DiagEngine& d) {
    return schedule.contractFma && schedule.tensorCores != "off" && markTensorSums(m, d);
  });
  // Opt-in reassociation (--factor-sums=on): symmetric weighted sums as shared partial sums, after
  // contract-fma so that it builds its own fma chain (and before the footprint, which it keeps).
  pm.add("factor-sums", [schedule](dag::Module& m, DiagEngine& d) {
    return schedule.factorSums && factorSums(m, d, schedule.contractFma, schedule.tensorCores != "off");
  });
  // Footprints (halos) of stencils and of the fused groups.
  pm.add("footprint", computeFootprints);
  pm.add("check-unused", checkUnused);
  // The GPU mapping reads the footprints.
  pm.add("choose-schedule", [schedule](dag::Module& m, DiagEngine& d) { return chooseSchedules(m, d, schedule); });
  return pm;
}

CompileResult compileModule(const std::string& path, const std::string* text, const LoadOptions& load,
                            const PassOptions& popts, SourceManager& sm, DiagEngine& diags, std::ostream& log,
                            const ScheduleOverride& schedule) {
  // On a thread with a large stack: the nesting limits, not the caller's stack, bound recursion
  // (support/LargeStack.h; frames are much larger under the sanitizers).
  CompileResult result;
  runOnLargeStack([&] { result = compileModuleHere(path, text, load, popts, sm, diags, log, schedule); });
  return result;
}

namespace {

CompileResult compileModuleHere(const std::string& path, const std::string* text, const LoadOptions& load,
                                const PassOptions& popts, SourceManager& sm, DiagEngine& diags, std::ostream& log,
                                const ScheduleOverride& schedule) {
  CompileResult r;
  std::optional<ast::Program> prog =
      text ? loadProgramText(path, *text, load, sm, diags) : loadProgram(path, load, sm, diags);
  for (uint32_t f = 1; f <= sm.fileCount(); ++f) r.files.push_back(sm.path(f));
  if (!prog) return r;
  // Declaration errors do not stop the lowering: expression errors are reported in the same run.
  sema::Symbols syms = sema::checkDeclarations(*prog, diags);
  std::optional<dag::Module> m = lower::lowerProgram(*prog, syms, diags);
  if (!m || diags.hasErrors()) return r;
  m->sourcePath = path;
  m->sourceName = std::filesystem::path(path).stem().string();
  if (!standardPasses(schedule).run(*m, diags, popts, log)) return r;
  r.module = std::move(m);
  return r;
}

}  // namespace

}  // namespace stnc::passes
