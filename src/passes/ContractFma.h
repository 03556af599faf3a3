// contractFma: rewrites `a * b + c`, `c + a * b`, `a * b - c` and `c - a * b` into one fused
// multiply-add node (dag::Op::Fma, one rounding) when the product has no other use. Opt-in
// (`--fp-contract=on`): it changes results in the last bit, identically on every backend, since
// the CPU, the CUDA code and the interpreter all evaluate the same Fma nodes with fma().
//
//   c0*u + c1*v + c2*w   ==>   fma(c2, w, fma(c1, v, c0*u))     (the later term is fused first,
//                                                               so a sum chain becomes an FMA chain)
//   x - a*b              ==>   fma(-a, b, x)                    (negating a is exact)
#pragma once
#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

bool contractFma(dag::Module& m, DiagEngine& diags);

}  // namespace stnc::passes
