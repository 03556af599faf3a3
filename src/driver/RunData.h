// `stnc run`'s data: the kernel's fields as buffers in the generated layout, filled from .npy inputs and read back
// as interior-shaped .npy outputs; the params from NAME=VALUE text. Run.cpp strings these together.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "codegen/runtime/stnc_runtime.h"
#include "dag/Kernel.h"

namespace stnc::driver {

// One --in option, "NAME=FILE.npy": a field the kernel reads (index into k.fields) and its array's file.
struct InputSpec {
  int field = -1;
  std::string file;
};

// The --in options: NAME=FILE.npy each, a field that k reads, none twice (RunData::load checks that every read
// field is given, after the extents, which may come from the arrays given). False with `error` naming the option.
bool parseInputSpecs(const dag::Kernel& k, const std::vector<std::string>& specs, std::vector<InputSpec>& inputs,
                     std::string& error);

// One 128-byte-aligned buffer per field of kernel k at interior extents n, zeroed.
class RunData {
 public:
  // False with `error` when the extents are too large or memory runs out.
  bool allocate(const dag::Kernel& k, const std::vector<long>& n, std::string& error);

  // Fills the fields from their .npy files (parseInputSpecs): full-rank arrays are interior + 2*halo per axis, or
  // the interior alone where boundary rules fill the field's halo; lower-rank arrays are dense, halo included. Every
  // read field must be given; a swap pair's other buffer starts as a copy. False with `error` naming the file.
  bool load(const std::vector<InputSpec>& inputs, std::string& error);

  // The .npy file (bytes) of the interior of `buffer`, one of pointers() (after a run of several steps the entry
  // point has permuted them: pointers()[f] then holds what role f holds, maybe another field's buffer).
  std::string interiorNpy(const void* buffer) const;

  std::vector<void*> pointers() const;
  size_t elemSize() const { return dag::elemSize(k_->type); }

 private:
  void scatter(const std::vector<long>& shape, const char* src, void* dst, bool withHalo) const;
  const dag::Kernel* k_ = nullptr;
  std::vector<long> n_;
  stnc_rt::Layout L_{};
  struct Buffer {
    void* p = nullptr;
    ~Buffer() { std::free(p); }
  };
  std::vector<std::unique_ptr<Buffer>> bufs_;
};

// Params from "NAME=VALUE" specs, one value per k.params entry; every param must be given, an f32 kernel's within
// the f32 range. False with `error`.
bool parseParams(const dag::Kernel& k, const std::vector<std::string>& specs, std::vector<double>& values, std::string& error);

}  // namespace stnc::driver
