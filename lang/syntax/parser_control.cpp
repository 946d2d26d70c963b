// Block-like expressions (blocks, if, match), lambdas, and string literals with interpolation.
#include "lang/syntax/parser.h"

namespace ein::syntax_detail {

using ir::Kind;
using ir::NodeRef;

NodeRef Parser::block() {
  DepthGuard guard(*this);
  uint32_t lo = peek().lo;
  if (!at(Tok::LBrace)) fail_expected("`{`", peek());
  const Token opener = advance();
  std::vector<NodeRef> kids;
  bool tail = false;
  stmt_list(Tok::RBrace, true, kids, tail);
  expect_close(Tok::RBrace, opener);
  return mk({.kind = Kind::Block, .span = span_from(lo), .kids = std::move(kids),
             .flags = tail ? ir::kHasTail : 0u});
}

NodeRef Parser::block_like() {
  if (at(Tok::KwIf)) return if_expr();
  if (at(Tok::KwMatch)) return match_expr();
  return block();
}

// `if c { a } else if d { b } else { c }`; the condition is a plain expression (there are no
// struct literals whose `{` could be confused with the block).
NodeRef Parser::if_expr() {
  DepthGuard guard(*this);
  uint32_t lo = advance().lo;
  NodeRef cond = expr();
  if (!at(Tok::LBrace)) fail_expected("`{` after the `if` condition", peek());
  NodeRef then = block();
  NodeRef els;
  if (eat(Tok::KwElse)) {
    if (at(Tok::KwIf)) els = if_expr();
    else if (at(Tok::LBrace)) els = block();
    else fail_expected("`{` or `if` after `else`", peek());
  }
  return mk({.kind = Kind::If, .span = span_from(lo), .kids = {cond, then, els}});
}

NodeRef Parser::match_expr() {
  DepthGuard guard(*this);
  uint32_t lo = advance().lo;
  NodeRef scrutinee = expr();
  if (!at(Tok::LBrace)) fail_expected("`{` after the `match` scrutinee", peek());
  const Token opener = advance();
  std::vector<NodeRef> kids{scrutinee};
  while (!at(Tok::RBrace) && !at(Tok::Eof)) {
    bool block_body = false;
    kids.push_back(arm(block_body));
    if (eat(Tok::Comma) || block_body) continue;
    if (!at(Tok::RBrace)) fail_expected("`,` or `}`", peek(), &opener);
  }
  expect_close(Tok::RBrace, opener);
  return mk({.kind = Kind::Match, .span = span_from(lo), .kids = std::move(kids)});
}

// `pattern (where|if guard)? => body`; a block body needs no `,` after it (as in Rust).
NodeRef Parser::arm(bool& block_body) {
  uint32_t lo = peek().lo;
  NodeRef pat = pattern();
  NodeRef guard;
  if (eat(Tok::KwWhere) || eat(Tok::KwIf)) guard = expr();
  if (!at(Tok::FatArrow)) fail_expected("`=>`", peek());
  advance();
  block_body = at(Tok::LBrace);
  NodeRef body = block_body ? block() : expr();
  return mk({.kind = Kind::Arm, .span = span_from(lo), .kids = {pat, guard, body}});
}

// `|x, y: f32| body` or `|| body`; the body extends as far as an expression can.
NodeRef Parser::lambda() {
  DepthGuard guard(*this);
  uint32_t lo = peek().lo;
  std::vector<NodeRef> kids{nullptr};
  if (!eat(Tok::OrOr)) {
    advance();
    while (!at(Tok::Pipe)) {
      kids.push_back(param());
      if (!eat(Tok::Comma)) break;
    }
    if (!at(Tok::Pipe)) fail_expected(kids.size() > 1 ? "`,` or `|`" : "parameter or `|`", peek());
    advance();
  }
  kids[0] = expr();
  return mk({.kind = Kind::Lambda, .span = span_from(lo), .kids = std::move(kids)});
}

// A string without holes is a StrLit; otherwise an Interp of StrLit and InterpHole parts.
NodeRef Parser::string_lit() {
  const Token t = advance();
  StrScan scan = scan_string(text_, file_, t.lo, t.hi);
  for (auto& d : scan.diags) report(std::move(d), false);
  if (!scan.has_holes) {
    std::string text;
    for (const auto& p : scan.pieces) text += p.text;
    return mk({.kind = Kind::StrLit, .span = tok_span(t), .name = std::move(text)});
  }
  std::vector<NodeRef> kids;
  for (const auto& p : scan.pieces) {
    if (p.hole) {
      kids.push_back(hole(p));
    } else {
      kids.push_back(mk({.kind = Kind::StrLit, .span = Span{file_, p.lo, p.hi}, .name = p.text}));
    }
  }
  return mk({.kind = Kind::Interp, .span = tok_span(t), .kids = std::move(kids)});
}

// The hole's expression is lexed and parsed from its own bytes in the same file, so its spans
// are exact and its errors point inside the string.
NodeRef Parser::hole(const StrPiece& piece) {
  LexResult lr = lex_range(text_, file_, piece.expr_lo, piece.expr_hi);
  for (auto& d : lr.diags) report(std::move(d), false);
  Parser sub(text_, file_, std::move(lr.tokens), ds_, depth_, true);
  NodeRef e = sub.hole_expression();
  return mk({.kind = Kind::InterpHole, .span = Span{file_, piece.lo, piece.hi}, .kids = {e},
             .aux = piece.spec});
}

}  // namespace ein::syntax_detail
