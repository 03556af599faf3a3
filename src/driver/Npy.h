// NumPy .npy files (format 1.0 / 2.0 / 3.0 read, 1.0 written): little-endian float32/float64,
// C order. Enough for `stnc run` without a Python dependency.
#pragma once
#include <string>
#include <vector>

namespace stnc::driver {

struct NpyArray {
  std::string descr;          // "<f8" or "<f4"
  std::vector<long> shape;
  std::vector<char> data;     // raw little-endian elements
  size_t elemSize() const { return descr == "<f4" ? 4 : 8; }
  size_t count() const {
    size_t n = 1;
    for (long s : shape) n *= static_cast<size_t>(s);
    return n;
  }
};

// Reads a .npy file; with withData false only its header (descr and shape; data stays empty).
bool readNpy(const std::string& path, NpyArray& a, std::string& error, bool withData = true);
// The bytes of a .npy file holding `a`.
std::string npyBytes(const NpyArray& a);
std::string shapeText(const std::vector<long>& shape);

}  // namespace stnc::driver
