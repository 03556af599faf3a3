#include "support/Diagnostics.h"

#include <algorithm>
#include <ostream>

namespace stnc {

namespace {
struct DiagInfo {
  Severity severity;
  const char* format;
};
const DiagInfo kDiagTable[] = {
#define DIAG(id, sev, fmt) {Severity::sev, fmt},
#include "support/DiagKinds.def"
#undef DIAG
};
const char* severityName(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "error";
}
}  // namespace

std::string counted(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

Severity DiagEngine::severityOf(DiagId id) { return kDiagTable[static_cast<int>(id)].severity; }

std::string DiagEngine::format(DiagId id, const std::vector<std::string>& args) {
  std::string out;
  const char* f = kDiagTable[static_cast<int>(id)].format;
  for (const char* p = f; *p; ++p) {
    if (*p == '%' && p[1] >= '0' && p[1] <= '9') {
      size_t n = static_cast<size_t>(p[1] - '0');
      if (n < args.size()) out += args[n];
      ++p;
      continue;
    }
    out += *p;
  }
  return out;
}

DiagBuilder::DiagBuilder(DiagEngine& engine, DiagId id, Loc loc) : engine_(&engine), id_(id), loc_(loc) {}
DiagBuilder::DiagBuilder(DiagBuilder&& o) noexcept
    : engine_(o.engine_), id_(o.id_), loc_(o.loc_), args_(std::move(o.args_)), notes_(std::move(o.notes_)) {
  o.engine_ = nullptr;
}
DiagBuilder& DiagBuilder::note(DiagId id, Loc loc, std::vector<std::string> args) {
  notes_.push_back({id, Severity::Note, loc, DiagEngine::format(id, args), {}});
  return *this;
}
DiagBuilder::~DiagBuilder() {
  if (!engine_) return;
  engine_->add({id_, DiagEngine::severityOf(id_), loc_, DiagEngine::format(id_, args_), std::move(notes_)});
}

void DiagEngine::add(Diagnostic d) {
  if (d.severity == Severity::Warning && warningsAsErrors) d.severity = Severity::Error;
  for (auto it = context_.rbegin(); it != context_.rend(); ++it) d.notes.push_back(*it);
  if (d.severity == Severity::Error) ++errors_;
  if (d.severity == Severity::Warning) ++warnings_;
  // The same message at the same place (a def expanded twice, say) is reported once.
  for (const Diagnostic& old : diags_)
    if (old.loc.file == d.loc.file && old.loc.line == d.loc.line && old.loc.col == d.loc.col &&
        old.message == d.message) {
      if (d.severity == Severity::Error) --errors_;
      if (d.severity == Severity::Warning) --warnings_;
      return;
    }
  diags_.push_back(std::move(d));
}

std::string DiagEngine::render(const Diagnostic& d) const {
  std::string out;
  if (d.loc.valid()) {
    out += sm_.path(d.loc.file) + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": ";
  } else {
    out += "stnc: ";
  }
  out += std::string(severityName(d.severity)) + ": " + d.message + "\n";
  if (d.loc.valid()) {
    std::string line = sm_.line(d.loc.file, d.loc.line);
    size_t col = d.loc.col;  // 1-based column of the caret within `line`
    // A line longer than kMaxShown is shown as a window of kWindow bytes around the caret ("..."
    // marks the cut ends; a UTF-8 sequence is never split), not whole: generated or minified
    // sources can have lines of megabytes.
    constexpr size_t kMaxShown = 160, kWindow = 120;
    if (line.size() > kMaxShown) {
      size_t at = std::min(col == 0 ? 0 : col - 1, line.size());
      size_t lo = at > kWindow / 2 ? at - kWindow / 2 : 0;
      size_t hi = std::min(line.size(), lo + kWindow);
      if (hi - lo < kWindow) lo = hi > kWindow ? hi - kWindow : 0;
      auto continuation = [&](size_t i) { return i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80; };
      while (lo < at && continuation(lo)) ++lo;
      while (hi > at + 1 && continuation(hi)) --hi;
      const std::string head = lo > 0 ? "..." : "", tail = hi < line.size() ? "..." : "";
      line = head + line.substr(lo, hi - lo) + tail;
      col = col - lo + head.size();
    }
    out += "  " + line + "\n  ";
    for (size_t c = 1; c < col && c <= line.size(); ++c) out += line[c - 1] == '\t' ? '\t' : ' ';
    out += "^\n";
  }
  for (const Diagnostic& n : d.notes) out += render(n);
  return out;
}

void DiagEngine::print(std::ostream& os) const {
  std::vector<const Diagnostic*> sorted;
  for (const Diagnostic& d : diags_) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic* a, const Diagnostic* b) {
    if (a->loc.file != b->loc.file) return a->loc.file < b->loc.file;
    if (a->loc.line != b->loc.line) return a->loc.line < b->loc.line;
    return a->loc.col < b->loc.col;
  });
  for (const Diagnostic* d : sorted) os << render(*d);
}

}  // namespace stnc
