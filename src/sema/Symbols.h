// Symbols: the global names of a program, built by checkDeclarations and read by the lowering.
#pragma once
#include <map>
#include <string>

#include "syntax/Ast.h"

namespace stnc::sema {

struct Symbols {
  std::map<std::string, const ast::ConstDecl*> consts;
  std::map<std::string, const ast::DefDecl*> defs;
  std::map<std::string, const ast::OffsetsDecl*> offsets;
  std::map<std::string, const ast::StencilDecl*> stencils;
  std::map<std::string, const ast::GroupDecl*> groups;
};

// Names that cannot be declared: intrinsics and contextual words.
bool isReservedName(const std::string& name);

}  // namespace stnc::sema
