// The compiler's pipeline, top-down: parse+load -> declaration checks -> lowering -> passes.
// Each step is one line in compileModule (Pipeline.cpp); comments there say where order matters.
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "dag/Kernel.h"
#include "passes/ChooseSchedule.h"
#include "passes/PassManager.h"
#include "syntax/ModuleLoader.h"

namespace stnc::passes {

PassManager standardPasses(const ScheduleOverride& schedule = {});

struct CompileResult {
  std::optional<dag::Module> module;
  std::vector<std::string> files;  // every file read (for -M depfiles)
};

// Runs the whole front and middle end on a file (or on `text` when non-empty).
CompileResult compileModule(const std::string& path, const std::string* text, const LoadOptions& load,
                            const PassOptions& popts, SourceManager& sm, DiagEngine& diags, std::ostream& log,
                            const ScheduleOverride& schedule = {});

}  // namespace stnc::passes
