// printAst: the AST as indented S-expressions (--emit=ast), to see how the parser read a program
// (precedence, the extent of sum bodies, def parameters).
#pragma once
#include <iosfwd>

#include "syntax/Ast.h"

namespace stnc {

void printAst(std::ostream& os, const ast::Module& m);
std::string exprToString(const ast::Expr& e);

}  // namespace stnc
