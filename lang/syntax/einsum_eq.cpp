#include "lang/syntax/einsum_eq.h"

#include <algorithm>
#include <cctype>

namespace ein::einsum_eq {

namespace {

Parsed fail(std::string why) { return {std::nullopt, {"E006", std::move(why)}}; }

// One term: letters and at most one `...`; the error text, or "" when it is well formed.
std::string read_term(std::string_view s, Term& t) {
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, 3) == "...") {
      if (t.ellipsis) return "`...` twice in one operand";
      t.ellipsis = t.letters.size();
      i += 3;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.letters += s[i];
      ++i;
    } else {
      return std::string("unexpected character `") + s[i] + "`";
    }
  }
  return "";
}

}  // namespace

bool Equation::has_ellipsis() const {
  return std::any_of(operands.begin(), operands.end(),
                     [](const Term& t) { return t.ellipsis.has_value(); }) ||
         (output && output->ellipsis);
}

std::string Equation::output_letters() const {
  if (output) return output->letters;
  int count[256] = {};
  for (const Term& t : operands)
    for (char c : t.letters) ++count[static_cast<unsigned char>(c)];
  std::string out;
  for (int c = 0; c < 256; ++c)
    if (count[c] == 1) out += static_cast<char>(c);
  return out;
}

Parsed parse_einsum(std::string_view text) {
  std::string q;
  for (char c : text)
    if (c != ' ') q += c;
  size_t arrow = q.find("->");
  std::string_view lhs = std::string_view(q).substr(0, arrow);
  Equation eq;
  for (size_t b = 0;;) {
    size_t e = lhs.find(',', b);
    eq.operands.emplace_back();
    if (std::string why =
            read_term(lhs.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b),
                      eq.operands.back());
        !why.empty())
      return fail(why);
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  if (arrow != std::string::npos) {
    Term o;
    if (std::string why = read_term(std::string_view(q).substr(arrow + 2), o); !why.empty())
      return fail(why);
    for (size_t a = 0; a < o.letters.size(); ++a) {
      char c = o.letters[a];
      bool input = std::any_of(eq.operands.begin(), eq.operands.end(), [&](const Term& t) {
        return t.letters.find(c) != std::string::npos;
      });
      if (!input) return fail(std::string("output label `") + c + "` is not an input label");
      if (o.letters.find(c) < a) return fail("an output label repeats");
    }
    eq.output = o;
  }
  return {eq, {}};
}

Labelled label_axes(const Equation& eq, const std::vector<int>& ranks) {
  if (ranks.size() != eq.operands.size())
    return {std::nullopt,
            {"E006", std::to_string(eq.operands.size()) + " operands in the equation, " +
                         std::to_string(ranks.size()) + " given"}};
  Axes ax;
  for (size_t k = 0; k < ranks.size(); ++k) {
    const Term& t = eq.operands[k];
    int named = static_cast<int>(t.letters.size());
    if (!t.fits(ranks[k]))
      return {std::nullopt,
              {"E004", "operand " + std::to_string(k) + " has rank " + std::to_string(ranks[k]) +
                           ", the equation gives it " + std::to_string(named) + " axes"}};
    if (t.ellipsis) ax.ellipsis_rank = std::max(ax.ellipsis_rank, ranks[k] - named);
  }
  // A term's `...` holds its m extra axes, right-aligned: the last axes of all operands line up.
  auto expand = [&](const Term& t, int m) {
    std::vector<int> ls;
    for (size_t a = 0; a <= t.letters.size(); ++a) {
      if (t.ellipsis && *t.ellipsis == a)
        for (int e = 0; e < m; ++e) ls.push_back(kEllipsisBase + ax.ellipsis_rank - m + e);
      if (a < t.letters.size()) ls.push_back(static_cast<unsigned char>(t.letters[a]));
    }
    return ls;
  };
  for (size_t k = 0; k < ranks.size(); ++k) {
    const Term& t = eq.operands[k];
    ax.operands.push_back(
        expand(t, t.ellipsis ? ranks[k] - static_cast<int>(t.letters.size()) : 0));
  }
  if (eq.output) {
    ax.output = expand(*eq.output, eq.output->ellipsis ? ax.ellipsis_rank : 0);
  } else {
    ax.output = expand(Term{"", 0}, ax.ellipsis_rank);
    for (char c : eq.output_letters()) ax.output.push_back(static_cast<unsigned char>(c));
  }
  return {ax, {}};
}

}  // namespace ein::einsum_eq
