#include "syntax/Parser.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "StnLexer.h"
#include "StnParser.h"
#include "antlr4-runtime.h"
#include "support/Text.h"

namespace stnc {

namespace {

using P = StnParser;

// ANTLR's messages name tokens as the grammar does (ID, NUMBER, STRING, <EOF>) and list every token an expression
// may start with; say it in the language's words instead. Quoted text (the input, literal tokens) is kept as is.
std::string readableTokens(const std::string& m) {
  static const std::regex exprStart("\\{'\\(', '-', '!', 'sum', 'apply', NUMBER, ID\\}");
  std::string text = std::regex_replace(m, exprStart, "an expression");
  // Phrased as compilers do: "expected X, found 'Y'" rather than "mismatched input 'Y' expecting X".
  static const std::regex atEof("^mismatched input '<EOF>' expecting (.*)$"), mismatched("^mismatched input (.*) expecting (.*)$"),
      missing("^missing (.*) at (.*)$"), extraneous("^extraneous input (.*) expecting (.*)$");
  text = std::regex_replace(text, atEof, "expected $1 before the end of the file");
  text = std::regex_replace(text, mismatched, "expected $2, found $1");
  text = std::regex_replace(text, missing, "expected $1 before $2");
  text = std::regex_replace(text, extraneous, "unexpected $1 (expected $2)");
  static const std::regex id("\\bID\\b"), number("\\bNUMBER\\b"), str("\\bSTRING\\b");
  std::string out;
  size_t from = 0;
  for (bool quoted = false; from <= text.size(); quoted = !quoted) {
    const size_t q = text.find('\'', from);
    std::string part = text.substr(from, q == std::string::npos ? std::string::npos : q - from);
    if (quoted) {
      out += part == "<EOF>" && q != std::string::npos ? "the end of the file"
                                                        : "'" + part + (q == std::string::npos ? "" : "'");
    } else {
      part = std::regex_replace(part, id, "a name");
      part = std::regex_replace(part, number, "a number");
      out += std::regex_replace(part, str, "a quoted file name");
    }
    if (q == std::string::npos) break;
    from = q + 1;
  }
  return out;
}

class ErrorCollector : public antlr4::BaseErrorListener {
 public:
  ErrorCollector(DiagEngine& d, uint32_t file) : diags_(d), file_(file) {}
  void syntaxError(antlr4::Recognizer*, antlr4::Token* tok, size_t line, size_t col, const std::string& msg,
                   std::exception_ptr) override {
    std::string m = msg;
    if (tok && tok->getType() == StnLexer::UNCLOSED_COMMENT) m = "unterminated /* comment (no */ before the end of the file)";
    if (tok && tok->getType() == StnLexer::BAD_CHAR) {
      m = "unexpected character '" + tok->getText() + "'";
      // `5.` and `.5` (C allows both; docs/LANGUAGE.md: a decimal point is followed by a digit, preceded by one).
      if (tok->getText() == "." && digitBeside(*tok)) m += ": a number's decimal point has a digit on each side (5.0, 0.5)";
    }
    // `v[i+1, j] = ...`: only an equation starts a statement with a name, and it writes its output in place.
    static const std::regex indexedTarget("^no viable alternative at input '([A-Za-z_][A-Za-z_0-9]*)\\['$");
    std::smatch mm;
    if (std::regex_match(msg, mm, indexedTarget))
      m = "an equation writes '" + mm[1].str() + "' at the point itself: write '" + mm[1].str() + " = ...'; offsets ('" +
          mm[1].str() + "[...]') are for reads";
    diags_.report(DiagId::err_syntax, {file_, static_cast<uint32_t>(line), static_cast<uint32_t>(col + 1)})
        << readableTokens(m);
    ++count;
  }
  int count = 0;

 private:
  static bool digitBeside(antlr4::Token& tok) {
    antlr4::CharStream* in = tok.getInputStream();
    auto digitAt = [&](size_t k) {
      if (!in || k >= in->size()) return false;
      const std::string c = in->getText(antlr4::misc::Interval(k, k));
      return c.size() == 1 && c[0] >= '0' && c[0] <= '9';
    };
    const size_t at = tok.getStartIndex();
    return (at > 0 && digitAt(at - 1)) || digitAt(at + 1);
  }
  DiagEngine& diags_;
  uint32_t file_;
};

class AstBuilder {
 public:
  AstBuilder(uint32_t file, const std::string& text, DiagEngine& d) : file_(file), text_(text), diags_(d) {}

