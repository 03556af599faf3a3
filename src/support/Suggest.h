// "Did you mean" for misspelled names: the candidates nearest by edit distance, if they are close enough.
#pragma once
#include <string>
#include <vector>

namespace stnc {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two neighbouring
// characters each cost 1 ('alhpa' is one edit from 'alpha').
size_t editDistance(const std::string& a, const std::string& b);

// The candidates nearest to `typo`, in their order, within max(1, |typo| / 3) edits and fewer edits than
// |typo| (so 'x' never suggests 'y'); none when no candidate qualifies or typo is a candidate itself.
std::vector<std::string> closestNames(const std::string& typo, const std::vector<std::string>& candidates);

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string quotedAlternatives(const std::vector<std::string>& names);

}  // namespace stnc
