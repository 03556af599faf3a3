// factorSums (--factor-sums=on): a kernel whose only output is a weighted sum of one field with
// constant coefficients that are mirror-symmetric along dims 1 and 2,
//   v = sum over offsets (d0, d1, d2) of c(d0, d1, d2) * u[d0, d1, d2],  c(d0, ±b, ±a) all equal,
// (written with any mix of + - * / by constants, apply(), sums, fma) is rewritten into shared partial
// sums (dag::SumFactor says how):
//   X_a(q)  = u(q - a e2) + u(q + a e2)      Y_ab(q) = X_a(q - b e1) + X_a(q + b e1)
//   S_k(q)  = sum over (b, a) of c_k(b, a) * Y_ab(q)   for each distinct plane coefficient set k
//   v(p)    = sum over d0 ascending of S_class(d0)(p + d0 e0)
// The rewritten DAG computes exactly this at every point, so the CPU, the interpreter and the CUDA
// backend (whose sumfactor schedule computes each X, Y and S once per point and plane and shares it
// between the outputs that read it) agree bit for bit; the result differs from the sum as written in
// rounding only (an opt-in reassociation, like --fp-contract=on). Applied where the shared form needs
// at most half the arithmetic of the sum as written and the sum is arithmetic-heavy (more than 100
// operations per point), and to box-like sums (3 planes or more, 9 points or more in every plane)
// whatever the savings, for the sumfactor schedule's reuse of every loaded value. The 125-point box
// with symmetric coefficients (3 plane classes: d0 = 0, ±1, ±2) goes from 249 to 63 operations per
// point (125 to 39 with --fp-contract=on). Coefficients may be a constant times one param (runtime
// coefficients); an axis is paired only where the coefficients are mirror-symmetric along it.
//
//   v = apply(wbox125, u)   =>   v = S2(p-2e0) + S1(p-e0) + S0(p) + S1(p+e0) + S2(p+2e0)
#pragma once
#include <optional>
#include <string>

#include "dag/Kernel.h"
#include "support/Diagnostics.h"

namespace stnc::passes {

// The factored plan of kernel k, or nothing; *why says why not (for --report).
std::optional<dag::SumFactor> analyzeSumFactor(const dag::Context& ctx, const dag::Kernel& k, bool fma, std::string* why = nullptr);
// Adds the factored expression of plan f to ctx and returns its root.
dag::NodeId buildSumFactor(dag::Context& ctx, const dag::SumFactor& f);
// The pass: rewrites every kernel that qualifies and records its plan in Kernel::sumFactor.
// tensor: an unpaired plan (nothing shared) that the tensor schedule can take (f64, fma, 64 terms or more within
// offsets -2..2) is rewritten as the fma chain of its terms in (d0, b, a) order instead, and marked for it
// (Kernel::tensorSum): the same licence to reassociate, and the FP64 tensor cores compute that chain bit for bit.
bool factorSums(dag::Module& m, DiagEngine& diags, bool fma, bool tensor = false);

}  // namespace stnc::passes