  ast::Module build(P::ProgramContext* prog) {
    ast::Module m;
    m.file = file_;
    for (P::DeclContext* d : prog->decl()) buildDecl(d, m);
    return m;
  }

 private:
  Loc loc(antlr4::Token* t) const {
    return {file_, static_cast<uint32_t>(t->getLine()), static_cast<uint32_t>(t->getCharPositionInLine() + 1)};
  }
  Loc loc(antlr4::ParserRuleContext* c) const { return loc(c->getStart()); }
  ast::Named named(antlr4::tree::TerminalNode* n) const { return {n->getText(), loc(n->getSymbol())}; }
  ast::Named named(antlr4::Token* t) const { return {t->getText(), loc(t)}; }
  std::vector<ast::Named> names(P::IdListContext* l) const {
    std::vector<ast::Named> out;
    if (!l) return out;
    for (auto* id : l->ID()) out.push_back(named(id));
    return out;
  }
  std::string sourceText(antlr4::ParserRuleContext* c) const {
    size_t a = c->getStart()->getStartIndex(), b = c->getStop()->getStopIndex();
    if (b < a || b >= text_.size()) return c->getText();
    // Collapse runs of whitespace so the text fits on comment lines.
    std::string out;
    bool space = false;
    for (size_t i = a; i <= b; ++i) {
      char ch = text_[i];
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
        space = true;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += ch;
    }
    return out;
  }

  void buildDecl(P::DeclContext* d, ast::Module& m) {
    if (auto* c = dynamic_cast<P::ImportDeclContext*>(d)) {
      std::string s = c->STRING()->getText();
      m.imports.push_back({loc(c->STRING()->getSymbol()), s.substr(1, s.size() - 2)});
    } else if (auto* c = dynamic_cast<P::ConstDeclContext*>(d)) {
      ast::ConstDecl k;
      k.id = named(c->ID());
      k.value = expr(c->expr());
      m.consts.push_back(std::move(k));
    } else if (auto* c = dynamic_cast<P::ConstArrayDeclContext*>(d)) {
      ast::ConstDecl k;
      k.id = named(c->ID());
      k.isArray = true;
      for (auto* e : c->expr()) k.elements.push_back(expr(e));
      m.consts.push_back(std::move(k));
    } else if (auto* c = dynamic_cast<P::DefDeclContext*>(d)) {
      ast::DefDecl k;
      k.id = named(c->ID());
      k.params = names(c->idList());
      k.body = expr(c->expr());
      m.defs.push_back(std::move(k));
    } else if (auto* c = dynamic_cast<P::OffsetsListDeclContext*>(d)) {
      ast::OffsetsDecl k;
      k.id = named(c->ID());
      for (auto* e : c->offsetEntry()) {
        ast::OffsetEntry en;
        en.loc = loc(e);
        auto es = e->expr();
        // '[' expr (',' expr)* ']' (':' expr)?  — when a ':' is present the last expr is the weight.
        size_t nCoords = es.size();
        for (auto* ch : e->children)
          if (auto* t = dynamic_cast<antlr4::tree::TerminalNode*>(ch); t && t->getText() == ":") nCoords = es.size() - 1;
        for (size_t i = 0; i < nCoords; ++i) en.coords.push_back(expr(es[i]));
        if (nCoords < es.size()) en.weight = expr(es.back());
        k.entries.push_back(std::move(en));
      }
      m.offsets.push_back(std::move(k));
    } else if (auto* c = dynamic_cast<P::OffsetsShapeDeclContext*>(d)) {
      ast::OffsetsDecl k;
      k.id = named(c->ID(0));
      k.shape = named(c->ID(1));
      k.radius = expr(c->expr());
      m.offsets.push_back(std::move(k));
    } else if (auto* c = dynamic_cast<P::StencilDeclContext*>(d)) {
      m.stencils.push_back(stencil(c));
    } else if (auto* c = dynamic_cast<P::GroupDeclContext*>(d)) {
      m.groups.push_back({named(c->ID()), names(c->idList())});
    } else if (auto* c = dynamic_cast<P::ScheduleDeclContext*>(d)) {
      m.schedules.push_back(schedule(c, c->ID(0), c->ID(1), c->ID(2), c->scheduleArgs()));
    }
  }

