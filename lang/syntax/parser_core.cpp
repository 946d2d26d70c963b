// Parser plumbing: token access, diagnostics, panic-mode resynchronisation, and the public
// entry points parse_program() and completeness().
#include <algorithm>
#include <numeric>

#include "lang/syntax/parser.h"

namespace ein {
namespace syntax_detail {

using ir::Kind;
using ir::NodeRef;

Parser::Parser(std::string_view text, uint32_t file, std::vector<Token> toks, SharedState& ds,
               int depth, bool hole)
    : text_(text), file_(file), toks_(std::move(toks)), ds_(ds), depth_(depth), hole_(hole) {
  if (toks_.empty() || toks_.back().kind != Tok::Eof) {
    uint32_t end = toks_.empty() ? 0 : toks_.back().hi;
    toks_.push_back(Token{Tok::Eof, true, end, end});
  }
  // Matching closers are precomputed once so the reduction look-ahead `max[..](` is O(1).
  match_.assign(toks_.size(), std::string::npos);
  std::vector<size_t> stack;
  size_t open_count[3] = {0, 0, 0};
  auto family = [](Tok k) {
    return k == Tok::LParen || k == Tok::RParen ? 0 : k == Tok::LBracket || k == Tok::RBracket ? 1 : 2;
  };
  for (size_t i = 0; i < toks_.size(); ++i) {
    Tok k = toks_[i].kind;
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LBrace) {
      stack.push_back(i);
      ++open_count[family(k)];
    } else if ((k == Tok::RParen || k == Tok::RBracket || k == Tok::RBrace) &&
               open_count[family(k)] > 0) {
      // A closer matches the nearest opener of its kind; openers above it stay unmatched.
      // Each scanned entry is popped, so this stays linear overall.
      while (family(toks_[stack.back()].kind) != family(k)) {
        --open_count[family(toks_[stack.back()].kind)];
        stack.pop_back();
      }
      match_[stack.back()] = i;
      --open_count[family(k)];
      stack.pop_back();
    }
  }
}

Parser::DepthGuard::DepthGuard(Parser& parser) : p(parser) {
  if (++p.depth_ > kMaxDepth) {
    --p.depth_;
    if (!p.ds_.depth_reported) {
      p.ds_.depth_reported = true;
      p.report(make_diag("E001", "nesting too deep", p.tok_span(p.peek()),
                         "more than " + std::to_string(kMaxDepth) + " levels of nesting"),
               false);
    }
    throw ParseAbort{};
  }
}

const Token& Parser::peek(size_t k) const {
  return toks_[std::min(pos_ + k, toks_.size() - 1)];
}

bool Parser::eat(Tok k) {
  if (!at(k)) return false;
  advance();
  return true;
}

const Token& Parser::advance() {
  const Token& t = toks_[pos_];
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

std::string_view Parser::text_of(const Token& t) const {
  if (t.hi > text_.size() || t.lo > t.hi) return {};
  return text_.substr(t.lo, t.hi - t.lo);
}

std::string Parser::describe(const Token& t) const {
  switch (t.kind) {
    case Tok::Eof: return hole_ ? "end of interpolation" : "end of input";
    case Tok::Str: return "string literal";
    case Tok::Error: return "invalid token";
    case Tok::Ident: case Tok::Int: case Tok::Float: {
      std::string s(text_of(t));
      if (s.size() > 32) s = s.substr(0, 29) + "...";
      return "`" + s + "`";
    }
    default:
      if (is_keyword_tok(t.kind)) return "keyword " + tok_spelling(t.kind);
      return tok_spelling(t.kind);
  }
}

// End of the last consumed token (advance() never moves past Eof, so this is exact).
uint32_t Parser::prev_hi() const { return pos_ == 0 ? toks_[0].lo : toks_[pos_ - 1].hi; }

Span Parser::span_from(uint32_t lo) const { return Span{file_, lo, std::max(lo, prev_hi())}; }

// Every parser node goes through here so the tree's depth is bounded: later passes recurse over
// the tree, and a 100000-term `1 + 1 + ...` chain must not overflow their stacks.
NodeRef Parser::mk(ir::NodeInit init) {
  int depth = 1;
  for (const auto& k : init.kids) {
    if (!k) continue;
    auto it = ds_.tree_depth.find(k.get());
    if (it != ds_.tree_depth.end()) depth = std::max(depth, it->second + 1);
  }
  if (depth > kMaxTreeDepth) {
    if (!ds_.depth_reported) {
      ds_.depth_reported = true;
      report(make_diag("E001", "nesting too deep", init.span,
                       "expression nests more than " + std::to_string(kMaxTreeDepth) + " levels"),
             false);
    }
    throw ParseAbort{};
  }
  NodeRef n = ir::make(std::move(init));
  ds_.tree_depth[n.get()] = depth;
  return n;
}

void Parser::report(Diagnostic d, bool at_eof) {
  if (hole_) at_eof = false;  // a hole ends at `}`, which is not the end of the input
  if (at_eof) {
    if (ds_.eof_reported) return;
    ds_.eof_reported = true;
  }
  ds_.diags.push_back(std::move(d));
  ds_.at_eof.push_back(at_eof);
  if (ds_.diags.size() >= kMaxDiags) throw ParseStop{};
}

void Parser::one_tuple_error(uint32_t lo) {
  Diagnostic d = make_diag("E001", "one-element tuples are not supported", span_from(lo),
                           "one-element tuple");
  d.help = "remove the trailing comma";
  report(std::move(d), false);
}

void Parser::fail(Diagnostic d, const Token& found) {
  // The lexer already reported invalid tokens; one error per problem.
  if (found.kind != Tok::Error) report(std::move(d), found.kind == Tok::Eof);
  throw ParseAbort{};
}

// Where to put the caret for `t`: the token itself, or, for the end of input, right after the
// last real token (like rustc) rather than on a blank line after a trailing newline.
Span Parser::caret(const Token& t) const {
  if (t.kind != Tok::Eof || hole_ || toks_.size() < 2) return tok_span(t);
  uint32_t end = toks_[toks_.size() - 2].hi;
  return Span{file_, end, end};
}

void Parser::fail_expected(const std::string& what, const Token& found, const Token* opener) {
  Diagnostic d = make_diag("E001", "expected " + what + ", found " + describe(found),
                           caret(found), "expected " + what);
  if (opener) {
    Tok k = found.kind;
    bool looks_unclosed = k == Tok::Eof || k == Tok::Semi || k == Tok::RParen ||
                          k == Tok::RBracket || k == Tok::RBrace || is_stmt_keyword(k);
    if (looks_unclosed) d.secondary.push_back(Label{tok_span(*opener), "unclosed delimiter"});
  }
  fail(std::move(d), found);
}

const Token& Parser::expect(Tok k, const char* context) {
  if (at(k)) return advance();
  std::string what = tok_spelling(k);
  if (context) what += std::string(" ") + context;
  fail_expected(what, peek());
}

const Token& Parser::expect_close(Tok closer, const Token& opener, bool list) {
  if (at(closer)) return advance();
  std::string what = tok_spelling(closer);
  if (list) what = "`,` or " + what;
  fail_expected(what, peek(), &opener);
}

size_t Parser::matching(size_t open_idx) const {
  return open_idx < match_.size() ? match_[open_idx] : std::string::npos;
}

bool Parser::is_stmt_keyword(Tok k) const {
  return k == Tok::KwLet || k == Tok::KwConst || k == Tok::KwFn || k == Tok::KwUse ||
         k == Tok::KwMod || k == Tok::KwStruct || k == Tok::KwEnum || k == Tok::KwPub;
}

// Panic-mode recovery after an error in the statement that started at token `start`: skip to
// the `;` that ends it, to the `}` of the enclosing block, to a statement keyword at its own
// level, or just past the closing `}` of an item. Delimiters opened inside the statement before
// the error are replayed first, so `let y = (x[0] + x[1];` stops at that `;` and a `;` inside a
// nested block does not.
void Parser::synchronize(size_t start) {
  if (at(Tok::Eof)) return;  // nothing to skip (and no need to replay a huge prefix)
  std::vector<Tok> stack;
  int braces = 0;
  auto open = [&](Tok k) {
    stack.push_back(k);
    if (k == Tok::LBrace) ++braces;
  };
  auto close_to = [&](Tok opener) {
    if (opener == Tok::LBrace) {
      while (!stack.empty()) {
        Tok t = stack.back();
        stack.pop_back();
        if (t == Tok::LBrace) {
          --braces;
          break;
        }
      }
    } else if (!stack.empty() && stack.back() == opener) {
      stack.pop_back();
    }
  };
  for (size_t i = start; i < pos_ && i < toks_.size(); ++i) {
    Tok k = toks_[i].kind;
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LBrace) open(k);
    else if (k == Tok::RParen) close_to(Tok::LParen);
    else if (k == Tok::RBracket) close_to(Tok::LBracket);
    else if (k == Tok::RBrace && braces > 0) close_to(Tok::LBrace);
  }
  Tok first = start < toks_.size() ? toks_[start].kind : Tok::Eof;
  bool item = first == Tok::KwFn || first == Tok::KwPub || first == Tok::KwMod ||
              first == Tok::KwStruct || first == Tok::KwEnum ||
              (first == Tok::At && start + 1 < toks_.size() && toks_[start + 1].kind == Tok::KwFn);
  while (!at(Tok::Eof)) {
    Tok k = peek().kind;
    switch (k) {
      case Tok::LParen: case Tok::LBracket: case Tok::LBrace:
        open(k);
        break;
      case Tok::RParen: close_to(Tok::LParen); break;
      case Tok::RBracket: close_to(Tok::LBracket); break;
      case Tok::RBrace:
        if (braces == 0) return;  // belongs to the enclosing block
        close_to(Tok::LBrace);
        if (item && stack.empty()) {
          advance();
          return;
        }
        break;
      case Tok::Semi:
        if (braces == 0) {
          advance();
          return;
        }
        break;
      default:
        if (braces == 0 && pos_ != start &&
            (is_stmt_keyword(k) || (k == Tok::At && peek(1).kind == Tok::KwFn)))
          return;
        break;
    }
    advance();
  }
}

NodeRef Parser::program() {
  std::vector<NodeRef> kids;
  bool tail = false;
  try {
    stmt_list(Tok::Eof, true, kids, tail);
  } catch (const ParseStop&) {
    tail = false;  // the last statement may be cut off; do not present it as a value
  } catch (const ParseAbort&) {
  }
  uint32_t lo = toks_.front().lo;
  uint32_t hi = std::max(lo, toks_.back().hi);
  if (!hole_) {
    lo = 0;
    hi = static_cast<uint32_t>(std::min<size_t>(text_.size(), UINT32_MAX));
  }
  return ir::make({.kind = Kind::Program, .span = Span{file_, lo, hi}, .kids = std::move(kids),
                   .flags = tail ? ir::kHasTail : 0u});
}

NodeRef Parser::hole_expression() {
  uint32_t lo = peek().lo;
  try {
    NodeRef e = expr();
    if (!at(Tok::Eof)) fail_expected("end of interpolation", peek());
    return e;
  } catch (const ParseAbort&) {
    return mk({.kind = Kind::Error, .span = Span{file_, lo, toks_.back().hi}});
  }
}

}  // namespace syntax_detail

