#include "syntax/ModuleLoader.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "syntax/Parser.h"

namespace stnc {

namespace {

namespace fs = std::filesystem;

class Loader {
 public:
  Loader(const LoadOptions& o, SourceManager& sm, DiagEngine& d) : opts_(o), sm_(sm), diags_(d) {}

  bool run(uint32_t mainFile, ast::Program& prog) {
    visit(mainFile, canonical(sm_.path(mainFile)));
    prog.files = order_;
    // Main file first in `files`, but declarations of imports come before the importer's.
    std::rotate(prog.files.begin(), prog.files.end() - 1, prog.files.end());
    for (uint32_t f : postorder_) merge(prog.merged, modules_[f]);
    return ok_;
  }

 private:
  static std::string canonical(const std::string& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(fs::path(p), ec);
    return ec ? p : c.string();
  }

  void visit(uint32_t file, const std::string& key) {
    byPath_[key] = file;
    stack_.push_back(key);
    std::optional<ast::Module> m = parseModule(sm_, file, diags_);
    if (!m) {
      ok_ = false;
      stack_.pop_back();
      order_.push_back(file);
      return;
    }
    for (const ast::ImportDecl& imp : m->imports) {
      std::string found = resolve(imp.path, fs::path(sm_.path(file)).parent_path());
      if (found.empty()) {
        const std::string dir = fs::path(sm_.path(file)).parent_path().string();
        std::string where = "'" + (dir.empty() ? std::string(".") : dir) + "'";  // a source in the working directory
        for (auto& d : opts_.includeDirs) where += ", '" + d + "'";
        if (!opts_.stdlibDir.empty()) where += ", '" + opts_.stdlibDir + "'";
        diags_.report(DiagId::err_import_not_found, imp.loc) << imp.path << where;
        ok_ = false;
        continue;
      }
      std::string key2 = canonical(found);
      auto onStack = std::find(stack_.begin(), stack_.end(), key2);
      if (onStack != stack_.end()) {
        std::string chain;
        for (auto it = onStack; it != stack_.end(); ++it) chain += fs::path(*it).filename().string() + " -> ";
        chain += fs::path(key2).filename().string();
        diags_.report(DiagId::err_import_cycle, imp.loc) << chain;
        ok_ = false;
        continue;
      }
      if (byPath_.count(key2)) continue;  // already imported: once per file
      uint32_t f = sm_.load(found);
      if (f == 0) {
        std::error_code ec;
        diags_.report(fs::is_directory(found, ec) ? DiagId::err_is_directory : DiagId::err_cannot_read, imp.loc) << found;
        ok_ = false;
        continue;
      }
      visit(f, key2);
    }
    stack_.pop_back();
    order_.push_back(file);
    postorder_.push_back(file);
    modules_[file] = std::move(*m);
  }

  std::string resolve(const std::string& rel, const fs::path& here) const {
    std::vector<fs::path> dirs{here};
    for (auto& d : opts_.includeDirs) dirs.emplace_back(d);
    if (!opts_.stdlibDir.empty()) dirs.emplace_back(opts_.stdlibDir);
    if (fs::path(rel).is_absolute()) return fs::exists(rel) ? rel : "";
    for (auto& d : dirs) {
      fs::path p = d / rel;
      std::error_code ec;
      if (fs::is_regular_file(p, ec)) return p.string();
    }
    return "";
  }

  static void merge(ast::Module& into, ast::Module& m) {
    auto move = [](auto& dst, auto& src) {
      for (auto& x : src) dst.push_back(std::move(x));
    };
    move(into.imports, m.imports);
    move(into.consts, m.consts);
    move(into.defs, m.defs);
    move(into.offsets, m.offsets);
    move(into.stencils, m.stencils);
    move(into.groups, m.groups);
    move(into.schedules, m.schedules);
  }

  const LoadOptions& opts_;
  SourceManager& sm_;
  DiagEngine& diags_;
  std::map<std::string, uint32_t> byPath_;
  std::map<uint32_t, ast::Module> modules_;
  std::vector<std::string> stack_;
  std::vector<uint32_t> order_, postorder_;
  bool ok_ = true;
};

}  // namespace

std::optional<ast::Program> loadProgram(const std::string& mainPath, const LoadOptions& opts, SourceManager& sm,
                                        DiagEngine& diags) {
  uint32_t f = sm.load(mainPath);
  if (f == 0) {
    std::error_code ec;
    diags.report(fs::is_directory(mainPath, ec) ? DiagId::err_is_directory : DiagId::err_cannot_read, {}) << mainPath;
    return std::nullopt;
  }
  ast::Program prog;
  Loader l(opts, sm, diags);
  if (!l.run(f, prog)) return std::nullopt;
  return prog;
}

std::optional<ast::Program> loadProgramText(const std::string& name, const std::string& text,
                                            const LoadOptions& opts, SourceManager& sm, DiagEngine& diags) {
  uint32_t f = sm.add(name, text);
  ast::Program prog;
  Loader l(opts, sm, diags);
  if (!l.run(f, prog)) return std::nullopt;
  return prog;
}

}  // namespace stnc
