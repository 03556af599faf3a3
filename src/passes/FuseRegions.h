// fuse-regions: whether a kernel's one region and its default equations run as one CUDA kernel.
//
// A kernel with regions is swept part by part: the region's box, then the default part as the boxes of
// the clip box minus the region (for the acoustic PML: an inner box and six faces, seven launches).
// Fused, one launch covers the clip box with the region's schedule (its shared-memory rings, register
// queues and tile); each block decides per plane whether its tile lies wholly inside the region (the
// region's body, no branch), wholly outside it (the default body), or straddles its boundary (both, a
// per-point choice). Fields only the default equations read (the PML's eta, phi) come through L1 in
// the default and straddling bodies; the region's points never load them.
//
//   stencil acoustic(i, j, k) : f32 { ... region inner = [27:-27, 27:-27, 27:-27];
//     v @ inner = 2.0 * u - v + roc2 * lap8(u);   v = ...PML...;   phi = ...; }
//   => fused: inner's rings (u, roc2, v), 16x16 threads x 4 points, eta and phi through L1
//
// Results are those of the separate kernels bit for bit (each point evaluates its own part's DAG).
#pragma once
#include <string>

#include "dag/Kernel.h"

namespace stnc::passes {

// The region (index into k.regions) that the fused kernel can take, or -1 and why not.
int fusableRegion(const dag::Context& ctx, const dag::Kernel& k, std::string* why = nullptr);
// Sets k.fusedRegion and k.fusionWhy under mode auto | on | off (--fuse-regions).
void chooseFusion(const dag::Context& ctx, dag::Kernel& k, const std::string& mode);

}  // namespace stnc::passes
