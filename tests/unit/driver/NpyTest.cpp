// driver/Npy: .npy write -> read round trips, the header layout of format 1.0, and read errors.
#include <doctest/doctest.h>

#include <cstring>

#include "unit/codegen/CodegenTestUtil.h"
#include "driver/Npy.h"

using namespace stnc;
using driver::NpyArray;

namespace {

template <typename T>
NpyArray makeArray(const std::string& descr, std::vector<long> shape) {
  NpyArray a;
  a.descr = descr;
  a.shape = std::move(shape);
  std::vector<T> values(a.count());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<T>(i) / T(3) - T(7);
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

NpyArray roundTrip(const NpyArray& a) {
  test::TempDir dir;
  std::string path = dir.write("a.npy", driver::npyBytes(a));
  NpyArray b;
  std::string error;
  REQUIRE_MESSAGE(driver::readNpy(path, b, error), error);
  return b;
}

std::string readError(const std::string& bytes) {
  test::TempDir dir;
  std::string path = dir.write("bad.npy", bytes);
  NpyArray b;
  std::string error;
  CHECK_FALSE(driver::readNpy(path, b, error));
  return error;
}

// A format-1.0 file written by hand, following the NumPy format specification.
std::string handMade(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  size_t pre = major == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    out += '\0';
    out += '\0';
  }
  return out + header + data;
}

}  // namespace

TEST_CASE("float64 arrays round-trip through .npy bytes") {
  NpyArray a = makeArray<double>("<f8", {3, 4, 5});
  NpyArray b = roundTrip(a);
  CHECK(b.descr == "<f8");
  CHECK(b.shape == std::vector<long>{3, 4, 5});
  CHECK(b.data == a.data);
}

TEST_CASE("float32 and one-dimensional arrays round-trip") {
  NpyArray a = makeArray<float>("<f4", {7});
  NpyArray b = roundTrip(a);
  CHECK(b.descr == "<f4");
  CHECK(b.elemSize() == 4);
  CHECK(b.shape == std::vector<long>{7});
  CHECK(b.data == a.data);
}

TEST_CASE("the written header follows format 1.0: magic, version, 64-byte aligned data") {
  NpyArray a = makeArray<double>("<f8", {2, 3});
  std::string bytes = driver::npyBytes(a);
  REQUIRE(bytes.size() > 10);
  CHECK(bytes.compare(0, 6, "\x93NUMPY") == 0);
  CHECK(bytes[6] == 1);
  CHECK(bytes[7] == 0);
  size_t hlen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  CHECK((10 + hlen) % 64 == 0);
  CHECK(bytes[10 + hlen - 1] == '\n');
  CHECK(bytes.size() == 10 + hlen + 6 * sizeof(double));
  std::string header = bytes.substr(10, hlen);
  CHECK(header.find("'descr': '<f8'") != std::string::npos);
  CHECK(header.find("'fortran_order': False") != std::string::npos);
  CHECK(header.find("'shape': (2, 3)") != std::string::npos);
}

TEST_CASE("shapes are written as Python tuples") {
  CHECK(driver::shapeText({5}) == "(5,)");
  CHECK(driver::shapeText({2, 3}) == "(2, 3)");
  CHECK(driver::shapeText({}) == "()");
}

TEST_CASE("files written by other tools are read: format 1.0 and 2.0 headers") {
  double v[2] = {1.5, -2.25};
  std::string data(reinterpret_cast<const char*>(v), sizeof v);
  for (int major : {1, 2}) {
    CAPTURE(major);
    test::TempDir dir;
    std::string path = dir.write("x.npy", handMade("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", data, major));
    NpyArray b;
    std::string error;
    REQUIRE_MESSAGE(driver::readNpy(path, b, error), error);
    CHECK(b.shape == std::vector<long>{2});
    CHECK(b.data == std::vector<char>(data.begin(), data.end()));
  }
}

TEST_CASE("unsupported or broken .npy files are rejected with a reason") {
  CHECK(readError("not an npy file at all").find("is not a .npy file") != std::string::npos);
  CHECK(readError(handMade("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", "abcd")).find("<i4") !=
        std::string::npos);
  CHECK(readError(handMade("{'descr': '<f8', 'fortran_order': True, 'shape': (1,), }", std::string(8, '\0')))
            .find("Fortran order") != std::string::npos);
  CHECK(readError(handMade("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", std::string(8, '\0')))
            .find("truncated") != std::string::npos);
  NpyArray b;
  std::string error;
  CHECK_FALSE(driver::readNpy("/nonexistent/dir/x.npy", b, error));
  CHECK(error.find("cannot read") != std::string::npos);
}