ParseResult parse_program(const SourceMap& sm, uint32_t file_id) {
  using namespace syntax_detail;
  const std::string& text = sm.file(file_id).text;
  LexResult lr = lex_range(text, file_id, 0, UINT32_MAX);
  SharedState ds;
  ParseResult res;
  bool stopped = false;
  for (size_t i = 0; i < lr.diags.size() && !stopped; ++i) {
    bool eof = lr.unterminated && i + 1 == lr.diags.size();
    ds.eof_reported = ds.eof_reported || eof;
    ds.diags.push_back(std::move(lr.diags[i]));
    ds.at_eof.push_back(eof);
    stopped = ds.diags.size() >= kMaxDiags;
  }
  if (stopped) {
    res.program = ir::make({.kind = Kind::Program,
                            .span = Span{file_id, 0, static_cast<uint32_t>(text.size())}});
  } else {
    Parser p(text, file_id, std::move(lr.tokens), ds, 0, false);
    res.program = p.program();
  }
  // Lexer errors were collected first; present everything in source order.
  std::vector<size_t> order(ds.diags.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ds.diags[a].primary.lo < ds.diags[b].primary.lo;
  });
  for (size_t i : order) res.diags.push_back(std::move(ds.diags[i]));
  res.incomplete = !order.empty() && ds.at_eof[order.front()];
  return res;
}

std::string completeness(const std::string& text) {
  SourceMap sm;
  uint32_t id = sm.add("<input>", text);
  ParseResult r = parse_program(sm, id);
  if (r.diags.empty()) return "complete";
  return r.incomplete ? "incomplete" : "invalid";
}

}  // namespace ein
