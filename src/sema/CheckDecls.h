// checkDeclarations: the declaration-level rules of the language, before any expression is
// looked at. Reports every problem it finds (it never stops at the first) and fills Symbols.
//   - one global namespace for consts, defs, offsets, stencils and groups; no redefinitions;
//     intrinsic names are reserved
//   - stencils: 1..3 distinct axes, type f32|f64, distinct local names, at least one output,
//     every out/inout assigned exactly once and nothing else assigned, swaps between two
//     distinct fields (each field in at most one swap), boundary rules on input fields with
//     known rules and axes, at most one rule per (field, axis)
//   - groups: non-empty, members are stencils with the same axes and type
// Expression-level rules (names inside expressions, index forms, recursion) are checked while
// lowering, where defs are expanded in their stencil's context.
#pragma once
#include "sema/Symbols.h"
#include "support/Diagnostics.h"

namespace stnc::sema {

Symbols checkDeclarations(const ast::Program& prog, DiagEngine& diags);

}  // namespace stnc::sema
