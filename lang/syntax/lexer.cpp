#include "lang/syntax/lexer.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>

namespace ein {
namespace {

struct Keyword {
  std::string_view word;
  Tok kind;
};
constexpr std::array<Keyword, 16> kKeywords{{
    {"let", Tok::KwLet},     {"const", Tok::KwConst},   {"fn", Tok::KwFn},
    {"pub", Tok::KwPub},     {"use", Tok::KwUse},       {"mod", Tok::KwMod},
    {"as", Tok::KwAs},       {"in", Tok::KwIn},         {"if", Tok::KwIf},
    {"else", Tok::KwElse},   {"match", Tok::KwMatch},   {"where", Tok::KwWhere},
    {"true", Tok::KwTrue},   {"false", Tok::KwFalse},   {"struct", Tok::KwStruct},
    {"enum", Tok::KwEnum},
}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || is_digit(c); }

// Tokens after which `.5` means member access `.5` rather than the float 0.5: anything that can
// end an operand. This is what lets `t.0.1` and `(a, b).0` work.
bool ends_operand(Tok k) {
  switch (k) {
    case Tok::Ident: case Tok::Int: case Tok::Float: case Tok::Str: case Tok::RParen:
    case Tok::RBracket: case Tok::RBrace: case Tok::KwTrue: case Tok::KwFalse:
      return true;
    default:
      return false;
  }
}

// Length of the UTF-8 sequence starting with lead byte c (1 for invalid lead bytes), so an
// invalid character's caret covers one whole character.
uint32_t utf8_len(unsigned char c) {
  if (c >= 0xF0 && c <= 0xF4) return 4;
  if (c >= 0xE0) return c <= 0xEF ? 3 : 1;
  if (c >= 0xC2) return 2;
  return 1;
}

class Lexer {
 public:
  Lexer(std::string_view text, uint32_t file, uint32_t begin, uint32_t end)
      : s_(text), file_(file), i_(begin), end_(end) {}

  LexResult run() {
    if (i_ == 0 && s_.substr(0, std::min<size_t>(end_, 3)) == "\xEF\xBB\xBF") i_ = 3;  // BOM
    while (true) {
      bool nl = skip_trivia();
      if (i_ >= end_) break;
      uint32_t lo = i_;
      Tok k = next_token();
      push(k, lo, nl);
    }
    out_.tokens.push_back(Token{Tok::Eof, true, end_, end_});
    return std::move(out_);
  }

 private:
  char at(uint32_t j) const { return j < end_ ? s_[j] : '\0'; }
  Span span(uint32_t lo, uint32_t hi) const { return Span{file_, lo, hi}; }

  void push(Tok k, uint32_t lo, bool nl) {
    // Runs of invalid characters collapse into one token and one diagnostic.
    if (k == Tok::Error && merging_) {
      out_.tokens.back().hi = i_;
      out_.diags.back().primary.hi = i_;
    } else {
      out_.tokens.push_back(Token{k, nl, lo, i_});
      prev_ = k;
    }
    invalid_run_end_ = invalid_char_ ? i_ : kNone;
  }

