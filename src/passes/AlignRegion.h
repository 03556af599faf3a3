// align-region: which interior column the arrays' rows align on (the layout's pad along the last axis).
//
// Arrays align every interior row's first column on a 128-byte boundary (stnc_rt::makeLayout). A region that
// starts along the last axis off such a boundary (the acoustic PML's 27 columns: byte 108) shares the 32-byte
// sectors and 64-byte DRAM atoms of its first columns with the default part's face kernel, which writes them at
// another time: on the H200 the inner region's kernel ran 1767 us against 1733-1735 us for starts on a 64-byte
// boundary (bench/results/2026-12-04-s27-edges.md). With --align-region=on a kernel with regions pads its rows
// so that the largest region's first column lies on the boundary instead (pad 5 instead of 32 for f32 halo 4
// and column 27); the kernels place their tiles and vectors by absolute alignment (stnc_rt::alignCol, the
// layout's phase), so no kernel loses its vectors or rings. Results are the same bits in any layout. The
// region's last column stays where the extent puts it (one end of a region can be aligned, not both).
//
//   stencil acoustic(i, j, k) : f32 { ... region inner = [27:-27, 27:-27, 27:-27]; ... }
//   --align-region=on => kAlignColumn = 27: layout(n) pads rows by 5 columns, interior column 27 starts a line
#pragma once
#include <string>

#include "dag/Kernel.h"

namespace stnc::passes {

// The interior column --align-region=on aligns k's rows on (the first column, along the last axis, of the region
// that cuts least from the whole box), or 0 (no regions, or that region starts at column 0); region: its name.
int regionAlignColumn(const dag::Kernel& k, std::string* region = nullptr);
// Sets k.alignColumn and k.alignWhy under mode on | off (--align-region).
void chooseAlignColumn(dag::Kernel& k, const std::string& mode);

}  // namespace stnc::passes
