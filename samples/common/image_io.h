// samples/common/image_io.h — the image output the samples share: rows of RGB pixels encoded as PNG
// (libpng; the Makefiles set STNC_SAMPLE_PNG=1 when <png.h> compiles) or, without libpng, as a
// binary PPM (P6) next to the requested name (FILE.png -> FILE.ppm). Each sample keeps its own
// colour ramp and calls encodeImage with a row-filling function.
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
#if STNC_SAMPLE_PNG
#include <png.h>
#endif

#if STNC_SAMPLE_PNG
// Encodes rows x cols RGB pixels (row r from fillRow) with libpng; false on a libpng error.
inline bool encodeImage(FILE* fp, long rows, long cols, const std::function<void(long, unsigned char*)>& fillRow) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  std::vector<png_byte> row(static_cast<size_t>(3 * cols));
  if (setjmp(png_jmpbuf(png))) {  // libpng reports errors by longjmp
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, fp);
  png_set_IHDR(png, info, static_cast<png_uint_32>(cols), static_cast<png_uint_32>(rows), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (long r = 0; r < rows; ++r) {
    fillRow(r, row.data());
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}
inline constexpr const char* kImageKind = "PNG";

inline std::string imagePath(const std::string& path) { return path; }
#else
// Without libpng: binary PPM (P6, 8 bits per channel), readable by most image viewers and converters.
inline bool encodeImage(FILE* fp, long rows, long cols, const std::function<void(long, unsigned char*)>& fillRow) {
  std::vector<unsigned char> row(static_cast<size_t>(3 * cols));
  if (std::fprintf(fp, "P6\n%ld %ld\n255\n", cols, rows) < 0) return false;
  for (long r = 0; r < rows; ++r) {
    fillRow(r, row.data());
    if (std::fwrite(row.data(), 1, row.size(), fp) != row.size()) return false;
  }
  return true;
}
inline constexpr const char* kImageKind = "PPM";

// FILE.png -> FILE.ppm (any other name gets .ppm appended).
inline std::string imagePath(const std::string& path) {
  const size_t dot = path.rfind(".png");
  return dot != std::string::npos && dot + 4 == path.size() ? path.substr(0, dot) + ".ppm" : path + ".ppm";
}
#endif
