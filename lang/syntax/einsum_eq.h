// An einsum equation (`"ij,jk->ik"`, `"...ij->...ji"`, `"ii"`), read once into its parts. The
// equation is a string literal of the program, so it is input: the interpreter's `einsum`, type
// inference (the result's rank) and autodiff (the gradient's equations) all read it through
// `parse_einsum` and then `label_axes` instead of scanning the text each on its own.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ein::einsum_eq {

// Label codes of `label_axes`: a letter is its character code; the k-th axis `...` stands for
// (from the left of the widest operand's unlabelled axes) is kEllipsisBase + k.
inline constexpr int kEllipsisBase = 1000;

// One operand's subscripts, or the output's: its letters and where `...` sits among them.
struct Term {
  std::string letters;
  std::optional<size_t> ellipsis;  // position of `...` in letters (letters[0..at) come before it)

  // Whether an array of this rank can carry these subscripts (`...` takes any number of axes).
  bool fits(int rank) const {
    int n = static_cast<int>(letters.size());
    return ellipsis ? rank >= n : rank == n;
  }
};

struct Equation {
  std::vector<Term> operands;   // one per `,`-separated term before `->`
  std::optional<Term> output;   // after `->`; nullopt for the implicit form (`ij,jk`)

  bool has_ellipsis() const;
  // The output's letters: the explicit ones, or (implicit form) the letters that occur exactly
  // once over all operands, in character order as NumPy sorts them.
  std::string output_letters() const;
  // Whether the output carries the `...` axes: where `->` puts them, or always when implicit.
  bool output_ellipsis() const { return output ? output->ellipsis.has_value() : true; }
  // The result's rank when `...` stands for `ellipsis_rank` axes.
  int output_rank(int ellipsis_rank) const {
    return static_cast<int>(output_letters().size()) + (output_ellipsis() ? ellipsis_rank : 0);
  }
};

// Why an equation or the operands given to it are wrong, with the SPEC §9 code the interpreter
// reports (E006 for a malformed equation, E004 for an operand whose rank does not fit).
struct Error {
  std::string code;
  std::string why;
};

struct Parsed {
  std::optional<Equation> eq;
  Error error;  // set when !eq
};

// Spaces are ignored. Errors (E006): a character other than a letter, `,`, `->` and `...`;
// `...` twice in one term; an output letter that no operand has, or that repeats.
Parsed parse_einsum(std::string_view text);

// Every axis labelled for operands of the given ranks: `...` expanded right-aligned into
// ellipsis codes (NumPy's broadcasting), the output's labels in order.
struct Axes {
  std::vector<std::vector<int>> operands;
  std::vector<int> output;
  int ellipsis_rank = 0;  // the most axes `...` stands for in one operand
};

struct Labelled {
  std::optional<Axes> axes;
  Error error;  // set when !axes
};

// E006 when the number of ranks is not the number of terms; E004 when a rank does not fit its
// term (`Term::fits`).
Labelled label_axes(const Equation& eq, const std::vector<int>& ranks);

}  // namespace ein::einsum_eq
