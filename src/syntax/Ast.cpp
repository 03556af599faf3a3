#include "syntax/Ast.h"

namespace stnc::ast {

const char* roleName(FieldRole r) {
  switch (r) {
    case FieldRole::In: return "in";
    case FieldRole::Out: return "out";
    case FieldRole::InOut: return "inout";
  }
  return "in";
}

bool isComparison(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
}
bool isLogical(const std::string& op) { return op == "&&" || op == "||"; }

}  // namespace stnc::ast
