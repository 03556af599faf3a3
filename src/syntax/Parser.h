// Parser: text of one file -> ast::Module, through the ANTLR-generated parser.
// Syntax errors are reported as located diagnostics; the AST is only built when there are none
// (ANTLR's recovered parse trees can hold null children).
#pragma once
#include <optional>

#include "support/Diagnostics.h"
#include "syntax/Ast.h"

namespace stnc {

std::optional<ast::Module> parseModule(const SourceManager& sm, uint32_t file, DiagEngine& diags);

// Parses a number literal (decimal, exponent or hex float) exactly; false if malformed.
bool parseNumber(const std::string& text, double& value);

}  // namespace stnc