  // `schedule [KERNEL] STRATEGY(key = value, ...)`: kernel is null inside a stencil.
  ast::ScheduleDecl schedule(antlr4::ParserRuleContext* c, antlr4::tree::TerminalNode* keyword, antlr4::tree::TerminalNode* kernel,
                             antlr4::tree::TerminalNode* strategy, P::ScheduleArgsContext* args) {
    ast::ScheduleDecl d;
    d.loc = loc(c);
    d.keyword = named(keyword);
    if (kernel) d.kernel = named(kernel);
    d.strategy = named(strategy);
    d.text = d.strategy.name;
    if (args) {
      std::string list;
      for (P::ScheduleArgContext* a : args->scheduleArg()) {
        ast::ScheduleArg arg;
        arg.key = named(a->key);
        arg.value = a->word ? a->word->getText() : a->num->getText() + (a->dims ? a->dims->getText() : "");
        appendItem(list, arg.key.name + " = " + arg.value);
        d.args.push_back(std::move(arg));
      }
      d.text += "(" + list + ")";
    }
    return d;
  }

  ast::StencilDecl stencil(P::StencilDeclContext* c) {
    ast::StencilDecl s;
    s.id = named(c->ID(0));
    s.axes = names(c->idList());
    if (c->ID().size() > 1) s.type = named(c->ID(1));
    for (P::StmtContext* st : c->stmt()) {
      if (auto* x = dynamic_cast<P::FieldStmtContext*>(st)) {
        std::string k = x->kind->getText();
        ast::FieldRole r = k == "in" ? ast::FieldRole::In : k == "out" ? ast::FieldRole::Out : ast::FieldRole::InOut;
        for (P::FieldItemContext* it : x->fieldItem()) {
          ast::FieldDecl f{named(it->ID()), r, {}, it->lp != nullptr};
          if (it->idList()) f.axes = names(it->idList());
          s.fields.push_back(std::move(f));
        }
      } else if (auto* x = dynamic_cast<P::ParamStmtContext*>(st)) {
        for (auto& n : names(x->idList())) s.params.push_back(n);
      } else if (auto* x = dynamic_cast<P::LetStmtContext*>(st)) {
        s.lets.push_back({named(x->ID()), expr(x->expr())});
      } else if (auto* x = dynamic_cast<P::SwapStmtContext*>(st)) {
        s.swaps.push_back({loc(x), named(x->ID(0)), named(x->ID(1))});
      } else if (auto* x = dynamic_cast<P::BoundaryStmtContext*>(st)) {
        ast::BoundaryStmt b;
        b.loc = loc(x);
        b.field = named(x->ID(0));
        b.axes = names(x->idList());
        b.rule = named(x->ID(1));
        if (x->expr()) b.value = expr(x->expr());
        s.boundaries.push_back(std::move(b));
      } else if (auto* x = dynamic_cast<P::RegionStmtContext*>(st)) {
        ast::RegionDecl r;
        r.id = named(x->ID());
        for (auto* rr : x->regionRange())
          r.ranges.push_back({rr->lo ? exprOf(rr->lo) : nullptr, rr->hi ? exprOf(rr->hi) : nullptr});
        s.regions.push_back(std::move(r));
      } else if (auto* x = dynamic_cast<P::ScheduleStmtContext*>(st)) {
        const bool at = x->ID().size() == 3;  // schedule @ REGION STRATEGY(...)
        s.schedules.push_back(schedule(x, x->ID(0), nullptr, x->ID(at ? 2 : 1), x->scheduleArgs()));
        if (at) {
          s.schedules.back().region = named(x->ID(1));
          s.schedules.back().text = "@ " + x->ID(1)->getText() + " " + s.schedules.back().text;
        }
      } else if (auto* x = dynamic_cast<P::EquationStmtContext*>(st)) {
        ast::Equation eq;
        eq.target = named(x->ID(0));
        eq.value = expr(x->expr());
        eq.text = sourceText(x);
        if (x->ID().size() > 1) eq.region = named(x->ID(1));
        s.equations.push_back(std::move(eq));
      }
    }
    return s;
  }

