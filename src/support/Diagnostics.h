// Diagnostics: every user-facing message goes through here (see DiagKinds.def for the table).
// Messages are collected, then printed sorted by location in clang style:
//   file:line:col: error: message
//     source line
//         ^
#pragma once
#include <iosfwd>
#include <sstream>
#include <string>
#include <vector>

#include "support/SourceManager.h"

namespace stnc {

enum class DiagId {
#define DIAG(id, sev, fmt) id,
#include "support/DiagKinds.def"
#undef DIAG
};

enum class Severity { Note, Warning, Error };

struct Diagnostic {
  DiagId id;
  Severity severity;
  Loc loc;
  std::string message;
  std::vector<Diagnostic> notes;
};

class DiagEngine;

// A count with its noun, for diagnostic arguments: counted(1, "axis", "axes") is "1 axis", counted(3, ...) "3 axes".
std::string counted(size_t n, const std::string& one, const std::string& many);

// An in-flight diagnostic: stream arguments into it; it is recorded when it goes out of scope.
class DiagBuilder {
 public:
  DiagBuilder(DiagEngine& engine, DiagId id, Loc loc);
  DiagBuilder(DiagBuilder&& o) noexcept;
  DiagBuilder(const DiagBuilder&) = delete;
  ~DiagBuilder();
  template <typename T>
  DiagBuilder& operator<<(const T& v) {
    std::ostringstream s;
    s << v;
    args_.push_back(s.str());
    return *this;
  }
  DiagBuilder& note(DiagId id, Loc loc, std::vector<std::string> args = {});

 private:
  DiagEngine* engine_;
  DiagId id_;
  Loc loc_;
  std::vector<std::string> args_;
  std::vector<Diagnostic> notes_;
};

class DiagEngine {
 public:
  explicit DiagEngine(const SourceManager& sm) : sm_(sm) {}
  DiagBuilder report(DiagId id, Loc loc) { return DiagBuilder(*this, id, loc); }
  void add(Diagnostic d);
  int errorCount() const { return errors_; }
  int warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ > 0; }
  const std::vector<Diagnostic>& all() const { return diags_; }
  // Prints all diagnostics, sorted by (file, line, col), stable; clears nothing.
  void print(std::ostream& os) const;
  std::string render(const Diagnostic& d) const;
  static Severity severityOf(DiagId id);
  static std::string format(DiagId id, const std::vector<std::string>& args);
  // Context notes ("in expansion of ...") appended to every diagnostic while pushed.
  void pushContext(Diagnostic note) { context_.push_back(std::move(note)); }
  void popContext() { context_.pop_back(); }
  bool warningsAsErrors = false;

 private:
  const SourceManager& sm_;
  std::vector<Diagnostic> diags_;
  std::vector<Diagnostic> context_;
  int errors_ = 0, warnings_ = 0;
};

}  // namespace stnc
