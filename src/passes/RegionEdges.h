// region-edges: whether a region's boundary along the contiguous dimension 2 moves to whole tiles.
//
// A kernel with one region is swept part by part: the region's box, and the default part as the clip box
// minus the region (for the acoustic PML: an inner box and six faces). Where the region starts or ends
// along dim 2 off a tile boundary (the PML's 27 columns), the two faces thin along dim 2 are narrower than
// a tile and the boundary splits 64-byte DRAM atoms between two kernels that write them at different
// times. With region edges, those two faces widen into the region to the next multiple of the default
// part's tile width (32 columns of f32: [0, 32) and [768, 800) at 800) and run an edge kernel: the default
// part's schedule and rings, whose tiles run the default body, or both bodies with per-point stores where
// they meet the region (the fused kernel's dispatch, passes/FuseRegions). The region's own kernel covers
// the aligned rest of its box. Every point still evaluates its own part's DAG: results are bit for bit
// those of the per-part kernels. The policy does not use it: on the acoustic sample the edge kernel's
// both-bodies tiles cost what the region's aligned kernel saves (bench/results/2026-12-04-s27-edges.md).
//
//   stencil acoustic(i, j, k) : f32 { ... region inner = [27:-27, 27:-27, 27:-27]; ... }
//   --region-edges=on => inner's kernel over [27, 773) x [27, 773) x [32, 768); edge kernel over the same rows x [0, 32) and
//      x [768, 800); the four faces thin along dims 0 and 1 as before
#pragma once
#include <string>

#include "dag/Kernel.h"

namespace stnc::passes {

// The region (index into k.regions) whose dim-2 edges an edge kernel can take, or -1 and why not.
int edgeRegion(const dag::Context& ctx, const dag::Kernel& k, std::string* why = nullptr);
// Sets k.edgeRegion and k.edgeWhy under mode auto | on | off (--region-edges). Call after chooseFusion:
// a fused kernel takes the whole box and no edges.
void chooseEdges(const dag::Context& ctx, dag::Kernel& k, const std::string& mode);

}  // namespace stnc::passes
