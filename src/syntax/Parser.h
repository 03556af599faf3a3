// Parser: text of one file -> ast::Module, through the ANTLR-generated parser.
// Syntax errors are reported as located diagnostics; the AST is only built when there are none
// (ANTLR's recovered parse trees can hold null children).
#pragma once
#include <optional>

#include "support/Diagnostics.h"
#include "syntax/Ast.h"

namespace stnc {

std::optional<ast::Module> parseModule(const SourceManager& sm, uint32_t file, DiagEngine& diags);

// What a number literal's text reads as: a float64 (nonzero literals below the smallest subnormal read as 0:
// Underflow), or nothing (Malformed; Overflow beyond the largest float64, which would read as infinity).
enum class NumberRead { Ok, Underflow, Overflow, Malformed };

// Reads a number literal (decimal, exponent or hex float) exactly, correctly rounded; `value` is set for Ok and
// Underflow (0).
NumberRead readNumber(const std::string& text, double& value);

}  // namespace stnc
