#include "codegen/CPrinter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace stnc::codegen {

CPrinter& CPrinter::line(const std::string& s) {
  if (!s.empty()) out_ << std::string(static_cast<size_t>(indent) * 2, ' ') << s;
  out_ << "\n";
  return *this;
}

void CPrinter::openScope(const std::string& head) {
  size_t c = head.find("  //");
  line(c == std::string::npos ? head + " {" : head.substr(0, c) + " {" + head.substr(c));
  ++indent;
}

void CPrinter::closeScope(const std::string& label, const std::string& suffix) {
  --indent;
  line(label.empty() ? "}" + suffix : "}" + suffix + "  // " + label);
}

void CPrinter::comment(const std::string& text) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) line(l.empty() ? "//" : "// " + l);
}

std::string literal(double v, dag::ElemType t) {
  if (std::isnan(v)) return t == dag::ElemType::F32 ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (std::isinf(v)) {
    std::string s = t == dag::ElemType::F32 ? "__builtin_inff()" : "__builtin_inf()";
    return v > 0 ? s : "(-" + s + ")";
  }
  char buf[64];
  std::string s;
  if (t == dag::ElemType::F32) {
    float f = static_cast<float>(v);
    for (int p = 1; p <= 9; ++p) {
      std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(f));
      if (std::strtof(buf, nullptr) == f) break;
    }
  } else {
    for (int p = 1; p <= 17; ++p) {
      std::snprintf(buf, sizeof buf, "%.*g", p, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
  }
  s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (t == dag::ElemType::F32) s += "f";
  if (s[0] == '-') s = "(" + s + ")";
  return s;
}

std::string cIdent(const std::string& name) {
  static const std::set<std::string> kKeywords = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "continue", "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
      "noexcept", "not", "nullptr", "operator", "or", "private", "protected", "public", "register", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true", "try",
      "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor",
      "real", "stnc_rt", "std", "L", "stream", "steps"};
  // Generated internals all end in '_', so user names never do.
  if (!name.empty() && name.back() == '_') return name + "u";
  return kKeywords.count(name) ? name + "_" : name;
}

std::string mathFunction(dag::Op op, dag::ElemType t) {
  std::string f;
  switch (op) {
    case dag::Op::Min: f = "fmin"; break;
    case dag::Op::Max: f = "fmax"; break;
    case dag::Op::Pow: f = "pow"; break;
    case dag::Op::Abs: f = "fabs"; break;
    case dag::Op::Sqrt: f = "sqrt"; break;
    case dag::Op::Exp: f = "exp"; break;
    case dag::Op::Log: f = "log"; break;
    case dag::Op::Sin: f = "sin"; break;
    case dag::Op::Cos: f = "cos"; break;
    case dag::Op::Floor: f = "floor"; break;
    case dag::Op::Ceil: f = "ceil"; break;
    default: return "";
  }
  return t == dag::ElemType::F32 ? f + "f" : f;
}

}  // namespace stnc::codegen
