#include "driver/PointSources.h"

#include <cstring>

#include "driver/ArgText.h"
#include "driver/Npy.h"

namespace stnc::driver {

namespace {

// The wavelet of one source: `steps` values from a .npy file or a constant.
bool readWave(const std::string& text, long steps, std::vector<double>& wave, std::string& error) {
  double c;
  const NumberRead r = readSignedNumber(text, c);
  if (r == NumberRead::Ok || r == NumberRead::Underflow) {
    wave.insert(wave.end(), static_cast<size_t>(steps), c);
    return true;
  }
  if (r == NumberRead::Overflow) {  // a number, not a file name
    error = "'" + text + "' is " + notANumberReason(r);
    return false;
  }
  NpyArray a;
  if (!readNpy(text, a, error)) return false;
  if (a.shape.size() != 1) {
    error = "'" + text + "': a wavelet is a 1-D array (one value per step), not " + shapeText(a.shape);
    return false;
  }
  if (a.shape[0] < steps) {
    error = "'" + text + "' holds " + std::to_string(a.shape[0]) + " values; --steps " + std::to_string(steps) +
            " needs one per step";
    return false;
  }
  for (long t = 0; t < steps; ++t) {
    if (a.descr == "<f4") {
      float f;
      std::memcpy(&f, a.data.data() + t * 4, 4);
      wave.push_back(f);
    } else {
      double d;
      std::memcpy(&d, a.data.data() + t * 8, 8);
      wave.push_back(d);
    }
  }
  return true;
}

}  // namespace

bool parsePointSources(const dag::Kernel& k, const std::vector<long>& n, long steps, const std::vector<std::string>& specs,
                       PointSources& out, std::string& error) {
  out = PointSources{};
  if (!specs.empty() && steps < 1) {
    error = "--source needs --steps N: a source adds one wavelet value after each step's sweep";
    return false;
  }
  for (const std::string& s : specs) {
    const std::string form = "--source '" + s + "': ";
    const size_t atPos = s.find('@'), eq = s.find('=');
    if (atPos == std::string::npos || eq == std::string::npos || atPos == 0 || eq < atPos || eq + 1 == s.size()) {
      std::string axes;
      for (int a = 0; a < k.rank(); ++a) axes += (a ? "," : "") + k.axes[a];
      error = form + "expected FIELD@" + axes + "=WAVELET.npy (or =VALUE)";
      return false;
    }
    const std::string field = s.substr(0, atPos);
    const int idx = k.fieldIndex(field);
    if (idx < 0) {
      error = form + "'" + k.name + "' has no field '" + field + "'";
      return false;
    }
    if (k.fields[static_cast<size_t>(idx)].lowerRank()) {
      error = form + "'" + field + "' has fewer axes than '" + k.name + "' (an input profile): a source adds to a field of every axis";
      return false;
    }
    out.at.push_back(idx);
    std::vector<long> coords;
    std::string bad;
    if (!parseLongList(s.substr(atPos + 1, eq - atPos - 1), ',', coords, bad)) {
      error = form + "'" + bad + "' is not an integer coordinate";
      return false;
    }
    if (static_cast<int>(coords.size()) != k.rank()) {
      error = form + std::to_string(coords.size()) + " coordinates; '" + k.name + "' has " + std::to_string(k.rank()) + " axes";
      return false;
    }
    for (int a = 0; a < k.rank(); ++a) {
      if (coords[a] < 0 || coords[a] >= n[a]) {
        error = form + k.axes[a] + " = " + std::to_string(coords[a]) + " is outside the interior [0, " + std::to_string(n[a]) + ")";
        return false;
      }
      out.at.push_back(coords[a]);
    }
    if (!readWave(s.substr(eq + 1), steps, out.wave, error)) {
      error = form + error;
      return false;
    }
    ++out.count;
  }
  return true;
}

}  // namespace stnc::driver