  bool skip_trivia() {
    bool nl = out_.tokens.empty();
    while (i_ < end_) {
      char c = s_[i_];
      if (c == '\n') {
        nl = true;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '/' && at(i_ + 1) == '/') {
        while (i_ < end_ && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
    return nl;
  }

  void digits() {
    while (i_ < end_ && (is_digit(s_[i_]) || (s_[i_] == '_' && i_ > 0 && is_digit(s_[i_ - 1]))))
      ++i_;
  }

  Tok number(uint32_t lo) {
    bool is_float = false;
    if (s_[i_] == '.') {  // `.5`
      is_float = true;
      ++i_;
      digits();
    } else {
      digits();
      // After a `.` only a plain integer is read, so `t.0.1` is two member accesses.
      if (prev_ != Tok::Dot && at(i_) == '.' && is_digit(at(i_ + 1))) {
        is_float = true;
        ++i_;
        digits();
      }
    }
    if (prev_ != Tok::Dot && (at(i_) == 'e' || at(i_) == 'E')) {
      uint32_t j = i_ + 1;
      if (at(j) == '+' || at(j) == '-') ++j;
      if (is_digit(at(j))) {
        is_float = true;
        i_ = j;
        digits();
      }
    }
    std::string_view txt = s_.substr(lo, i_ - lo);
    if (is_float) {
      std::string clean;
      for (char c : txt)
        if (c != '_') clean += c;
      double v = std::strtod(clean.c_str(), nullptr);
      if (v == std::numeric_limits<double>::infinity())
        error(lo, i_, "float literal is out of range", "too large for f64");
      return Tok::Float;
    }
    int64_t v = 0;
    // 2^63 is only valid right after a unary minus (the i64 minimum); the parser checks that.
    if (!int_literal_value(txt, v) && !is_i64_min_magnitude(txt))
      error(lo, i_, "integer literal is too large", "does not fit in i64");
    return Tok::Int;
  }

  Tok string(uint32_t lo) {
    ++i_;  // opening quote
    while (i_ < end_) {
      char c = s_[i_];
      if (c == '\\') {
        i_ += 2;  // the escape itself is validated by scan_string
        continue;
      }
      ++i_;
      if (c == '"') return Tok::Str;
    }
    i_ = end_;
    Diagnostic d = make_diag("E001", "unterminated string literal", span(lo, lo + 1),
                             "string starts here and is never closed");
    d.help = "close it with `\"`";
    out_.diags.push_back(std::move(d));
    out_.unterminated = true;
    return Tok::Error;
  }

  void error(uint32_t lo, uint32_t hi, std::string msg, std::string label) {
    out_.diags.push_back(make_diag("E001", std::move(msg), span(lo, hi), std::move(label)));
  }

  Tok two(char next, Tok yes, Tok no) {
    if (at(i_ + 1) == next) {
      i_ += 2;
      return yes;
    }
    ++i_;
    return no;
  }

  Tok next_token() {
    uint32_t lo = i_;
    char c = s_[i_];
    invalid_char_ = merging_ = false;
    if (ident_start(c)) {
      while (i_ < end_ && ident_char(s_[i_])) ++i_;
      std::string_view w = s_.substr(lo, i_ - lo);
      if (w == "mod") {
        // `mod` is a keyword only where it declares a module (`mod name;`, `mod name { }`), so
        // std::math::mod can be a function (SPEC §10) and `mod(a, b)` a call.
        uint32_t j = i_;
        while (j < end_ && (s_[j] == ' ' || s_[j] == '\t' || s_[j] == '\n' || s_[j] == '\r')) ++j;
        return j < end_ && ident_start(s_[j]) ? Tok::KwMod : Tok::Ident;
      }
      for (const auto& kw : kKeywords)
        if (kw.word == w) return kw.kind;
      return Tok::Ident;
    }
    if (is_digit(c)) return number(lo);
    if (c == '.' && is_digit(at(i_ + 1)) && !ends_operand(prev_)) return number(lo);
    switch (c) {
      case '"': return string(lo);
      case '(': ++i_; return Tok::LParen;
      case ')': ++i_; return Tok::RParen;
      case '[': ++i_; return Tok::LBracket;
      case ']': ++i_; return Tok::RBracket;
      case '{': ++i_; return Tok::LBrace;
      case '}': ++i_; return Tok::RBrace;
      case ',': ++i_; return Tok::Comma;
      case ';': ++i_; return Tok::Semi;
      case '@': ++i_; return Tok::At;
      case '?': ++i_; return Tok::Question;
      case '+': ++i_; return Tok::Plus;
      case '%': ++i_; return Tok::Percent;
      case '/': ++i_; return Tok::Slash;
      case ':': return two(':', Tok::ColonColon, Tok::Colon);
      case '*': return two('*', Tok::StarStar, Tok::Star);
      case '!': return two('=', Tok::NotEq, Tok::Bang);
      case '<': return two('=', Tok::Le, Tok::Lt);
      case '>': return two('=', Tok::Ge, Tok::Gt);
      case '-': return two('>', Tok::Arrow, Tok::Minus);
      case '=':
        if (at(i_ + 1) == '>') {
          i_ += 2;
          return Tok::FatArrow;
        }
        return two('=', Tok::EqEq, Tok::Assign);
      case '.':
        if (at(i_ + 1) == '.') {
          i_ += 2;
          if (at(i_) == '=') {
            ++i_;
            return Tok::DotDotEq;
          }
          return Tok::DotDot;
        }
        ++i_;
        return Tok::Dot;
      case '|':
        if (at(i_ + 1) == '|') {
          i_ += 2;
          return Tok::OrOr;
        }
        return two('>', Tok::PipeGt, Tok::Pipe);
      case '&':
        if (at(i_ + 1) == '&') {
          i_ += 2;
          return Tok::AndAnd;
        }
        break;
      default:
        break;
    }
    i_ = std::min(end_, i_ + utf8_len(static_cast<unsigned char>(c)));
    invalid_char_ = true;
    merging_ = invalid_run_end_ == lo;
    if (!merging_) {
      std::string shown(s_.substr(lo, i_ - lo));
      if (c == '\0') shown = "\\0";
      std::string msg = "invalid character `" + shown + "`";
      out_.diags.push_back(make_diag("E001", msg, span(lo, i_), "not valid in Einlang source"));
      if (c == '&') out_.diags.back().help = "logical and is written `&&`";
    }
    return Tok::Error;
  }

  std::string_view s_;
  uint32_t file_;
  uint32_t i_;
  uint32_t end_;
  Tok prev_ = Tok::Eof;
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  uint32_t invalid_run_end_ = kNone;  // end of the last invalid-character token
  bool invalid_char_ = false;         // the token being lexed is an invalid character
  bool merging_ = false;              // ...and continues the previous invalid run
  LexResult out_;
};

}  // namespace

LexResult lex_range(std::string_view text, uint32_t file, uint32_t begin, uint32_t end) {
  if (text.size() > std::numeric_limits<uint32_t>::max() - 1)
    text = text.substr(0, std::numeric_limits<uint32_t>::max() - 1);
  auto size = static_cast<uint32_t>(text.size());
  end = std::min(end, size);
  begin = std::min(begin, end);
  return Lexer(text, file, begin, end).run();
}

std::vector<Token> lex(std::string_view text) {
  return lex_range(text, 0, 0, std::numeric_limits<uint32_t>::max()).tokens;
}

bool is_keyword(std::string_view word) {
  for (const auto& kw : kKeywords)
    if (kw.word == word) return true;
  return false;
}

const std::vector<std::string>& keyword_list() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> v;
    for (const auto& kw : kKeywords) v.emplace_back(kw.word);
    return v;
  }();
  return list;
}

bool is_reduction_name(std::string_view w) {
  return w == "sum" || w == "prod" || w == "max" || w == "min" || w == "all" || w == "any" ||
         w == "argmax" || w == "argmin";
}

bool is_keyword_tok(Tok k) { return k >= Tok::KwLet && k <= Tok::KwEnum; }

std::string tok_spelling(Tok k) {
  switch (k) {
    case Tok::Eof: return "end of input";
    case Tok::Error: return "invalid token";
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer literal";
    case Tok::Float: return "float literal";
    case Tok::Str: return "string literal";
    default: break;
  }
  if (is_keyword_tok(k)) {
    for (const auto& kw : kKeywords)
      if (kw.kind == k) return "`" + std::string(kw.word) + "`";
  }
  static const char* const kPunct[] = {
      "(", ")", "[", "]", "{", "}", ",", ";", ":", "::", ".", "..", "..=", "->", "=>", "=",
      "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "**", "/", "%", "&&", "||", "|", "|>",
      "!", "@", "?"};
  auto idx = static_cast<size_t>(k) - static_cast<size_t>(Tok::LParen);
  if (idx < sizeof kPunct / sizeof kPunct[0]) return "`" + std::string(kPunct[idx]) + "`";
  return "token";
}

bool is_i64_min_magnitude(std::string_view digits) {
  std::string clean;
  for (char c : digits)
    if (c != '_') clean += c;
  return clean == "9223372036854775808";
}

bool int_literal_value(std::string_view digits, int64_t& out) {
  uint64_t v = 0;
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (char c : digits) {
    if (c == '_') continue;
    if (c < '0' || c > '9') break;
    auto d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) {
      out = 0;
      return false;
    }
    v = v * 10 + d;
  }
  out = static_cast<int64_t>(v);
  return true;
}

namespace {

// A format spec as SPEC §1 allows it: optional width, optional `.precision`, optional one of
// `f e g d`. Validated here so a typo gets a caret inside the string instead of a runtime error.
bool valid_spec(std::string_view spec) {
  size_t i = 0;
  while (i < spec.size() && is_digit(spec[i])) ++i;
  if (i < spec.size() && spec[i] == '.') {
    size_t j = ++i;
    while (i < spec.size() && is_digit(spec[i])) ++i;
    if (i == j) return false;
  }
  if (i < spec.size() && (spec[i] == 'f' || spec[i] == 'e' || spec[i] == 'g' || spec[i] == 'd'))
    ++i;
  return i == spec.size();
}

class StringScanner {
 public:
  StringScanner(std::string_view text, uint32_t file, uint32_t lo, uint32_t hi)
      : s_(text), file_(file), lo_(lo), end_(hi > lo + 1 ? hi - 1 : lo + 1) {}

