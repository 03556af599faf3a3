// lowerProgram: the bridge from the checked AST to the DAG (the only code that sees both).
//
// Every stencil's equations are evaluated symbolically at offset (0,0,0):
//   - `def`s are expanded at each use; a def parameter is bound to the caller's *expression*, so
//     `f[i+m,j,k]` inside the def evaluates the argument shifted by (m,0,0) — every field access
//     inside it moves;
//   - `sum(m in A..B)`, `sum(o in OFFS)` and `apply(OFFS, e)` are unrolled left to right, so the
//     DAG keeps the source term order;
//   - consts, const arrays and sum indices become exact float64 constants, folded by the context;
//   - lets are DAG nodes (no storage); a let may also be indexed, which shifts it.
// Expression-level errors (unknown names, index forms, recursion, inout offsets) are reported
// here with the def-expansion chain as notes. Groups are recorded as empty kernels for the
// fuse-groups pass to fill.
//
// Example:  def dx(f) = f[i+1,j,k] - f[i-1,j,k];   out = dx(a * b);
//   %0 = access a[1,0,0]  %1 = access b[1,0,0]  %2 = mul %0 %1
//   %3 = access a[-1,0,0] %4 = access b[-1,0,0] %5 = mul %3 %4   %6 = sub %2 %5   out = %6
#pragma once
#include <optional>

#include "dag/Kernel.h"
#include "sema/Symbols.h"
#include "support/Diagnostics.h"

namespace stnc::lower {

// Returns nullopt if any error was reported.
std::optional<dag::Module> lowerProgram(const ast::Program& prog, const sema::Symbols& syms, DiagEngine& diags);

}  // namespace stnc::lower
