// The AST of a .stn program: a faithful, located image of the source. Nothing is resolved here;
// sema/ checks declarations and lower/ turns expressions into the DAG.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "support/SourceManager.h"

namespace stnc::ast {

enum class ExprKind {
  Number,      // 1.5, 0x1.8p-2            number
  Name,        // u, dt, nu, m             name
  Index,       // u[i-1,j,k], c8[m], f[o]  name, args = entries
  Call,        // max(a, b), dx(rho*u)     name, args
  Apply,       // apply(OFFS, e)           name = offsets, args = {e}
  Unary,       // -e, !e                   op, args = {e}
  Binary,      // a + b, a < b, a && b     op, args = {a, b}
  SumRange,    // sum(m in lo..hi) body    name = var, args = {lo, hi, body}
  SumOffsets,  // sum(o in OFFS) body      name = var, name2 = offsets, args = {body}
};

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind;
  Loc loc;
  double number = 0;   // Number
  std::string text;    // Number: as written
  std::string name;    // see ExprKind
  std::string name2;   // SumOffsets: the offsets name
  std::string op;      // Unary / Binary
  std::vector<ExprP> args;
};

struct Named {
  std::string name;
  Loc loc;
};

struct ConstDecl {
  Named id;
  bool isArray = false;
  ExprP value;                 // scalar
  std::vector<ExprP> elements; // array
};

struct DefDecl {
  Named id;
  std::vector<Named> params;
  ExprP body;
};

struct OffsetEntry {
  Loc loc;
  std::vector<ExprP> coords;
  ExprP weight;  // null = 1.0
};

struct OffsetsDecl {
  Named id;
  std::vector<OffsetEntry> entries;  // explicit list
  Named shape;                       // box / star (empty name for a list)
  ExprP radius;
};

enum class FieldRole { In, Out, InOut };
const char* roleName(FieldRole r);

struct FieldDecl {
  Named id;
  FieldRole role;
  std::vector<Named> axes;  // `in c(k);`: a lower-rank field over these axes; empty: every axis
  bool hasAxes = false;     // the declaration had an axis list (even one naming every axis)
  // Declared over fewer axes than its stencil's `stencilAxes` (a lower-rank field).
  bool fewerAxesThan(size_t stencilAxes) const { return hasAxes && axes.size() < stencilAxes; }
};

struct LetStmt {
  Named id;
  ExprP value;
};

struct Equation {
  Named target;
  Named region;  // empty name: the default equation (everywhere outside the stencil's regions)
  ExprP value;
  std::string text;  // the statement as written, for comments in generated code
};

struct SwapStmt {
  Loc loc;
  Named a, b;
};

struct BoundaryStmt {
  Loc loc;
  Named field;
  std::vector<Named> axes;  // empty = every axis
  Named rule;               // periodic | value | clamp | mirror
  ExprP value;              // value(EXPR)
};

// region NAME = [lo:hi, ...];  a sub-box of the interior (lo from the start, hi <= 0 from the end).
struct RegionDecl {
  Named id;
  std::vector<std::pair<ExprP, ExprP>> ranges;  // null = 0
};

// schedule STRATEGY(key = value, ...);  in a stencil, or  schedule KERNEL STRATEGY(...);  at the top level
// (a group, or a stencil by name): the CUDA schedule the author asks for. `keyword` is the statement's first
// word (sema rejects anything but `schedule`: the grammar keeps it a plain identifier, so fields and
// params may still be called `schedule`).
struct ScheduleArg {
  Named key;
  std::string value;  // as written: "32x8", "2", "on"
};
struct ScheduleDecl {
  Loc loc;
  Named keyword;
  Named kernel;    // top level: the stencil or group; in a stencil: empty (that stencil)
  Named region;    // in a stencil, `schedule @ REGION ...`: that region's kernel only (empty: the whole stencil)
  Named strategy;  // auto | naive | stream
  std::vector<ScheduleArg> args;
  std::string text;  // normalised from the tokens: "stream(block = 32x8, rows = 2)", "naive", "@ inner stream(vec = 2)"
};

struct StencilDecl {
  Named id;
  std::vector<Named> axes;
  Named type;  // f32 | f64 (name empty = default f64)
  std::vector<FieldDecl> fields;
  std::vector<Named> params;
  std::vector<LetStmt> lets;
  std::vector<Equation> equations;
  std::vector<SwapStmt> swaps;
  std::vector<BoundaryStmt> boundaries;
  std::vector<RegionDecl> regions;
  std::vector<ScheduleDecl> schedules;  // at most one (sema)
};

struct GroupDecl {
  Named id;
  std::vector<Named> members;
};

struct ImportDecl {
  Loc loc;
  std::string path;
};

// One parsed file.
struct Module {
  uint32_t file = 0;
  std::vector<ImportDecl> imports;
  std::vector<ConstDecl> consts;
  std::vector<DefDecl> defs;
  std::vector<OffsetsDecl> offsets;
  std::vector<StencilDecl> stencils;
  std::vector<GroupDecl> groups;
  std::vector<ScheduleDecl> schedules;  // top-level `schedule KERNEL STRATEGY(...);`
};

// All modules of a compilation merged, imported files first (declaration order is kept).
struct Program {
  std::vector<uint32_t> files;  // every file read, main file first
  Module merged;
};

bool isComparison(const std::string& op);
bool isLogical(const std::string& op);

}  // namespace stnc::ast
