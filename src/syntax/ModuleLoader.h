// ModuleLoader: reads the main file and, transitively, its imports.
// An import is searched next to the importing file, then in each -I directory, then in the stdlib
// directory. Each file is read once (a second import of it is a no-op); an import cycle is an error
// that names the chain. The result merges every module, imported declarations first.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "support/Diagnostics.h"
#include "syntax/Ast.h"

namespace stnc {

struct LoadOptions {
  std::vector<std::string> includeDirs;
  std::string stdlibDir;
};

// Returns nullopt when any file failed to read or parse (diagnostics say why).
std::optional<ast::Program> loadProgram(const std::string& mainPath, const LoadOptions& opts, SourceManager& sm,
                                        DiagEngine& diags);
// Same, from text already in memory (tests, stdin).
std::optional<ast::Program> loadProgramText(const std::string& name, const std::string& text,
                                            const LoadOptions& opts, SourceManager& sm, DiagEngine& diags);

}  // namespace stnc
