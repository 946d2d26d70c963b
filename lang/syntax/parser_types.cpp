// Type annotations (SPEC §3) and match patterns (SPEC §4).
#include <optional>

#include "lang/syntax/parser.h"

namespace ein::syntax_detail {

using ir::Kind;
using ir::NodeRef;

// i32 | name | a::Name | jagged[T] | [T] | [T; 2, ?] | [T; *] | () | (T, U) | (T, U) -> R
NodeRef Parser::type() {
  DepthGuard guard(*this);
  const Token& t = peek();
  uint32_t lo = t.lo;
  if (t.kind == Tok::Ident) {
    std::string name(text_of(t));
    advance();
    if (name == "jagged" && at(Tok::LBracket)) {
      const Token opener = advance();
      NodeRef elem = type();
      expect_close(Tok::RBracket, opener);
      return mk({.kind = Kind::TyJagged, .span = span_from(lo), .kids = {elem}});
    }
    while (at(Tok::ColonColon) && peek(1).kind == Tok::Ident) {
      advance();
      name += "::" + std::string(text_of(advance()));
    }
    return mk({.kind = Kind::TyPrim, .span = span_from(lo), .name = std::move(name)});
  }
  if (t.kind == Tok::LBracket) {
    const Token opener = advance();
    std::vector<NodeRef> kids{type()};
    uint32_t flags = 0;
    if (eat(Tok::Semi)) {
      if (eat(Tok::Star)) {
        flags = ir::kAnyRank;
      } else {
        do {
          if (at(Tok::RBracket) && kids.size() > 1) break;
          const Token& d = peek();
          int64_t extent = -1;
          if (d.kind == Tok::Int) int_literal_value(text_of(d), extent);
          else if (d.kind != Tok::Question) fail_expected("extent, `?` or `*`", d);
          advance();
          kids.push_back(mk({.kind = Kind::TyDim, .span = tok_span(d), .ival = extent}));
        } while (eat(Tok::Comma));
      }
    }
    expect_close(Tok::RBracket, opener, kids.size() > 1);
    return mk({.kind = Kind::TyArray, .span = span_from(lo), .kids = std::move(kids),
               .flags = flags});
  }
  if (t.kind == Tok::LParen) {
    const Token opener = advance();
    std::vector<NodeRef> elems;
    bool trailing = false;
    while (!at(Tok::RParen)) {
      elems.push_back(type());
      trailing = false;
      if (!eat(Tok::Comma)) break;
      trailing = true;
    }
    expect_close(Tok::RParen, opener, !elems.empty());
    if (eat(Tok::Arrow)) {
      std::vector<NodeRef> kids{type()};
      kids.insert(kids.end(), elems.begin(), elems.end());
      return mk({.kind = Kind::TyFn, .span = span_from(lo), .kids = std::move(kids)});
    }
    if (elems.size() == 1) {
      if (trailing) one_tuple_error(lo);
      return elems[0];
    }
    return mk({.kind = Kind::TyTuple, .span = span_from(lo), .kids = std::move(elems)});
  }
  fail_expected("type", t);
}

NodeRef Parser::pattern() {
  DepthGuard guard(*this);
  uint32_t lo = peek().lo;
  NodeRef first = pattern_atom();
  if (!at(Tok::Pipe)) return first;
  std::vector<NodeRef> alts{first};
  while (eat(Tok::Pipe)) alts.push_back(pattern_atom());
  return mk({.kind = Kind::POr, .span = span_from(lo), .kids = std::move(alts)});
}

// `_`, name, `name @ p`, literal, `lo..hi` / `lo..=hi`, `(p, q)`, `[p, ..rest, q]`.
NodeRef Parser::pattern_atom() {
  const Token& t = peek();
  uint32_t lo = t.lo;
  switch (t.kind) {
    case Tok::Ident: {
      advance();
      std::string name(text_of(t));
      if (name == "_") return mk({.kind = Kind::PWild, .span = tok_span(t)});
      if (eat(Tok::At)) {
        DepthGuard guard(*this);
        NodeRef sub = pattern_atom();
        return mk({.kind = Kind::PAt, .span = span_from(lo), .kids = {sub}, .name = std::move(name)});
      }
      return mk({.kind = Kind::PBind, .span = tok_span(t), .name = std::move(name)});
    }
    case Tok::LBracket: {
      DepthGuard guard(*this);
      const Token opener = advance();
      std::vector<NodeRef> kids;
      std::optional<Span> rest;  // the first `..`
      while (!at(Tok::RBracket)) {
        if (at(Tok::DotDot)) {
          uint32_t rlo = advance().lo;
          std::string rname;
          if (at(Tok::Ident)) rname = std::string(text_of(advance()));
          if (rname == "_") rname.clear();  // `.._` is `..`
          NodeRef r = mk({.kind = Kind::PRest, .span = span_from(rlo), .name = std::move(rname)});
          if (rest) {
            Diagnostic d = make_diag("E001", "an array pattern has at most one `..`", r->span,
                                     "second `..`");
            d.secondary.push_back(Label{*rest, "first one here"});
            report(std::move(d), false);
          } else {
            rest = r->span;
          }
          kids.push_back(std::move(r));
        } else {
          kids.push_back(pattern());
        }
        if (!eat(Tok::Comma)) break;
      }
      expect_close(Tok::RBracket, opener, !kids.empty());
      return mk({.kind = Kind::PArray, .span = span_from(lo), .kids = std::move(kids)});
    }
    case Tok::LParen: {
      const Token opener = advance();
      std::vector<NodeRef> kids;
      bool trailing = false;
      while (!at(Tok::RParen)) {
        kids.push_back(pattern());
        trailing = false;
        if (!eat(Tok::Comma)) break;
        trailing = true;
      }
      expect_close(Tok::RParen, opener, !kids.empty());
      if (kids.size() == 1) {
        if (trailing) one_tuple_error(lo);
        return kids[0];
      }
      return mk({.kind = Kind::PTuple, .span = span_from(lo), .kids = std::move(kids)});
    }
    case Tok::Int: case Tok::Float: case Tok::Str: case Tok::KwTrue: case Tok::KwFalse:
    case Tok::Minus: {
      NodeRef lit = literal_pattern_value();
      if (at(Tok::DotDot) || at(Tok::DotDotEq)) {
        bool incl = advance().kind == Tok::DotDotEq;
        NodeRef hi = literal_pattern_value();
        return mk({.kind = Kind::PRange, .span = span_from(lo), .kids = {lit, hi},
                   .flags = incl ? ir::kInclusive : 0u});
      }
      return mk({.kind = Kind::PLit, .span = span_from(lo), .kids = {lit}});
    }
    default:
      fail_expected("pattern", t);
  }
}

// A literal in a pattern: number, `-number`, bool or plain string.
NodeRef Parser::literal_pattern_value() {
  const Token& t = peek();
  uint32_t lo = t.lo;
  if (t.kind == Tok::Minus) {
    advance();
    if (!at(Tok::Int) && !at(Tok::Float)) fail_expected("number after `-` in pattern", peek());
    NodeRef v = primary();
    return mk({.kind = Kind::Unary, .span = span_from(lo), .kids = {v},
               .ival = static_cast<int64_t>(ir::UnOp::Neg)});
  }
  if (t.kind != Tok::Int && t.kind != Tok::Float && t.kind != Tok::Str &&
      t.kind != Tok::KwTrue && t.kind != Tok::KwFalse)
    fail_expected("literal", t);
  NodeRef v = primary();
  if (v->kind == Kind::Interp) {
    report(make_diag("E001", "interpolated strings cannot be patterns", v->span,
                     "string with `{...}` holes"),
           false);
  }
  return v;
}

}  // namespace ein::syntax_detail
