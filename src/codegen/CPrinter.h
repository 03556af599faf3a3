// CPrinter: the C-like text printer both backends derive their output from. It owns indentation
// (openScope / closeScope label each closing brace with what it closes), and prints exact
// literals: float64 constants as the shortest decimal that reads back to the same double (never
// rounded through float32), float32 constants as the shortest that reads back to the same float.
#pragma once
#include <sstream>
#include <string>

#include "dag/Kernel.h"

namespace stnc::codegen {

class CPrinter {
 public:
  CPrinter& line(const std::string& s = "");
  // Prints "head {" and indents; closeScope prints "}  // label".
  void openScope(const std::string& head);
  void closeScope(const std::string& label = "", const std::string& suffix = "");
  // A comment block, one "// " line per input line.
  void comment(const std::string& text);
  void raw(const std::string& s) { out_ << s; }
  std::string str() const { return out_.str(); }
  int indent = 0;

 private:
  std::ostringstream out_;
};

// Shortest exact literal of v in the element type t ("0.1", "1.0", "(-0.2)", "0.1f").
std::string literal(double v, dag::ElemType t);
// A user name made safe as a C++ identifier (C++ keywords get a trailing underscore).
std::string cIdent(const std::string& name);
// Name of the C math function for op in type t (fmin / fminf, ...); empty for operators.
std::string mathFunction(dag::Op op, dag::ElemType t);

}  // namespace stnc::codegen
