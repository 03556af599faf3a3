#include "driver/Npy.h"

#include <cstring>
#include <fstream>
#include <regex>

namespace stnc::driver {

std::string shapeText(const std::vector<long>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

bool readNpy(const std::string& path, NpyArray& a, std::string& error, bool withData) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "'";
    return false;
  }
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = "'" + path + "' is not a .npy file";
    return false;
  }
  int major = static_cast<unsigned char>(magic[6]);
  size_t hlen = 0;
  if (major == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    hlen = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<size_t>(b[3]) << 24);
  }
  if (!in || hlen > (1u << 20)) {
    error = "'" + path + "': bad .npy header";
    return false;
  }
  std::string header(hlen, '\0');
  in.read(&header[0], static_cast<std::streamsize>(hlen));
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr':\\s*'([^']*)'"))) {
    error = "'" + path + "': no dtype in header";
    return false;
  }
  a.descr = m[1];
  if (a.descr != "<f8" && a.descr != "<f4") {
    error = "'" + path + "' has dtype " + a.descr + "; expected float64 ('<f8') or float32 ('<f4')";
    return false;
  }
  if (std::regex_search(header, m, std::regex("'fortran_order':\\s*True"))) {
    error = "'" + path + "' is in Fortran order; save it C-ordered (numpy.ascontiguousarray)";
    return false;
  }
  if (!std::regex_search(header, m, std::regex("'shape':\\s*\\(([^)]*)\\)"))) {
    error = "'" + path + "': no shape in header";
    return false;
  }
  a.shape.clear();
  std::string dims = m[1];
  std::regex num("\\d+");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), num); it != std::sregex_iterator(); ++it)
    a.shape.push_back(std::stol(it->str()));
  if (!withData) return true;
  size_t bytes = a.count() * a.elemSize();
  a.data.resize(bytes);
  if (!in.read(a.data.data(), static_cast<std::streamsize>(bytes))) {
    error = "'" + path + "' is truncated (expected " + std::to_string(bytes) + " data bytes)";
    return false;
  }
  return true;
}

std::string npyBytes(const NpyArray& a) {
  std::string header = "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': " + shapeText(a.shape) + ", }";
  size_t total = 10 + header.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  header += std::string(pad, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(a.data.data(), a.data.size());
  return out;
}

}  // namespace stnc::driver
