// Values spelled in command-line arguments (`stnc run`): signed numbers and lists of integers.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "syntax/Parser.h"

namespace stnc::driver {

// A number in any literal form of the language (decimal, exponent, hex float; readNumber), with an optional
// leading '-': Ok, Underflow (value -0 or 0), Overflow or Malformed.
NumberRead readSignedNumber(const std::string& text, double& value);

// What a --param or wavelet value that is not a number is, for the message: "beyond the float64 range" or
// "not a number".
std::string notANumberReason(NumberRead r);

// "NAME=VALUE" split at the first '='; false when either side is empty.
bool splitAssign(const std::string& text, std::string& name, std::string& value);

// Integers separated by `sep` ("64x64x64" with 'x', "3,4,5" with ','); false with the first part that is
// not an integer (empty parts included) in `bad`.
bool parseLongList(const std::string& text, char sep, std::vector<long>& values, std::string& bad);
// "61x37x53": extents as --size spells them (parseLongList's inverse with 'x').
std::string extentsText(const std::vector<long>& n);

// A CLI11 check for a whole number >= lo: "--steps: expected a whole number >= 0, got '-1'" (CLI11's own
// NonNegativeNumber printed its range up to DBL_MAX in full).
CLI::Validator wholeAtLeast(long lo);

// The exit status for a CLI11 parse outcome, after CLI11 printed it: 0 for --help (and the like), 1 for every usage
// error, as for stnc's own errors and compilers' (CLI11's own codes, 105 for a failed check, 106 for a missing
// option, ..., made scripts test two values).
int cliExit(const CLI::App& app, const CLI::ParseError& e);

}  // namespace stnc::driver