  StrScan run() {
    uint32_t i = lo_ + 1;
    while (i < end_) {
      char c = s_[i];
      if (c == '\\') {
        i = escape(i);
      } else if (c == '{' && at(i + 1) == '{') {
        lit(i, i + 2, "{");
        i += 2;
      } else if (c == '}' && at(i + 1) == '}') {
        lit(i, i + 2, "}");
        i += 2;
      } else if (c == '{') {
        i = hole(i);
      } else if (c == '}') {
        Diagnostic d = make_diag("E001", "unmatched `}` in string literal", span(i, i + 1),
                                 "unmatched `}`");
        d.help = "write `}}` for a literal `}`";
        out_.diags.push_back(std::move(d));
        ++i;
      } else {
        lit(i, i + 1, std::string_view(&s_[i], 1));
        ++i;
      }
    }
    return std::move(out_);
  }

 private:
  char at(uint32_t j) const { return j < end_ ? s_[j] : '\0'; }
  Span span(uint32_t a, uint32_t b) const { return Span{file_, a, b}; }

  void lit(uint32_t a, uint32_t b, std::string_view decoded) {
    if (out_.pieces.empty() || out_.pieces.back().hole) {
      StrPiece p;
      p.lo = a;
      out_.pieces.push_back(std::move(p));
    }
    out_.pieces.back().text += decoded;
    out_.pieces.back().hi = b;
  }

