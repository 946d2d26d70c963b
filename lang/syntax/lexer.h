// Tokens of Einlang source text (SPEC §1). The lexer never fails: anything it cannot read becomes
// one Tok::Error token plus an E001 diagnostic, so the parser (and tab completion, which reuses
// lex()) always gets a token stream ending in exactly one Tok::Eof.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lang/diag/diag.h"

namespace ein {

enum class Tok : uint8_t {
  Eof,
  Error,  // invalid characters or an unterminated string; the diagnostic is already reported
  Ident,
  Int,
  Float,
  Str,  // the whole literal including quotes; holes are split later by scan_string()
  // keywords (SPEC §1)
  KwLet, KwConst, KwFn, KwPub, KwUse, KwMod, KwAs, KwIn, KwIf, KwElse, KwMatch, KwWhere,
  KwTrue, KwFalse, KwStruct, KwEnum,
  // delimiters
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
  // punctuation and operators
  Comma, Semi, Colon, ColonColon, Dot, DotDot, DotDotEq, Arrow, FatArrow, Assign,
  EqEq, NotEq, Lt, Le, Gt, Ge, Plus, Minus, Star, StarStar, Slash, Percent,
  AndAnd, OrOr, Pipe, PipeGt, Bang, At, Question,
};

struct Token {
  Tok kind = Tok::Eof;
  bool newline_before = false;  // a line break separates this token from the previous one
  uint32_t lo = 0;              // absolute byte offsets into the file text
  uint32_t hi = 0;
};

struct LexResult {
  std::vector<Token> tokens;  // always ends with exactly one Tok::Eof (lo == hi == end)
  std::vector<Diagnostic> diags;
  bool unterminated = false;  // a string literal ran into the end of input
};

// Lexes text[begin, end) of file `file`; offsets in tokens and spans stay absolute so a
// sub-range (an interpolation hole) gets exact spans in the enclosing file.
LexResult lex_range(std::string_view text, uint32_t file, uint32_t begin, uint32_t end);

// Tokens only, for tools such as tab completion that do not care about diagnostics.
std::vector<Token> lex(std::string_view text);

bool is_keyword(std::string_view word);
const std::vector<std::string>& keyword_list();
// Names that start a reduction when followed by `[slots](body)` (SPEC §5.3); otherwise ordinary.
bool is_reduction_name(std::string_view word);
// Human-readable token kind: "`;`", "identifier", "end of input".
std::string tok_spelling(Tok k);
bool is_keyword_tok(Tok k);

// Value of an integer literal's digits (underscores allowed); false if it exceeds i64.
// The digits of 2^63, the magnitude of the i64 minimum (valid only after a unary minus).
bool is_i64_min_magnitude(std::string_view digits);
bool int_literal_value(std::string_view digits, int64_t& out);

// One literal run or one `{expr:spec}` hole of a string literal.
struct StrPiece {
  bool hole = false;
  std::string text;  // decoded literal text (literal pieces only)
  uint32_t lo = 0, hi = 0;            // raw source span; for holes `{` through `}`
  uint32_t expr_lo = 0, expr_hi = 0;  // hole: the expression bytes
  std::string spec;                   // hole: format spec after the separating ':' ("" if none)
};

struct StrScan {
  std::vector<StrPiece> pieces;  // adjacent literal text is merged; empty runs are omitted
  std::vector<Diagnostic> diags;
  bool has_holes = false;
};

// Splits a Tok::Str token (text[lo, hi) including both quotes) into literal runs and holes,
// decoding escapes and `{{`/`}}`, and validating format specs.
StrScan scan_string(std::string_view text, uint32_t file, uint32_t lo, uint32_t hi);

}  // namespace ein
