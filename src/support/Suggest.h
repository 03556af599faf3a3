// "Did you mean" for misspelled names: the candidates nearest by edit distance, if they are close enough.
#pragma once
#include <string>
#include <vector>

#include "support/Diagnostics.h"

namespace stnc {

// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two neighbouring
// characters each cost 1 ('alhpa' is one edit from 'alpha').
size_t editDistance(const std::string& a, const std::string& b);

// The candidates nearest to `typo`, in their order, within max(1, |typo| / 3) edits and fewer edits than
// |typo| (so 'x' never suggests 'y'); none when no candidate qualifies or typo is a candidate itself.
std::vector<std::string> closestNames(const std::string& typo, const std::vector<std::string>& candidates);

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string quotedAlternatives(const std::vector<std::string>& names);

// The note "did you mean 'a' or 'b'?" at loc, under the error just reported for `name`, when candidates
// has names near it; nothing otherwise.
void noteDidYouMean(DiagEngine& diags, Loc loc, const std::string& name, const std::vector<std::string>& candidates);

// The keys of a map keyed by name (the symbol tables), as candidates.
template <typename M>
std::vector<std::string> keysOf(const M& m) {
  std::vector<std::string> v;
  for (const auto& kv : m) v.push_back(kv.first);
  return v;
}

}  // namespace stnc
