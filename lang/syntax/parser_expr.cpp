#include <limits>
// Expressions: where clauses, binary operators by precedence climbing (SPEC §4), casts, unary
// operators, postfix call/index/member, and the atoms (literals, names, paths, tuples, arrays,
// comprehensions, reductions).
#include <cstdlib>
#include <unordered_set>

#include "lang/syntax/parser.h"

namespace ein::syntax_detail {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

namespace {

// Binding power, loosest first. 0 = not a binary operator. Levels 4-6 are non-associative.
constexpr int kPipe = 1, kOr = 2, kAnd = 3, kEq = 4, kCmp = 5, kRange = 6, kAdd = 7, kMul = 8,
              kPow = 9;

int precedence(Tok k) {
  switch (k) {
    case Tok::PipeGt: return kPipe;
    case Tok::OrOr: return kOr;
    case Tok::AndAnd: return kAnd;
    case Tok::EqEq: case Tok::NotEq: return kEq;
    case Tok::Lt: case Tok::Le: case Tok::Gt: case Tok::Ge: case Tok::KwIn: return kCmp;
    case Tok::DotDot: case Tok::DotDotEq: return kRange;
    case Tok::Plus: case Tok::Minus: return kAdd;
    case Tok::Star: case Tok::Slash: case Tok::Percent: return kMul;
    case Tok::StarStar: return kPow;
    default: return 0;
  }
}

BinOp binop(Tok k) {
  switch (k) {
    case Tok::OrOr: return BinOp::Or;
    case Tok::AndAnd: return BinOp::And;
    case Tok::EqEq: return BinOp::Eq;
    case Tok::NotEq: return BinOp::Ne;
    case Tok::Lt: return BinOp::Lt;
    case Tok::Le: return BinOp::Le;
    case Tok::Gt: return BinOp::Gt;
    case Tok::Ge: return BinOp::Ge;
    case Tok::KwIn: return BinOp::In;
    case Tok::Plus: return BinOp::Add;
    case Tok::Minus: return BinOp::Sub;
    case Tok::Star: return BinOp::Mul;
    case Tok::Slash: return BinOp::Div;
    case Tok::Percent: return BinOp::Mod;
    default: return BinOp::Pow;
  }
}

}  // namespace

NodeRef Parser::expr() {
  DepthGuard guard(*this);
  return binary(kPipe);
}

// `e where a = x, guard, ... else fallback` — only where SPEC allows it: the right-hand side of
// let / Einstein declarations / const, and reduction bodies.
NodeRef Parser::expr_where() {
  uint32_t lo = peek().lo;
  NodeRef e = expr();
  if (!eat(Tok::KwWhere)) return e;
  std::vector<NodeRef> kids{e};
  do {
    uint32_t clo = peek().lo;
    if (at(Tok::Ident) && peek(1).kind == Tok::Assign) {
      std::string name(text_of(advance()));
      advance();
      NodeRef v = expr();
      kids.push_back(mk({.kind = Kind::WBind, .span = span_from(clo), .kids = {v},
                         .name = std::move(name)}));
    } else {
      NodeRef g = expr();
      kids.push_back(mk({.kind = Kind::WGuard, .span = span_from(clo), .kids = {g}}));
    }
  } while (eat(Tok::Comma));
  if (at(Tok::KwElse)) {
    uint32_t elo = advance().lo;
    NodeRef v = expr();
    kids.push_back(mk({.kind = Kind::WElse, .span = span_from(elo), .kids = {v}}));
  }
  return mk({.kind = Kind::Where, .span = span_from(lo), .kids = std::move(kids)});
}

NodeRef Parser::binary(int min_prec) {
  uint32_t lo = peek().lo;
  NodeRef lhs = cast();
  return binary_loop(std::move(lhs), lo, min_prec);
}

// Continues an expression whose first operand is already parsed (block-like statement heads).
NodeRef Parser::binary_from(NodeRef lhs, uint32_t lo, int min_prec) {
  return binary_loop(cast_tail(std::move(lhs), lo), lo, min_prec);
}

NodeRef Parser::binary_loop(NodeRef lhs, uint32_t lo, int min_prec) {
  while (true) {
    int p = precedence(peek().kind);
    if (p == 0 || p < min_prec) return lhs;
    const Token op = advance();
    NodeRef rhs;
    if (p == kPow) {
      DepthGuard guard(*this);  // right-associative: `a ** b ** c ...` recurses
      rhs = binary(kPow);
    } else {
      rhs = binary(p + 1);
    }
    Span sp = span_from(lo);
    if (op.kind == Tok::PipeGt) {
      lhs = mk({.kind = Kind::Call, .span = sp, .kids = {rhs, lhs}});
    } else if (p == kRange) {
      lhs = mk({.kind = Kind::RangeLit, .span = sp, .kids = {lhs, rhs},
                .flags = op.kind == Tok::DotDotEq ? ir::kInclusive : 0u});
    } else {
      lhs = mk({.kind = Kind::Binary, .span = sp, .kids = {lhs, rhs},
                .ival = static_cast<int64_t>(binop(op.kind))});
    }
    if ((p == kEq || p == kCmp || p == kRange) && precedence(peek().kind) == p)
      chain_error(op, p == kRange);  // the parse itself can continue unharmed
  }
}

// Diagnostics are built out of line so the recursive parsing functions keep small stack frames
// (nesting depth is bounded, but each level should stay cheap).
void Parser::chain_error(const Token& first, bool range) {
  Diagnostic d = make_diag(
      "E001", range ? "range operators cannot be chained" : "comparison operators cannot be chained",
      tok_span(peek()), range ? "second range operator" : "second comparison");
  d.secondary.push_back(Label{tok_span(first), "first one here"});
  d.help = range ? "parenthesise one of the ranges"
                 : "split the comparison with `&&`, e.g. `a < b && b < c`";
  report(std::move(d), false);
}

void Parser::field_error(const NodeRef& base) {
  const Token& f = peek();
  Diagnostic d = make_diag("E001", "expected field name after `.`, found " + describe(f),
                           caret(f), "expected a field name or tuple index");
  if (base->kind == Kind::IntLit) d.help = "a float literal needs digits after the `.`: `2.0`";
  fail(std::move(d), f);
}

NodeRef Parser::cast() {
  uint32_t lo = peek().lo;
  NodeRef e = unary();
  return cast_tail(std::move(e), lo);
}

NodeRef Parser::cast_tail(NodeRef e, uint32_t lo) {
  while (eat(Tok::KwAs)) {
    NodeRef ty = type();
    e = mk({.kind = Kind::Cast, .span = span_from(lo), .kids = {e, ty}});
  }
  return e;
}

NodeRef Parser::unary() {
  uint32_t lo = peek().lo;
  Tok k = peek().kind;
  if (k == Tok::Minus && peek(1).kind == Tok::Int && is_i64_min_magnitude(text_of(peek(1)))) {
    // `-9223372036854775808`: the one literal whose magnitude does not fit in i64.
    advance();
    advance();
    NodeRef e = mk({.kind = Kind::IntLit, .span = span_from(lo),
                    .ival = std::numeric_limits<int64_t>::min()});
    return postfix(std::move(e), lo);
  }
  if (k == Tok::Plus) {
    // Unary `+` is the identity on numbers (SPEC §4). It is `x * 1` so that no later stage needs
    // a new operator; the flag lets type inference name it in errors (`+"a"`).
    DepthGuard guard(*this);
    const Token& plus = advance();
    NodeRef operand = unary();
    NodeRef one = mk({.kind = Kind::IntLit, .span = tok_span(plus), .ival = 1});
    return mk({.kind = Kind::Binary, .span = span_from(lo), .kids = {operand, one},
               .ival = static_cast<int64_t>(BinOp::Mul), .flags = ir::kUnaryPlus});
  }
  if (k == Tok::Minus || k == Tok::Bang || k == Tok::At) {
    DepthGuard guard(*this);
    advance();
    NodeRef operand = unary();
    if (k == Tok::At) return mk({.kind = Kind::Diff, .span = span_from(lo), .kids = {operand}});
    return mk({.kind = Kind::Unary, .span = span_from(lo), .kids = {operand},
               .ival = static_cast<int64_t>(k == Tok::Minus ? ir::UnOp::Neg : ir::UnOp::Not)});
  }
  NodeRef e = primary();
  return postfix(std::move(e), lo);
}

NodeRef Parser::postfix(NodeRef e, uint32_t lo) {
  while (true) {
    if (at(Tok::LParen)) {
      const Token opener = advance();
      std::vector<NodeRef> kids{e};
      while (!at(Tok::RParen)) {
        kids.push_back(expr());
        if (!eat(Tok::Comma)) break;
      }
      expect_close(Tok::RParen, opener, true);
      e = mk({.kind = Kind::Call, .span = span_from(lo), .kids = std::move(kids)});
    } else if (at(Tok::LBracket)) {
      const Token opener = advance();
      std::vector<NodeRef> kids{e};
      while (!at(Tok::RBracket)) {
        Tok after = peek(2).kind;
        if (at(Tok::DotDot) && peek(1).kind == Tok::Ident &&
            (after == Tok::Comma || after == Tok::RBracket)) {
          uint32_t rlo = advance().lo;
          std::string name(text_of(advance()));
          kids.push_back(mk({.kind = Kind::RestIdx, .span = span_from(rlo), .name = name}));
        } else {
          kids.push_back(expr());
        }
        if (!eat(Tok::Comma)) break;
      }
      if (kids.size() == 1 && at(Tok::RBracket)) fail_expected("index", peek());
      expect_close(Tok::RBracket, opener, true);
      e = mk({.kind = Kind::Index, .span = span_from(lo), .kids = std::move(kids)});
    } else if (at(Tok::Dot)) {
      advance();
      const Token& f = peek();
      if (f.kind != Tok::Ident && f.kind != Tok::Int) field_error(e);
      advance();
      int64_t position = 0;  // an overflowing one was reported by the lexer
      if (f.kind == Tok::Int) int_literal_value(text_of(f), position);
      e = mk({.kind = Kind::Member, .span = span_from(lo), .kids = {e}, .name = std::string(text_of(f)),
              .ival = position, .flags = f.kind == Tok::Int ? ir::kTupleField : 0u});
    } else {
      return e;
    }
  }
}

NodeRef Parser::primary() {
  const Token& t = peek();
  switch (t.kind) {
    case Tok::Int: {
      advance();
      int64_t v = 0;
      if (is_i64_min_magnitude(text_of(t)))
        report(make_diag("E001", "integer literal is too large", tok_span(t), "does not fit in i64"), false);
      int_literal_value(text_of(t), v);  // other overflow was reported by the lexer
      return mk({.kind = Kind::IntLit, .span = tok_span(t), .ival = v});
    }
    case Tok::Float: return float_lit();
    case Tok::KwTrue: case Tok::KwFalse:
      advance();
      return mk({.kind = Kind::BoolLit, .span = tok_span(t), .ival = t.kind == Tok::KwTrue});
    case Tok::Str: return string_lit();
    case Tok::Ident: return ident_primary();
    case Tok::KwWhere:
      // An expression cannot start with a where clause: `where(c, a, b)` calls a function.
      if (peek(1).kind == Tok::LParen) {
        advance();
        return mk({.kind = Kind::Name, .span = tok_span(t), .name = "where"});
      }
      fail_expected("expression", t);
    case Tok::LParen: return paren();
    case Tok::LBracket: return array_or_comp();
    case Tok::LBrace: case Tok::KwIf: case Tok::KwMatch: return block_like();
    case Tok::Pipe: case Tok::OrOr: return lambda();
    default: fail_expected("expression", t);
  }
}

NodeRef Parser::float_lit() {
  const Token& t = advance();
  std::string src(text_of(t)), clean;
  for (char c : src)
    if (c != '_') clean += c;
  return mk({.kind = Kind::FloatLit, .span = tok_span(t), .name = src,
             .fval = std::strtod(clean.c_str(), nullptr)});
}

NodeRef Parser::ident_primary() {
  const Token& t = peek();
  std::string name(text_of(t));
  if (is_reduction_name(name) && peek(1).kind == Tok::LBracket) {
    size_t close = matching(pos_ + 1);
    if (close != std::string::npos && close + 1 < toks_.size() &&
        toks_[close + 1].kind == Tok::LParen)
      return reduce();
  }
  advance();
  if (!at(Tok::ColonColon)) return mk({.kind = Kind::Name, .span = tok_span(t), .name = name});
  ir::ModPath path = ir::ModPath::name(std::move(name));
  while (eat(Tok::ColonColon)) {
    const Token& seg = peek();
    // SPEC §1: after `::` any word is a name, keywords included (`std::ml::where(c, a, b)`).
    if (seg.kind != Tok::Ident && !is_keyword_tok(seg.kind))
      fail_expected("identifier after `::`", seg);
    advance();
    path = path / std::string(text_of(seg));
  }
  return mk({.kind = Kind::Path, .span = span_from(t.lo), .name = path.text(), .path = std::move(path)});
}

// `()` unit, `(e)` grouping, `(a, b, ...)` tuples.
NodeRef Parser::paren() {
  uint32_t lo = peek().lo;
  const Token opener = advance();
  if (eat(Tok::RParen)) return mk({.kind = Kind::TupleLit, .span = span_from(lo)});
  std::vector<NodeRef> kids{expr()};
  bool trailing = false;
  while (eat(Tok::Comma)) {
    trailing = at(Tok::RParen);
    if (trailing) break;
    kids.push_back(expr());
  }
  expect_close(Tok::RParen, opener, true);
  if (kids.size() == 1) {
    if (trailing) one_tuple_error(lo);
    return kids[0];
  }
  return mk({.kind = Kind::TupleLit, .span = span_from(lo), .kids = std::move(kids)});
}

// `[a, b, c]` or, when a top-level `|` follows the first element, a comprehension.
NodeRef Parser::array_or_comp() {
  uint32_t lo = peek().lo;
  const Token opener = advance();
  if (eat(Tok::RBracket)) return mk({.kind = Kind::ArrayLit, .span = span_from(lo)});
  std::vector<NodeRef> kids{expr()};
  if (eat(Tok::Pipe)) {
    // SPEC §4: `x in r` whose `x` an earlier clause of this comprehension binds is a membership
    // guard (`[x | x in 1..6, x in 2..4]` is [2, 3]), not a second generator shadowing the first.
    std::unordered_set<std::string> bound;
    do {
      if (at(Tok::RBracket) && kids.size() > 1) break;
      NodeRef c = comp_clause();
      if (c->kind == Kind::CompGen && bound.count(c->name)) {
        Span name_span = c->span;
        name_span.hi = name_span.lo + static_cast<uint32_t>(c->name.size());
        NodeRef x = mk({.kind = Kind::Name, .span = name_span, .name = c->name});
        NodeRef test = mk({.kind = Kind::Binary, .span = c->span, .kids = {x, ir::compgen_iter(c)},
                           .ival = static_cast<int64_t>(ir::BinOp::In)});
        c = mk({.kind = Kind::CompGuard, .span = c->span, .kids = {test}});
      } else if (c->kind != Kind::CompGuard) {
        bound.insert(c->name);
      }
      kids.push_back(c);
    } while (eat(Tok::Comma));
    expect_close(Tok::RBracket, opener, true);
    return mk({.kind = Kind::Comp, .span = span_from(lo), .kids = std::move(kids)});
  }
  while (eat(Tok::Comma)) {
    if (at(Tok::RBracket)) break;
    kids.push_back(expr());
  }
  expect_close(Tok::RBracket, opener, true);
  return mk({.kind = Kind::ArrayLit, .span = span_from(lo), .kids = std::move(kids)});
}

// `x in xs` generator, `y = e` binding, anything else a guard.
NodeRef Parser::comp_clause() {
  uint32_t lo = peek().lo;
  Tok next = peek(1).kind;
  if (at(Tok::Ident) && (next == Tok::KwIn || next == Tok::Assign)) {
    std::string name(text_of(advance()));
    advance();
    NodeRef v = expr();
    return mk({.kind = next == Tok::KwIn ? Kind::CompGen : Kind::CompLet, .span = span_from(lo),
               .kids = {v}, .name = std::move(name)});
  }
  NodeRef g = expr();
  return mk({.kind = Kind::CompGuard, .span = span_from(lo), .kids = {g}});
}

// `op[slots](body)`; the caller checked the shape with the bracket look-ahead.
NodeRef Parser::reduce() {
  uint32_t lo = peek().lo;
  std::string op(text_of(advance()));
  const Token opener = advance();
  std::vector<NodeRef> kids{nullptr};
  do {
    if (at(Tok::RBracket) && kids.size() > 1) break;
    kids.push_back(slot(false));
  } while (eat(Tok::Comma));
  expect_close(Tok::RBracket, opener, true);
  const Token popen = expect(Tok::LParen);
  kids[0] = expr_where();
  expect_close(Tok::RParen, popen);
  return mk({.kind = Kind::Reduce, .span = span_from(lo), .kids = std::move(kids),
             .name = std::move(op)});
}

}  // namespace ein::syntax_detail
