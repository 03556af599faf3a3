// The reference interpreter: evaluates a dag::Kernel directly from the DAG, point by point, in the
// kernel's element type (float for f32, double for f64), one operation per DAG node in node order
// (= source term order, no reassociation, no contraction). It shares nothing with the code
// generators (src/codegen); the boundary fills are an independent implementation of the
// numpy.pad semantics of the contract. It is the oracle of the differential tests
// (tests/random) and runs behind `stnc run --backend interp`.
#pragma once
#include <string>

#include "dag/Kernel.h"

namespace stnc::interp {

// Same contract as the generated C entry points (codegen/Backends.h, entryName):
//   n:      interior extents, one per kernel axis
//   fields: host arrays of the kernel's element type, in field order, each laid out as
//           stnc_rt::makeLayout gives for this kernel (internal 3-D dims, halo, padded rows)
//   params: one value per kernel param (rounded to float for f32 kernels)
//   steps == 0: fill boundaries, one sweep; steps > 0: steps x (fill, sweep, point sources, swap
//           pairs), and on return fields[f] holds the array of role f
//   nsrc, srcAt, srcWave: point sources (steps > 0): source q adds srcWave[q * steps + t] (rounded to
//           the element type) after step t's sweep to field srcAt[q * (1 + rank)] (by role) at the
//           interior point srcAt[q * (1 + rank) + 1 ...]
//   reps > 0: also times reps sweeps on scratch copies first (ms[0] median, ms[1] min)
// Returns 0, or a stnc_rt::Status code with a message in err.
int run(const dag::Module& m, const dag::Kernel& k, const long* n, void** fields, const double* params, long steps,
        int nsrc, const long* srcAt, const double* srcWave, long reps, double* ms, char* err, unsigned long errlen);

// The interpreter's own boundary-source rule (exposed for unit tests): the interior coordinate
// whose value halo coordinate x (outside [0, n)) takes along one axis for rule `kind`; -1 for
// BoundaryKind::Value.
long boundarySourceIndex(long x, long n, dag::BoundaryKind kind);

}  // namespace stnc::interp
