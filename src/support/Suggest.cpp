#include "support/Suggest.h"

#include <algorithm>

namespace stnc {

size_t editDistance(const std::string& a, const std::string& b) {
  // d[i][j]: distance of a's first i characters to b's first j (names are short: the whole table is kept).
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::vector<std::string> closestNames(const std::string& typo, const std::vector<std::string>& candidates) {
  size_t best = std::max<size_t>(1, typo.size() / 3);
  std::vector<std::string> out;
  for (const std::string& c : candidates) {
    if (c == typo) return {};
    const size_t dist = editDistance(typo, c);
    if (dist > best || dist >= typo.size()) continue;
    if (dist < best) out.clear();
    best = dist;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string quotedAlternatives(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("'" + names[i] + "'");
  return s;
}

void noteDidYouMean(DiagEngine& diags, Loc loc, const std::string& name, const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = closestNames(name, candidates);
  if (!near.empty()) diags.report(DiagId::note_did_you_mean, loc) << quotedAlternatives(near);
}

}  // namespace stnc
