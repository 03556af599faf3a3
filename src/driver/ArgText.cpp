#include "driver/ArgText.h"

#include <cstdlib>

#include "support/Text.h"

namespace stnc::driver {

NumberRead readSignedNumber(const std::string& text, double& value) {
  const bool minus = !text.empty() && text[0] == '-';
  const NumberRead r = readNumber(minus ? text.substr(1) : text, value);
  if (minus) value = -value;
  return r;
}

std::string notANumberReason(NumberRead r) {
  return r == NumberRead::Overflow ? "beyond the float64 range" : "not a number";
}

bool splitAssign(const std::string& text, std::string& name, std::string& value) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return false;
  name = text.substr(0, eq);
  value = text.substr(eq + 1);
  return true;
}

std::string extentsText(const std::vector<long>& n) {
  std::string s;
  for (long e : n) appendItem(s, std::to_string(e), "x");
  return s;
}

bool parseLongList(const std::string& text, char sep, std::vector<long>& values, std::string& bad) {
  values.clear();
  for (size_t pos = 0;;) {
    const size_t next = text.find(sep, pos);
    const std::string part = text.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    char* end = nullptr;
    const long v = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0') {
      bad = part;
      return false;
    }
    values.push_back(v);
    if (next == std::string::npos) return true;
    pos = next + 1;
  }
}

CLI::Validator wholeAtLeast(long lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        std::vector<long> v;
        std::string bad;
        if (parseLongList(text, ',', v, bad) && v.size() == 1 && v[0] >= lo) return "";
        return "expected a whole number >= " + std::to_string(lo) + ", got '" + text + "'";
      },
      "INT>=" + std::to_string(lo));
}

int cliExit(const CLI::App& app, const CLI::ParseError& e) { return app.exit(e) == 0 ? 0 : 1; }

}  // namespace stnc::driver