  static ast::ExprP make(ast::Expr e) { return std::make_shared<const ast::Expr>(std::move(e)); }
  ast::Expr node(ast::ExprKind k, Loc l) const {
    ast::Expr e;
    e.kind = k;
    e.loc = l;
    return e;
  }
  ast::ExprP binary(const std::string& op, Loc l, ast::ExprP a, ast::ExprP b) const {
    ast::Expr e = node(ast::ExprKind::Binary, l);
    e.op = op;
    e.args = {std::move(a), std::move(b)};
    return make(std::move(e));
  }

  // Left-associative chains; each operator node is located at its operator token.
  template <typename Ctx, typename Sub>
  ast::ExprP chain(Ctx* c, const std::vector<Sub*>& subs) {
    // Children alternate operand, operator, operand, ...
    ast::ExprP acc = exprOf(subs[0]);
    size_t idx = 1;
    for (size_t i = 1; i + 1 < c->children.size(); i += 2) {
      auto* t = dynamic_cast<antlr4::tree::TerminalNode*>(c->children[i]);
      acc = binary(t->getText(), loc(t->getSymbol()), acc, exprOf(subs[idx++]));
    }
    return acc;
  }

  ast::ExprP exprOf(P::AndExprContext* c) { return chain(c, c->cmpExpr()); }
  ast::ExprP exprOf(P::CmpExprContext* c) { return chain(c, c->addExpr()); }
  ast::ExprP exprOf(P::AddExprContext* c) { return chain(c, c->mulExpr()); }
  ast::ExprP exprOf(P::MulExprContext* c) { return chain(c, c->unaryExpr()); }
  ast::ExprP expr(P::ExprContext* c) { return chain(c, c->andExpr()); }

  ast::ExprP exprOf(P::UnaryExprContext* c) {
    if (auto* x = dynamic_cast<P::NegExprContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::Unary, loc(x));
      e.op = x->op->getText();
      e.args = {exprOf(x->unaryExpr())};
      return make(std::move(e));
    }
    if (auto* x = dynamic_cast<P::SumRangeExprContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::SumRange, loc(x));
      e.name = x->ID()->getText();
      e.args = {exprOf(x->addExpr(0)), exprOf(x->addExpr(1)), exprOf(x->mulExpr())};
      return make(std::move(e));
    }
    if (auto* x = dynamic_cast<P::SumOffsetsExprContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::SumOffsets, loc(x));
      e.name = x->ID(0)->getText();
      e.name2 = x->ID(1)->getText();
      e.loc = loc(x);
      e.args = {exprOf(x->mulExpr())};
      return make(std::move(e));
    }
    return primary(dynamic_cast<P::PrimaryExprContext*>(c)->primary());
  }

  ast::ExprP primary(P::PrimaryContext* c) {
    if (auto* x = dynamic_cast<P::NumberPrimContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::Number, loc(x));
      e.text = x->getText();
      switch (readNumber(e.text, e.number)) {
        case NumberRead::Ok: break;
        case NumberRead::Underflow: diags_.report(DiagId::warn_number_underflow, e.loc) << e.text; break;
        case NumberRead::Overflow: diags_.report(DiagId::err_number_overflow, e.loc) << e.text; break;
        case NumberRead::Malformed: diags_.report(DiagId::err_bad_number, e.loc) << e.text; break;
      }
      return make(std::move(e));
    }
    if (auto* x = dynamic_cast<P::IndexPrimContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::Index, loc(x));
      e.name = x->ID()->getText();
      for (auto* a : x->expr()) e.args.push_back(expr(a));
      return make(std::move(e));
    }
    if (auto* x = dynamic_cast<P::ApplyPrimContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::Apply, loc(x));
      e.name = x->ID()->getText();
      e.args = {expr(x->expr())};
      return make(std::move(e));
    }
    if (auto* x = dynamic_cast<P::CallPrimContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::Call, loc(x));
      e.name = x->ID()->getText();
      for (auto* a : x->expr()) e.args.push_back(expr(a));
      return make(std::move(e));
    }
    if (auto* x = dynamic_cast<P::NamePrimContext*>(c)) {
      ast::Expr e = node(ast::ExprKind::Name, loc(x));
      e.name = x->ID()->getText();
      return make(std::move(e));
    }
    return expr(dynamic_cast<P::ParenPrimContext*>(c)->expr());
  }

  uint32_t file_;
  const std::string& text_;
  DiagEngine& diags_;
};

