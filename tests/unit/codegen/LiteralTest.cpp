// codegen/CPrinter literal(): the shortest decimal that reads back exactly, in the kernel's type;
// float64 constants are never rounded through float32.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "codegen/CPrinter.h"

using namespace stnc;
using codegen::literal;
using dag::ElemType;

namespace {

// Reads a literal as the C compiler would: strips the parentheses and the f suffix.
double readF64(std::string s) {
  if (s.front() == '(') s = s.substr(1, s.size() - 2);
  return std::strtod(s.c_str(), nullptr);
}
float readF32(std::string s) {
  if (s.front() == '(') s = s.substr(1, s.size() - 2);
  REQUIRE(s.back() == 'f');
  s.pop_back();
  return std::strtof(s.c_str(), nullptr);
}

}  // namespace

TEST_CASE("f64 literals are the shortest exact decimal") {
  CHECK(literal(0.1, ElemType::F64) == "0.1");
  CHECK(literal(1.0, ElemType::F64) == "1.0");
  CHECK(literal(0.25, ElemType::F64) == "0.25");
  CHECK(literal(1e300, ElemType::F64) == "1e+300");
  CHECK(literal(0.0, ElemType::F64) == "0.0");
}

TEST_CASE("integral values are never printed as C integer literals") {
  // "100" would make 100 / 3 an integer division in the generated code.
  for (double v : {1.0, 3.0, 100.0, 1e5, 4096.0, 9007199254740992.0, 1e16, -7.0}) {
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      std::string s = literal(v, t);
      CAPTURE(s);
      CHECK(s.find_first_of(".eE") != std::string::npos);
      CHECK((t == ElemType::F64 ? readF64(s) : static_cast<double>(readF32(s))) ==
            (t == ElemType::F64 ? v : static_cast<double>(static_cast<float>(v))));
    }
  }
}

TEST_CASE("negative literals are parenthesized so they can follow any operator") {
  CHECK(literal(-0.2, ElemType::F64) == "(-0.2)");
  CHECK(literal(-6.0, ElemType::F64) == "(-6.0)");
  CHECK(literal(-0.5, ElemType::F32) == "(-0.5f)");
  // -0.0 keeps its sign.
  CHECK(literal(-0.0, ElemType::F64) == "(-0.0)");
}

TEST_CASE("f32 literals carry an f suffix and are the shortest that reads back to the float") {
  CHECK(literal(0.1, ElemType::F32) == "0.1f");
  CHECK(literal(2.0, ElemType::F32) == "2.0f");
  std::string third = literal(1.0 / 3.0, ElemType::F32);
  CHECK(readF32(third) == static_cast<float>(1.0 / 3.0));
  CHECK(third.size() <= 12);  // "0.33333334f": at most 9 significant digits
  // A double between two floats is rounded once, to the nearest float.
  CHECK(literal(16777217.0, ElemType::F32) == "16777216.0f");
}

TEST_CASE("an f64 literal of a value that is not float-representable reads back to the same double") {
  const double values[] = {1.0 / 3.0, 0.1 * 3, -205.0 / 72.0, 4.0 / 105.0, -1.0 / 280.0, std::sqrt(2.0),
                           1e-310 /* subnormal */, 1.7976931348623157e308, std::nextafter(1.0, 2.0)};
  for (double v : values) {
    CAPTURE(v);
    std::string s = literal(v, ElemType::F64);
    CAPTURE(s);
    CHECK(readF64(s) == v);
    CHECK(s.back() != 'f');
    // Not the float's shortest form: a float32 round trip would lose the value.
    CHECK(static_cast<double>(static_cast<float>(v)) != v);
  }
}

TEST_CASE("f64 literals use no more digits than needed") {
  // 17 significant digits are enough for any double; 0.1 * 3 needs all of them.
  CHECK(literal(0.1 * 3, ElemType::F64) == "0.30000000000000004");
  CHECK(literal(1.0 / 3.0, ElemType::F64) == "0.3333333333333333");
}

TEST_CASE("infinities and NaN are spelled with builtins") {
  CHECK(literal(HUGE_VAL, ElemType::F64) == "__builtin_inf()");
  CHECK(literal(-HUGE_VAL, ElemType::F64) == "(-__builtin_inf())");
  CHECK(literal(NAN, ElemType::F32) == "__builtin_nanf(\"\")");
}

TEST_CASE("f32 literals beyond the f32 range are the infinity the rounding gives, printed by name") {
  // 1e39 and exp(100) fold to finite f64 values; rounded to f32 they are inf ("%g" prints "inf", which
  // made "inf.0f" in the generated code before session 40).
  CHECK(literal(1e39, ElemType::F32) == "__builtin_inff()");
  CHECK(literal(-2.6881171418161356e+43, ElemType::F32) == "(-__builtin_inff())");
  CHECK(literal(1e39, ElemType::F64) == "1e+39");
  // The largest f32 and a value that rounds down to it stay finite.
  CHECK(readF32(literal(3.4028234663852886e+38, ElemType::F32)) == 3.4028234663852886e+38f);
  CHECK(readF32(literal(3.4028235e+38, ElemType::F32)) == 3.4028234663852886e+38f);
}