  uint32_t escape(uint32_t i) {
    char e = at(i + 1);
    std::string_view decoded;
    switch (e) {
      case 'n': decoded = "\n"; break;
      case 't': decoded = "\t"; break;
      case 'r': decoded = "\r"; break;
      case '0': decoded = std::string_view("\0", 1); break;
      case '\\': decoded = "\\"; break;
      case '"': decoded = "\""; break;
      case '\'': decoded = "'"; break;
      case '{': decoded = "{"; break;
      case '}': decoded = "}"; break;
      default: {
        uint32_t hi = std::min(end_, i + 1 + utf8_len(static_cast<unsigned char>(e)));
        std::string shown(s_.substr(i, hi - i));
        Diagnostic d = make_diag("E001", "unknown character escape `" + shown + "`",
                                 span(i, hi), "unknown escape");
        d.help = "valid escapes are \\n \\t \\r \\0 \\\\ \\\" \\' \\{ \\}";
        out_.diags.push_back(std::move(d));
        return hi;
      }
    }
    lit(i, i + 2, decoded);
    return i + 2;
  }

  // `{` at i opens a hole; returns the position after its closing `}`.
  uint32_t hole(uint32_t i) {
    uint32_t j = i + 1;
    int braces = 0;
    for (; j < end_; ++j) {
      if (s_[j] == '{') ++braces;
      if (s_[j] == '}' && braces-- == 0) break;
    }
    if (j >= end_) {
      Diagnostic d = make_diag("E001", "unclosed `{` in string literal", span(i, i + 1),
                               "interpolation starts here");
      d.help = "close it with `}`, or write `{{` for a literal `{`";
      out_.diags.push_back(std::move(d));
      return end_;
    }
    // The spec separator is the last ':' outside brackets that is not part of `::`.
    uint32_t colon = j;
    int depth = 0;
    for (uint32_t k = i + 1; k < j; ++k) {
      char c = s_[k];
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      else if (c == ':' && depth == 0 && s_[k - 1] != ':' && at(k + 1) != ':') colon = k;
    }
    StrPiece p;
    p.hole = true;
    p.lo = i;
    p.hi = j + 1;
    p.expr_lo = i + 1;
    p.expr_hi = colon;
    if (colon < j) p.spec = std::string(s_.substr(colon + 1, j - colon - 1));
    bool blank = true;
    for (uint32_t k = p.expr_lo; k < p.expr_hi; ++k)
      if (s_[k] != ' ' && s_[k] != '\t' && s_[k] != '\n' && s_[k] != '\r') blank = false;
    if (blank) {
      Diagnostic d = make_diag("E001", "empty expression in string interpolation",
                               span(i, j + 1), "expected an expression");
      d.help = "write `{{` and `}}` for literal braces";
      out_.diags.push_back(std::move(d));
      return j + 1;
    }
    if (!valid_spec(p.spec)) {
      Diagnostic d = make_diag("E001", "invalid format spec `" + p.spec + "`",
                               span(colon + 1, j), "invalid format spec");
      d.help = "a spec is an optional width, `.precision` and one of `f e g d`, e.g. `{x:8.3f}`";
      out_.diags.push_back(std::move(d));
      p.spec.clear();
    }
    out_.has_holes = true;
    out_.pieces.push_back(std::move(p));
    return j + 1;
  }

  std::string_view s_;
  uint32_t file_;
  uint32_t lo_;
  uint32_t end_;  // position of the closing quote
  StrScan out_;
};

}  // namespace

StrScan scan_string(std::string_view text, uint32_t file, uint32_t lo, uint32_t hi) {
  hi = std::min<uint32_t>(hi, static_cast<uint32_t>(std::min<size_t>(text.size(), UINT32_MAX)));
  if (lo >= hi) return {};
  return StringScanner(text, file, lo, hi).run();
}

}  // namespace ein