// The offset of the first byte where `s` is not valid UTF-8, or npos (ANTLR's input stream throws
// std::range_error on such input).
size_t invalidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    if (len == 0 || i + len > s.size()) return i;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    unsigned char c1 = len > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
      return i;  // overlong, surrogate or beyond U+10FFFF
    i += len;
  }
  return std::string::npos;
}

// The parser is recursive descent: deeply nested input ("((((...", "- - - ...", "sum(..) sum(..) ...")
// would overflow the stack here and in the recursive stages after it. Rule nesting is capped
// (about 140 levels of parentheses) and reported as an error at the token where it happens.
constexpr size_t kMaxParseDepth = 1000;
struct TooDeep {
  size_t line, col;
};
class GuardedParser : public StnParser {
 public:
  using StnParser::StnParser;
  void enterRule(antlr4::ParserRuleContext* ctx, size_t state, size_t rule) override {
    size_t depth = 0;
    for (antlr4::tree::ParseTree* p = ctx; p && depth <= kMaxParseDepth; p = p->parent) ++depth;
    if (depth > kMaxParseDepth) {
      antlr4::Token* t = getCurrentToken();
      throw TooDeep{t ? t->getLine() : 1, t ? t->getCharPositionInLine() + 1 : 1};
    }
    StnParser::enterRule(ctx, state, rule);
  }
};

}  // namespace

NumberRead readNumber(const std::string& text, double& value) {
  // strtod reads decimal and hex floats correctly rounded, but also leading blanks, a sign, "inf", "nan" and
  // "infinity": the literal's grammar admits none of them, so neither does this.
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    return NumberRead::Malformed;
  if (text.find_first_of("iInN") != std::string::npos) return NumberRead::Malformed;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (!end || *end != '\0') return NumberRead::Malformed;
  if (std::isinf(value)) return NumberRead::Overflow;  // 1e999 is an error, not infinity
  if (value == 0.0) {  // a nonzero mantissa that rounds to 0 (1e-400, 0x1p-1075) underflowed
    const bool hex = text.size() > 1 && (text[1] == 'x' || text[1] == 'X');
    const size_t from = hex ? 2 : 0, to = text.find_first_of(hex ? "pP" : "eE");
    const std::string mantissa = text.substr(from, to == std::string::npos ? std::string::npos : to - from);
    if (mantissa.find_first_of(hex ? "123456789abcdefABCDEF" : "123456789") != std::string::npos)
      return NumberRead::Underflow;
  }
  return NumberRead::Ok;
}

std::optional<ast::Module> parseModule(const SourceManager& sm, uint32_t file, DiagEngine& diags) {
  const std::string& text = sm.text(file);
  if (size_t bad = invalidUtf8(text); bad != std::string::npos) {
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n'));
    size_t nl = text.rfind('\n', bad == 0 ? std::string::npos : bad - 1);
    size_t col = bad == 0 || nl == std::string::npos ? bad + 1 : bad - nl;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text[bad]));
    diags.report(DiagId::err_syntax, {file, static_cast<uint32_t>(line), static_cast<uint32_t>(col)})
        << std::string("invalid UTF-8 byte ") + hex + " (source files are UTF-8)";
    return std::nullopt;
  }
  antlr4::ANTLRInputStream input(text);
  StnLexer lexer(&input);
  ErrorCollector errors(diags, file);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&errors);
  antlr4::CommonTokenStream tokens(&lexer);
  GuardedParser parser(&tokens);
  parser.removeErrorListeners();
  parser.addErrorListener(&errors);
  P::ProgramContext* tree = nullptr;
  try {
    tree = parser.program();
  } catch (const TooDeep& d) {
    diags.report(DiagId::err_syntax, {file, static_cast<uint32_t>(d.line), static_cast<uint32_t>(d.col)})
        << "nesting too deep (more than " + std::to_string(kMaxParseDepth) + " grammar levels)";
    return std::nullopt;
  }
  if (errors.count > 0) return std::nullopt;
  int before = diags.errorCount();
  AstBuilder builder(file, sm.text(file), diags);
  ast::Module m = builder.build(tree);
  if (diags.errorCount() > before) return std::nullopt;
  return m;
}

}  // namespace stnc
