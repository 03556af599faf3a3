// The distributed launcher: `stnc FILE.stn --distributed` also writes FILE_mpi.h, a header-only
// MPI domain decomposition on top of the single-node API of FILE.h. Per kernel K, namespace
// stn::K::mpi holds
//   kExchangeLo/kExchangeHi[field][dim]  halo cells each field needs below/above the interior
//                                        (from the footprint), kRule[field][dim], kConstant[field]
//   Domain, make_domain(comm, n..., D, dims)   MPI_Cart_create over the kernel's axes
//   cpu::step(D, steps, fields..., params...)  steps x (exchange + rules, sweep, swap), with the
//                                               interior sweep overlapping the exchange
//   cpu::exchange(D, fields..., params...)     the halo update alone
//   gather(D, root, local, global) / scatter(D, root, global, local)
//   cuda::{step, exchange, gather, scatter}    the same on device arrays (nvcc or STNC_WITH_CUDA)
// The fixed part is codegen/mpi/stnc_mpi_runtime.h, embedded verbatim. docs/DISTRIBUTED.md has
// the semantics and the performance model.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "codegen/Launcher.h"

namespace stnc::codegen {

std::string generateMpiHeader(const dag::Module& m, const GenOptions& o);

// Exchange widths per field (kernel field order) and internal dimension, from the footprint.
struct ExchangeWidths {
  std::vector<std::array<int, 3>> lo, hi;
};
ExchangeWidths exchangeWidths(const dag::Kernel& k);
// True when some field is read at an offset that is non-zero along two or more axes (the halo
// corners matter, so the exchange must go axis by axis).
bool readsCorners(const dag::Context& ctx, const dag::Kernel& k);

}  // namespace stnc::codegen
