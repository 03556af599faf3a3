// KernelBody: the per-point computation of a kernel, shared by the CPU and CUDA backends.
// Every live DAG node becomes one `const` temporary, in id (= topological) order:
//   const double u_m1_0_0_ = u[p_ - s0_];        // each distinct (field, offset): one load
//   const double t7_ = u_m1_0_0_ + u_1_0_0_;     // source term order
//   unew[p_] = t12_;
// Constants and params are written inline at their uses. The caller provides the point index
// `p_` and the strides `s0_`, `s1_` of the two outer internal dimensions.
#pragma once
#include <functional>

#include "codegen/CPrinter.h"
#include "dag/Kernel.h"

namespace stnc::codegen {

// Internal (3-D) dimension of kernel axis a: rank-r kernels use the last r dimensions.
inline int internalDim(const dag::Kernel& k, int axis) { return 3 - k.rank() + axis; }

// How an access node (Access or Broadcast) is read; the defaults are `field[p_ + offset]` and an unclamped
// broadcastLoad (every point of the loop is inside the box).
using AccessFn = std::function<std::string(const dag::Node&)>;
// Where output number i (index into k.outputs) is stored; the default is `field[p_]`.
using StoreFn = std::function<std::string(size_t, const dag::Output&)>;
// How a (non-boolean) constant is written; the default is its exact literal (CPrinter's literal()).
using LiteralFn = std::function<std::string(double)>;
// part: the region whose equations to emit (-1 = default ones; -2 = every output). divide: the function
// a division is printed as (CUDA: "stnc_rt::divide", see stnc_runtime.h), else the operator `/`.
// declared: nodes the caller has already declared under their names (e.g. values hoisted out of a loop); skipped.
void emitPointBody(CPrinter& p, const dag::Context& ctx, const dag::Kernel& k, int part, const AccessFn& access = nullptr,
                   const StoreFn& store = nullptr, const char* divide = nullptr, const LiteralFn& literalOf = nullptr,
                   const std::function<bool(dag::NodeId)>& declared = nullptr);
// The declaration of an Apply or Select node's value, "const float t12_ = t10_ + etaz_0_0_1_;" (emitPointBody's
// line; divide and literalOf as there).
std::string applyDecl(const dag::Context& ctx, const dag::Kernel& k, dag::NodeId id, const char* divide = nullptr,
                      const LiteralFn& literalOf = nullptr);
// The declaration of a Broadcast node's value, "const float c_0_0_1_ = c[...];" (emitPointBody's line).
std::string broadcastDecl(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n, bool clamp);
// What the CUDA backend prints a division as.
inline constexpr const char* kCudaDivide = "stnc_rt::divide";
// The name of a part's sweep function: "sweepPart" for the default part, "sweepPart_NAME" for a region.
std::string partName(const dag::Kernel& k, int part);
// The namespace of a part with a schedule of its own (its kBlockX / kBlockY / kChunk shadow the kernel's):
// "default_part" or "region_NAME".
std::string partNamespace(const dag::Kernel& k, int part);
// What qualifies a part's names outside its code: "default_part::" / "region_NAME::" where the part has a
// schedule of its own (its code is in that namespace), else "".
std::string partScope(const dag::Kernel& k, int part);
// Columns from a 128-byte boundary to interior column 0 in the arrays of the kernel's layout() (makeLayout with
// k.alignColumn): (-alignColumn) mod (128 bytes); 0 without --align-region.
long layoutPhase(const dag::Kernel& k);
// A region's bounds on the internal (3-D) dimensions, as stnc_rt::regionBox takes them (rank < 3: leading zeros).
void regionBounds(const dag::Kernel& k, const dag::Region& r, int lo[3], int hi[3]);
// "{0, 27, 27}": regionBounds' lower (lo) or upper bounds as a 3-D initializer.
std::string regionBoundsText(const dag::Kernel& k, const dag::Region& r, bool lo);
// Emits the host-side loop that splits `clip_` into the kernel's parts and calls
// CALL(part, box) for each (the default part: clip minus every region).
// `fail` is the statement run when the boxes do not fit (e.g. "return false;").
void emitPartDispatch(CPrinter& p, const dag::Kernel& k, const std::function<std::string(int, const std::string&)>& call,
                      const std::string& fail);
// The default read of an access: "u[p_ - s0_ + 2]".
std::string accessLoad(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n);
// The read of a lower-rank field (a Broadcast node) at the point (x_, y_, z_) plus its offset:
// "c[stnc_rt::lowerAt<4u, true>(L_, 0, 0, z_ - 1)]". clamp: coordinates clamped into the array (the CUDA stream
// kernels, whose lanes past a box's edge compute values they do not store). inRangeDims (with clamp): internal
// dimensions (bit d) whose coordinate the caller knows to be inside the array, left unclamped (stnc_rt::lowerAt's
// InRange; the stream kernels pass 1u, dim 0: their plane loop stays inside the box: "lowerAt<1u, true, 1u>").
std::string broadcastLoad(const dag::Context& ctx, const dag::Kernel& k, const dag::Node& n, bool clamp, unsigned inRangeDims = 0u);
// The index expression of an access at offset o from p_ ("p_ - s0_ + 2").
std::string offsetIndex(const dag::Kernel& k, const dag::Offset& o);
// min/max as the select every backend prints (see KernelBody.cpp); a and b appear twice.
std::string minMaxText(dag::Op op, const std::string& a, const std::string& b);
// The C expression of a boundary value node (consts and params only).
std::string scalarExpr(const dag::Context& ctx, const dag::Kernel& k, dag::NodeId id);

}  // namespace stnc::codegen
