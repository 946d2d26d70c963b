// A module path as its segments: `std::math::exp` is {"std", "math", "exp"}; the empty path is
// the program (or session) itself, the root of the user's modules. The parser builds paths from
// tokens and the resolver works on segments; `text()` is only the spelling for messages and
// display. `parse` reads a path typed outside the language (a %doc query, a completion prefix).
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ein::ir {

struct ModPath {
  std::vector<std::string> segs;

  ModPath() = default;
  explicit ModPath(std::vector<std::string> s) : segs(std::move(s)) {}
  // A path of one segment (a plain name).
  static ModPath name(std::string n) { return ModPath({std::move(n)}); }

  bool empty() const { return segs.empty(); }
  size_t size() const { return segs.size(); }
  const std::string& front() const { return segs.front(); }
  const std::string& back() const { return segs.back(); }
  // The first `n` segments; the segments from `n` on.
  ModPath prefix(size_t n) const { return ModPath({segs.begin(), segs.begin() + std::min(n, segs.size())}); }
  ModPath suffix(size_t n) const { return ModPath({segs.begin() + std::min(n, segs.size()), segs.end()}); }
  // The module that contains this one (the root's parent is the root).
  ModPath parent() const { return prefix(segs.empty() ? 0 : segs.size() - 1); }
  ModPath operator/(const std::string& seg) const {
    ModPath p = *this;
    p.segs.push_back(seg);
    return p;
  }
  ModPath operator/(const ModPath& below) const {
    ModPath p = *this;
    p.segs.insert(p.segs.end(), below.segs.begin(), below.segs.end());
    return p;
  }
  bool is_std() const { return !segs.empty() && segs[0] == "std"; }
  // A proper descendant of `above` (every non-empty path is below the root).
  bool below(const ModPath& above) const {
    return segs.size() > above.segs.size() && std::equal(above.segs.begin(), above.segs.end(), segs.begin());
  }

  // `a::b::c`; "" for the root.
  std::string text() const {
    std::string s;
    for (size_t i = 0; i < segs.size(); ++i) s += (i ? "::" : "") + segs[i];
    return s;
  }

  // Identifiers separated by `::` (`x`, `std::math::sin`); nullopt for anything else.
  static std::optional<ModPath> parse(std::string_view t) {
    ModPath p;
    size_t i = 0;
    while (true) {
      size_t b = i;
      auto word = [](char c, bool first) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
      };
      if (i >= t.size() || !word(t[i], true)) return std::nullopt;
      while (i < t.size() && word(t[i], false)) ++i;
      p.segs.emplace_back(t.substr(b, i - b));
      if (i == t.size()) return p;
      if (t.substr(i, 2) != "::") return std::nullopt;
      i += 2;
    }
  }

  friend bool operator==(const ModPath& a, const ModPath& b) { return a.segs == b.segs; }
  friend bool operator!=(const ModPath& a, const ModPath& b) { return a.segs != b.segs; }
  friend bool operator<(const ModPath& a, const ModPath& b) { return a.segs < b.segs; }
};

}  // namespace ein::ir
