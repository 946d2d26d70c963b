// Statements and items: let / Einstein declarations, const, fn, @fn, use, mod, struct/enum,
// expression statements and the trailing-expression rule of blocks and programs.
#include "lang/syntax/parser.h"

namespace ein::syntax_detail {

using ir::Kind;
using ir::NodeRef;

namespace {

// Tokens that can begin a statement; used to decide that a missing `;` at a line break is just
// missing (report and go on) rather than a sign of garbage that needs resynchronisation.
bool starts_statement(Tok k) {
  switch (k) {
    case Tok::Ident: case Tok::Int: case Tok::Float: case Tok::Str: case Tok::KwLet:
    case Tok::KwConst: case Tok::KwFn: case Tok::KwPub: case Tok::KwUse: case Tok::KwMod:
    case Tok::KwStruct: case Tok::KwEnum: case Tok::KwIf: case Tok::KwMatch: case Tok::KwTrue:
    case Tok::KwFalse: case Tok::LParen: case Tok::LBracket: case Tok::LBrace: case Tok::At:
    case Tok::Minus: case Tok::Bang: case Tok::Pipe: case Tok::OrOr:
      return true;
    default:
      return false;
  }
}

// After a block-like expression at the start of a statement, these tokens cannot begin a new
// statement, so they can only continue the expression (`match x { .. } + 1`, `{ .. }.0`).
// Tokens that could also start a statement (`-`, `(`, `[`, `|`, `||`, `!`, `@`) end it, as in
// Rust.
bool continues_block_like(Tok k) {
  switch (k) {
    case Tok::Dot: case Tok::PipeGt: case Tok::Plus: case Tok::Star: case Tok::Slash:
    case Tok::Percent: case Tok::StarStar: case Tok::EqEq: case Tok::NotEq: case Tok::Lt:
    case Tok::Le: case Tok::Gt: case Tok::Ge: case Tok::AndAnd: case Tok::KwAs: case Tok::KwIn:
    case Tok::DotDot: case Tok::DotDotEq:
      return true;
    default:
      return false;
  }
}

}  // namespace

void Parser::stmt_list(Tok end, bool allow_tail, std::vector<NodeRef>& out, bool& has_tail) {
  Tok saved_end = cur_end_;
  cur_end_ = end;
  while (!at(end) && !at(Tok::Eof)) {
    if (eat(Tok::Semi)) continue;  // empty statement
    if (end == Tok::Eof && (at(Tok::RBrace) || at(Tok::RParen) || at(Tok::RBracket))) {
      const Token& t = advance();
      report(make_diag("E001", "unexpected closing delimiter " + tok_spelling(t.kind),
                       tok_span(t), "unexpected closing delimiter"),
             false);
      while (at(Tok::RBrace) || at(Tok::RParen) || at(Tok::RBracket)) advance();  // one per run
      continue;
    }
    size_t start = pos_;
    bool tail = false;
    NodeRef s;
    try {
      s = statement(end, allow_tail, tail);
    } catch (const ParseAbort&) {
      synchronize(start);
      tail = false;
      s = mk({.kind = Kind::Error, .span = span_from(toks_[start].lo)});
    }
    if (pos_ == start && !at(end) && !at(Tok::Eof)) advance();  // always make progress
    out.push_back(std::move(s));
    if (tail) {
      has_tail = true;
      break;
    }
  }
  cur_end_ = saved_end;
}

NodeRef Parser::statement(Tok end, bool allow_tail, bool& is_tail) {
  uint32_t lo = peek().lo;
  switch (peek().kind) {
    case Tok::KwLet: return let_stmt();
    case Tok::KwConst: advance(); return const_stmt(lo, false);
    case Tok::KwFn: advance(); return fn_item(lo, false, false);
    case Tok::KwUse: advance(); return use_stmt(lo, false);
    case Tok::KwMod: advance(); return mod_item(lo, false);
    case Tok::KwStruct: advance(); return skipped_decl(lo, Kind::StructDecl, false);
    case Tok::KwEnum: advance(); return skipped_decl(lo, Kind::EnumDecl, false);
    case Tok::KwPub: {
      advance();
      Tok k = peek().kind;
      if (k == Tok::KwLet) {
        // `pub let` exports a module-level binding (SPEC §6).
        NodeRef l = let_stmt();
        return ir::edited(l, [&](ir::Node& n) {
          n.flags |= ir::kPub;
          n.span.lo = lo;
        });
      }
      if (k == Tok::KwFn || k == Tok::KwConst || k == Tok::KwUse || k == Tok::KwMod ||
          k == Tok::KwStruct || k == Tok::KwEnum)
        advance();
      switch (k) {
        case Tok::KwFn: return fn_item(lo, true, false);
        case Tok::KwConst: return const_stmt(lo, true);
        case Tok::KwUse: return use_stmt(lo, true);
        case Tok::KwMod: return mod_item(lo, true);
        case Tok::KwStruct: return skipped_decl(lo, Kind::StructDecl, true);
        case Tok::KwEnum: return skipped_decl(lo, Kind::EnumDecl, true);
        default: fail_expected("`fn`, `let`, `const`, `use` or `mod` after `pub`", peek());
      }
    }
    case Tok::At:
      if (peek(1).kind == Tok::KwFn) {
        advance();
        advance();
        return fn_item(lo, false, true);
      }
      return expr_stmt(lo, end, allow_tail, is_tail);
    default:
      return expr_stmt(lo, end, allow_tail, is_tail);
  }
}

// Called where a statement must end with `;`.
void Parser::end_stmt() {
  if (eat(Tok::Semi)) return;
  const Token& t = peek();
  // The last statement of a program may omit its `;` (SPEC §1, §11: `let x = 1` as a whole REPL
  // line or the last line of a cell is complete, as if the `;` were there).
  if (t.kind == Tok::Eof && cur_end_ == Tok::Eof && !hole_) return;
  Diagnostic d = make_diag("E001", "expected `;`, found " + describe(t), tok_span(t),
                           "expected `;` before this");
  if (t.kind == Tok::Eof) {
    d.primary = caret(t);
    d.primary_label = "expected `;`";
    report(std::move(d), true);  // nothing left to resynchronise
    return;
  }
  // A forgotten `;` before a new line or before the block's `}` is only that: keep the
  // statement and continue with the next one instead of skipping it.
  bool block_end = t.kind == Tok::RBrace && cur_end_ == Tok::RBrace;
  if (!block_end && (t.kind == Tok::RBrace || t.kind == Tok::RParen || t.kind == Tok::RBracket)) {
    // A stray closer: that is the one error here, not also a missing `;`.
    report(make_diag("E001", "unexpected closing delimiter " + tok_spelling(t.kind), tok_span(t),
                     "unexpected closing delimiter"),
           false);
    advance();
    eat(Tok::Semi);
    return;
  }
  if (block_end || (t.newline_before && starts_statement(t.kind))) {
    report(std::move(d), false);
    return;
  }
  fail(std::move(d), t);
}

NodeRef Parser::expr_stmt(uint32_t lo, Tok end, bool allow_tail, bool& is_tail) {
  NodeRef e;
  if (at(Tok::KwIf) || at(Tok::KwMatch) || at(Tok::LBrace)) {
    // Like Rust, a block-like expression at the start of a statement ends the statement, so
    // `if c { .. }` needs no `;` — unless what follows can only continue the expression.
    e = block_like();
    if (continues_block_like(peek().kind)) {
      e = binary_from(postfix(e, lo), lo, 1);
    } else if (eat(Tok::Semi) || !((at(end) || at(Tok::Eof)) && allow_tail)) {
      return mk({.kind = Kind::ExprStmt, .span = span_from(lo), .kids = {e}});
    } else {
      is_tail = true;
      return e;
    }
  } else {
    e = expr();
  }
  if (eat(Tok::Semi)) return mk({.kind = Kind::ExprStmt, .span = span_from(lo), .kids = {e}});
  if (allow_tail && (at(end) || at(Tok::Eof))) {
    is_tail = true;
    return e;
  }
  end_stmt();
  return mk({.kind = Kind::ExprStmt, .span = span_from(lo), .kids = {e}});
}

NodeRef Parser::let_stmt() {
  uint32_t lo = advance().lo;
  if (at(Tok::Ident) && peek(1).kind == Tok::LBracket) {
    std::string name(text_of(advance()));
    const Token opener = advance();
    std::vector<NodeRef> kids{nullptr};
    do {
      if (at(Tok::RBracket) && kids.size() > 1) break;  // trailing comma
      kids.push_back(slot(true));
    } while (eat(Tok::Comma));
    expect_close(Tok::RBracket, opener, true);
    expect(Tok::Assign);
    kids[0] = expr_where();
    end_stmt();
    return mk({.kind = Kind::EinDecl, .span = span_from(lo), .kids = std::move(kids),
               .name = std::move(name)});
  }
  NodeRef pat = let_pattern(false);
  NodeRef ty;
  if (eat(Tok::Colon)) ty = type();
  expect(Tok::Assign);
  NodeRef value = expr_where();
  end_stmt();
  return mk({.kind = Kind::Let, .span = span_from(lo), .kids = {pat, ty, value}});
}

// `x`, `(a, b)`, `(a, (b, _))`. A top-level `_` stays a PBind (Let allows PBind | PTuple only).
NodeRef Parser::let_pattern(bool nested) {
  DepthGuard guard(*this);
  const Token& t = peek();
  if (t.kind == Tok::Ident) {
    advance();
    std::string name(text_of(t));
    Kind k = nested && name == "_" ? Kind::PWild : Kind::PBind;
    return mk({.kind = k, .span = tok_span(t), .name = k == Kind::PBind ? name : ""});
  }
  if (t.kind != Tok::LParen) fail_expected("identifier or `(`", t);
  uint32_t lo = t.lo;
  const Token opener = advance();
  std::vector<NodeRef> kids;
  bool trailing = false;
  while (!at(Tok::RParen)) {
    kids.push_back(let_pattern(true));
    trailing = false;
    if (!eat(Tok::Comma)) break;
    trailing = true;
  }
  expect_close(Tok::RParen, opener, true);
  if (kids.size() == 1) {
    if (trailing) one_tuple_error(lo);
    return kids[0];
  }
  return mk({.kind = Kind::PTuple, .span = span_from(lo), .kids = std::move(kids)});
}

// An index slot of a declaration (`i`, `i in 0..N`, `0`, `..b`) or of a reduction (no literal).
NodeRef Parser::slot(bool in_decl) {
  const Token& t = peek();
  uint32_t lo = t.lo;
  if (t.kind == Tok::DotDot && peek(1).kind == Tok::Ident) {
    advance();
    std::string name(text_of(advance()));
    return mk({.kind = Kind::IdxRest, .span = span_from(lo), .name = std::move(name)});
  }
  if (t.kind == Tok::Ident) {
    std::string name(text_of(advance()));
    if (eat(Tok::KwIn)) {
      NodeRef range = expr();
      return mk({.kind = Kind::IdxIn, .span = span_from(lo), .kids = {range},
                 .name = std::move(name)});
    }
    return mk({.kind = Kind::IdxVar, .span = span_from(lo), .name = std::move(name)});
  }
  if (t.kind == Tok::Int && in_decl) {
    advance();
    int64_t v = 0;
    int_literal_value(text_of(t), v);
    return mk({.kind = Kind::IdxLit, .span = tok_span(t), .ival = v});
  }
  fail_expected(in_decl ? "index name, integer or `..rest`" : "index name or `..rest`", t);
}

NodeRef Parser::const_stmt(uint32_t lo, bool pub) {
  std::string name(text_of(expect(Tok::Ident)));
  NodeRef ty;
  if (eat(Tok::Colon)) ty = type();
  expect(Tok::Assign);
  NodeRef value = expr_where();
  end_stmt();
  return mk({.kind = Kind::Const, .span = span_from(lo), .kids = {ty, value},
             .name = std::move(name), .flags = pub ? ir::kPub : 0u});
}

NodeRef Parser::param() {
  const Token& t = expect(Tok::Ident);
  std::string name(text_of(t));
  NodeRef ty;
  if (eat(Tok::Colon)) ty = type();
  return mk({.kind = Kind::Param, .span = span_from(t.lo), .kids = {ty}, .name = std::move(name)});
}

NodeRef Parser::fn_item(uint32_t lo, bool pub, bool diff) {
  // `where` is a keyword only where a where clause can start, so `fn where(c, a, b)` (the
  // np.where of std::ml) is a function name.
  std::string name(at(Tok::KwWhere) ? std::string(text_of(advance()))
                                    : std::string(text_of(expect(Tok::Ident, "(the function name)"))));
  const Token opener = expect(Tok::LParen);
  std::vector<NodeRef> kids{nullptr, nullptr};
  while (!at(Tok::RParen)) {
    kids.push_back(param());
    if (!eat(Tok::Comma)) break;
  }
  expect_close(Tok::RParen, opener, true);
  if (eat(Tok::Arrow)) kids[0] = type();
  if (!at(Tok::LBrace)) fail_expected(kids[0] ? "`{`" : "`->` or `{`", peek());
  kids[1] = block();
  return mk({.kind = diff ? Kind::DiffFn : Kind::Fn, .span = span_from(lo),
             .kids = std::move(kids), .name = std::move(name), .flags = pub ? ir::kPub : 0u});
}

// SPEC §1: after `::` any word is a name, keywords included (`use std::ml::where;`).
static bool is_word(Tok k) { return k == Tok::Ident || is_keyword_tok(k); }

// The `{...}` of `use path::{...}`. Nested groups flatten into items whose names are paths
// below the `use` path (`use std::ml::{activations::{relu, gelu}, where}` has the items
// `activations::relu`, `activations::gelu`, `where`), as in Rust; `self` names the path itself.
void Parser::use_group(const ir::ModPath& prefix, std::vector<NodeRef>& items) {
  DepthGuard guard(*this);
  const Token opener = expect(Tok::LBrace);
  while (!at(Tok::RBrace)) {
    const uint32_t lo = peek().lo;
    ir::ModPath segs = ir::ModPath::name(std::string(text_of(is_word(peek().kind) ? advance() : expect(Tok::Ident))));
    bool group = false;
    while (eat(Tok::ColonColon)) {
      if (at(Tok::LBrace)) {
        use_group(prefix / segs, items);
        group = true;
        break;
      }
      segs = segs / std::string(text_of(is_word(peek().kind) ? advance() : expect(Tok::Ident, "or `{`")));
    }
    if (!group) {
      std::string item_alias;
      if (eat(Tok::KwAs)) item_alias = std::string(text_of(expect(Tok::Ident)));
      const bool self = segs.back() == "self";
      if (self) segs = segs.parent();
      const bool below = !prefix.empty() || segs.size() > 1;
      ir::ModPath item = prefix / segs;  // below the `use` path; empty for a plain `self`
      items.push_back(mk({.kind = Kind::UseItem, .span = span_from(lo), .name = item.text(),
                          .aux = std::move(item_alias), .path = std::move(item),
                          .ival = self ? UseItemSelf : below ? UseItemPath : UseItemName}));
    }
    if (!eat(Tok::Comma)) break;
  }
  expect_close(Tok::RBrace, opener, true);
}

NodeRef Parser::use_stmt(uint32_t lo, bool pub) {
  ir::ModPath path = ir::ModPath::name(std::string(text_of(expect(Tok::Ident, "(a module path)"))));
  int64_t kind = ir::UsePath;
  std::vector<NodeRef> items;
  std::string alias;
  while (eat(Tok::ColonColon)) {
    if (eat(Tok::Star)) {
      kind = ir::UseGlob;
      break;
    }
    if (at(Tok::LBrace)) {
      kind = ir::UseList;
      use_group(ir::ModPath{}, items);
      break;
    }
    path = path / std::string(text_of(is_word(peek().kind) ? advance() : expect(Tok::Ident, "or `{` or `*`")));
  }
  if (kind == ir::UsePath && eat(Tok::KwAs)) alias = std::string(text_of(expect(Tok::Ident)));
  end_stmt();
  return mk({.kind = Kind::Use, .span = span_from(lo), .kids = std::move(items), .name = path.text(),
             .aux = std::move(alias), .path = std::move(path), .ival = kind,
             .flags = pub ? ir::kPub : 0u});
}

NodeRef Parser::mod_item(uint32_t lo, bool pub) {
  std::string name(text_of(expect(Tok::Ident, "(the module name)")));
  uint32_t flags = pub ? ir::kPub : 0u;
  if (eat(Tok::Semi))
    return mk({.kind = Kind::Mod, .span = span_from(lo), .name = std::move(name), .flags = flags});
  if (!at(Tok::LBrace)) fail_expected("`;` or `{`", peek());
  DepthGuard guard(*this);
  const Token opener = advance();
  std::vector<NodeRef> kids;
  bool tail = false;
  stmt_list(Tok::RBrace, false, kids, tail);
  expect_close(Tok::RBrace, opener);
  return mk({.kind = Kind::Mod, .span = span_from(lo), .kids = std::move(kids),
             .name = std::move(name), .ival = 1, .flags = flags});
}

// struct/enum are parsed only so that a later pass can say "not supported" (E011) with a span;
// their bodies are skipped as balanced token trees.
NodeRef Parser::skipped_decl(uint32_t lo, Kind kind, bool pub) {
  std::string name(text_of(expect(Tok::Ident)));
  if (at(Tok::LBrace) || at(Tok::LParen)) {
    bool paren = at(Tok::LParen);
    const Token opener = peek();
    size_t close = matching(pos_);
    if (close == std::string::npos) {
      while (!at(Tok::Eof)) advance();
      fail_expected(paren ? "`)`" : "`}`", peek(), &opener);
    }
    pos_ = close;
    advance();
    if (paren) end_stmt();
  } else {
    end_stmt();
  }
  return mk({.kind = kind, .span = span_from(lo), .name = std::move(name),
             .flags = pub ? ir::kPub : 0u});
}

}  // namespace ein::syntax_detail
