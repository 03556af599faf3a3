// Values spelled in command-line arguments (`stnc run`): signed numbers and lists of integers.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace stnc::driver {

// A number in any literal form of the language (decimal, exponent, hex float; parseNumber), with an
// optional leading '-'; false if malformed.
bool parseSignedNumber(const std::string& text, double& value);

// Integers separated by `sep` ("64x64x64" with 'x', "3,4,5" with ','); false with the first part that is
// not an integer (empty parts included) in `bad`.
bool parseLongList(const std::string& text, char sep, std::vector<long>& values, std::string& bad);

// A CLI11 check for a whole number >= lo: "--steps: expected a whole number >= 0, got '-1'" (CLI11's own
// NonNegativeNumber printed its range up to DBL_MAX in full).
CLI::Validator wholeAtLeast(long lo);

}  // namespace stnc::driver
