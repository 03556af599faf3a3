#include "driver/RunData.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <utility>

#include "codegen/KernelBody.h"
#include "driver/ArgText.h"
#include "driver/Driver.h"
#include "driver/InferExtents.h"
#include "driver/Npy.h"
#include "support/Text.h"

namespace stnc::driver {

namespace {

bool failWith(std::string& error, std::string message) {
  error = std::move(message);
  return false;
}

std::string npyDescr(const dag::Kernel& k) { return k.type == dag::ElemType::F32 ? "<f4" : "<f8"; }

std::string axisList(const dag::Kernel& k, const dag::Field& f) {
  std::string s;
  for (const std::string& a : dag::fieldAxisNames(k, f)) appendItem(s, a);
  return s;
}

}  // namespace

bool RunData::allocate(const dag::Kernel& k, const std::vector<long>& n, std::string& error) {
  k_ = &k;
  n_ = n;
  if (!kernelLayout(k, n.data(), L_)) {
    error = "extents too large";
    return false;
  }
  bufs_.clear();
  for (const dag::Field& f : k.fields) {
    // The layout's elements, or a lower-rank field's dense n + 2*halo along its axes.
    const size_t bytes = stnc_rt::fieldCount(L_, dag::fieldDims(k, f)) * elemSize();
    bufs_.push_back(std::make_unique<Buffer>());
    bufs_.back()->p = std::aligned_alloc(128, stnc_rt::roundUp(static_cast<long>(bytes), 128));
    if (!bufs_.back()->p) {
      error = "out of memory allocating " + std::to_string(bytes) + " bytes";
      return false;
    }
    std::memset(bufs_.back()->p, 0, bytes);
  }
  return true;
}

// Copies a full-rank array of `shape` (interior + 2*halo, or the interior alone) into a padded buffer.
void RunData::scatter(const std::vector<long>& shape, const char* src, void* dst, bool withHalo) const {
  const size_t es = elemSize();
  long ext[3] = {1, 1, 1}, off[3] = {0, 0, 0};
  for (int a = 0; a < k_->rank(); ++a) {
    const int d = codegen::internalDim(*k_, a);
    ext[d] = shape[static_cast<size_t>(a)];
    off[d] = withHalo ? -k_->footprint.halo[a] : 0;
  }
  for (long x = 0; x < ext[0]; ++x)
    for (long y = 0; y < ext[1]; ++y) {
      const long at = stnc_rt::at(L_, x + off[0], y + off[1], off[2]);
      std::memcpy(static_cast<char*>(dst) + at * es, src, ext[2] * es);
      src += ext[2] * es;
    }
}

bool parseInputSpecs(const dag::Kernel& k, const std::vector<std::string>& specs, std::vector<InputSpec>& inputs,
                     std::string& error) {
  inputs.clear();
  std::set<std::string> given;
  for (const std::string& s : specs) {
    std::string name, file;
    if (!splitAssign(s, name, file)) return failWith(error, "--in '" + s + "': expected NAME=FILE.npy");
    const int idx = k.fieldIndex(name);
    if (idx < 0) return failWith(error, "'" + k.name + "' has no field '" + name + "'");
    if (!dag::isRead(k.fields[static_cast<size_t>(idx)].role))
      return failWith(error, "'" + name + "' is an output of '" + k.name + "', not an input");
    if (!given.insert(name).second) return failWith(error, "--in " + name + " is given twice");
    inputs.push_back({idx, file});
  }
  return true;
}

bool RunData::load(const std::vector<InputSpec>& inputs, std::string& error) {
  const dag::Kernel& k = *k_;
  const std::string descr = npyDescr(k);
  std::vector<long> full;
  for (int a = 0; a < k.rank(); ++a) full.push_back(n_[a] + 2 * k.footprint.halo[a]);
  std::set<std::string> loaded;
  for (const InputSpec& in : inputs) {
    const dag::Field& f = k.fields[static_cast<size_t>(in.field)];
    const std::string& name = f.name;
    const std::string& file = in.file;
    NpyArray arr;
    if (!readNpy(file, arr, error)) return false;
    if (arr.descr != descr)
      return failWith(error, "'" + file + "' has dtype " + arr.descr + "; stencil '" + k.name + "' is " +
                     dag::elemTypeName(k.type) + " (" + descr + ")");
    void* dst = bufs_[static_cast<size_t>(in.field)]->p;
    if (f.lowerRank()) {  // dense, halo included: copied as it is
      std::vector<long> want;  // n + 2*halo along the axes the field has
      for (int a = 0; a < k.rank(); ++a)
        if (f.axes & (1u << a)) want.push_back(full[static_cast<size_t>(a)]);
      if (arr.shape != want)
        return failWith(error, "'" + file + "' for field '" + name + "' (over " + axisList(k, f) + ") has shape " +
                       shapeText(arr.shape) + "; expected " + shapeText(want) + " (interior + 2*halo along its axes)");
      std::memcpy(dst, arr.data.data(), arr.data.size());
    } else {
      const bool ruled = haloFilledByRules(k, name);
      const bool isFull = arr.shape == full, isInterior = arr.shape == n_ && ruled;
      if (!isFull && !isInterior) {
        error = "'" + file + "' for field '" + name + "' has shape " + shapeText(arr.shape) + "; expected " +
                shapeText(full) + " (interior + 2*halo)";
        if (ruled) error += " or " + shapeText(n_) + " (interior; the boundary rule fills the halo)";
        return false;
      }
      scatter(arr.shape, arr.data.data(), dst, isFull);
    }
    loaded.insert(name);
  }
  for (const dag::Field& f : k.fields)
    if (dag::isRead(f.role) && !loaded.count(f.name)) return failWith(error, "missing --in " + f.name + "=FILE.npy");
  // Both buffers of a swap pair start as a copy of the input (halo included).
  for (auto& [a, b] : k.swaps) {
    void* pa = bufs_[static_cast<size_t>(k.fieldIndex(a))]->p;
    void* pb = bufs_[static_cast<size_t>(k.fieldIndex(b))]->p;
    if (loaded.count(a) && !loaded.count(b)) std::memcpy(pb, pa, L_.count * elemSize());
    if (loaded.count(b) && !loaded.count(a)) std::memcpy(pa, pb, L_.count * elemSize());
  }
  return true;
}

std::string RunData::interiorNpy(const void* buffer) const {
  const size_t es = elemSize();
  NpyArray arr;
  arr.descr = npyDescr(*k_);
  arr.shape = n_;
  arr.data.resize(arr.count() * es);
  long ext[3] = {1, 1, 1};
  for (int a = 0; a < k_->rank(); ++a) ext[codegen::internalDim(*k_, a)] = n_[static_cast<size_t>(a)];
  const char* src = static_cast<const char*>(buffer);
  char* dst = arr.data.data();
  for (long x = 0; x < ext[0]; ++x)
    for (long y = 0; y < ext[1]; ++y) {
      std::memcpy(dst, src + stnc_rt::at(L_, x, y, 0) * es, ext[2] * es);
      dst += ext[2] * es;
    }
  return npyBytes(arr);
}

std::vector<void*> RunData::pointers() const {
  std::vector<void*> p;
  for (const auto& b : bufs_) p.push_back(b->p);
  return p;
}

bool parseParams(const dag::Kernel& k, const std::vector<std::string>& specs, std::vector<double>& values, std::string& error) {
  values.assign(k.params.size(), 0.0);
  std::vector<bool> given(k.params.size(), false);
  for (const std::string& p : specs) {
    std::string name, value;
    if (!splitAssign(p, name, value)) return failWith(error, "--param '" + p + "': expected NAME=VALUE");
    const int idx = k.paramIndex(name);
    if (idx < 0) return failWith(error, "'" + k.name + "' has no param '" + name + "'");
    if (given[static_cast<size_t>(idx)]) return failWith(error, "--param " + name + " is given twice");
    double v;
    if (const NumberRead r = readSignedNumber(value, v); r == NumberRead::Overflow || r == NumberRead::Malformed)
      return failWith(error, "--param " + name + ": '" + value + "' is " + notANumberReason(r));
    if (k.type == dag::ElemType::F32 && !std::isfinite(static_cast<float>(v)))
      return failWith(error, "--param " + name + ": " + value + " is beyond the f32 range of stencil '" + k.name +
                     "' (largest 3.4028235e+38)");
    values[static_cast<size_t>(idx)] = v;
    given[static_cast<size_t>(idx)] = true;
  }
  for (size_t i = 0; i < k.params.size(); ++i)
    if (!given[i]) return failWith(error, "missing --param " + k.params[i] + "=VALUE");
  return true;
}

}  // namespace stnc::driver
