#include "codegen/CPrinter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "support/Text.h"

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
  // An f32 kernel's constant is the f64 value rounded once to f32: beyond the f32 range that is an infinity
  // (printed by name: "%g" would give "inf"; the lowering warns, warn_const_f32_range).
  if (t == dag::ElemType::F32) v = static_cast<float>(v);
  if (std::isnan(v)) return t == dag::ElemType::F32 ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (std::isinf(v)) {
    std::string s = t == dag::ElemType::F32 ? "__builtin_inff()" : "__builtin_inf()";
    return v > 0 ? s : "(-" + s + ")";
  }
  std::string s = shortestText(v, t == dag::ElemType::F32);  // an f32 value: v was rounded to f32 above
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (t == dag::ElemType::F32) s += "f";
  if (s[0] == '-') s = "(" + s + ")";
  return s;
}

std::string cIdent(const std::string& name) {
  // Names a user may write that the generated code cannot use as they are: C++ keywords and
  // alternative tokens, the math functions and macros the generated code uses unqualified, CUDA
  // builtins, and the identifiers of the generated API itself.
  static const std::set<std::string> kReserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "class", "compl", "const", "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do",
      "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend",
      "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
      "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "main",
      // math (both precisions) and macros
      "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "pow", "powf", "sqrt", "sqrtf", "exp", "expf", "log",
      "logf", "sin", "sinf", "cos", "cosf", "floor", "floorf", "ceil", "ceilf", "abs", "min", "max", "fma", "INFINITY",
      "NAN", "NULL", "EOF", "HUGE_VAL", "assert", "errno", "M_PI",
      // CUDA
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "__global__", "__device__", "__host__",
      // the generated API
      "real", "stn", "stnc_rt", "std", "cpu", "cuda", "check", "layout", "index", "boxOf", "Source", "sourceIndex",
      "checkSources", "DevSource", "FieldPtrs", "addSources", "addPoint", "add_sources", "toCuda", "sweep", "sweep_box", "step",
      "fill_boundaries", "sweepKernel", "sweepPart", "fillKernel", "launchSweep", "launchSweepOnLanes", "launchPart", "launchFill",
      "kRank", "kAxes", "kHalo", "kHaloInternal", "kPad", "kFieldCount", "kParamCount", "kFields", "kBlockX",
      "kBlockY", "kChunk"};
  // Generated internals end in '_' (p_, t12_, u_m1_0_0_) and never contain "__": a user name with a
  // trailing '_' becomes NAME_u_ (a__u_ for a_), a reserved name NAME_r_ (no user name maps there).
  if (!name.empty() && name.back() == '_') return name + "_u_";
  return kReserved.count(name) ? name + "_r_" : name;
}

std::string mathFunction(dag::Op op, dag::ElemType t) {
  std::string f;
  switch (op) {
    case dag::Op::Pow: f = "pow"; break;
    case dag::Op::Abs: f = "fabs"; break;
    case dag::Op::Sqrt: f = "sqrt"; break;
    case dag::Op::Exp: f = "exp"; break;
    case dag::Op::Log: f = "log"; break;
    case dag::Op::Sin: f = "sin"; break;
    case dag::Op::Cos: f = "cos"; break;
    case dag::Op::Floor: f = "floor"; break;
    case dag::Op::Ceil: f = "ceil"; break;
    case dag::Op::Fma: f = "fma"; break;  // one rounding: the same bits on every backend
    default: return "";
  }
  return t == dag::ElemType::F32 ? f + "f" : f;
}

}  // namespace stnc::codegen
