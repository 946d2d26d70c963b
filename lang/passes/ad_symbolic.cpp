// Symbolic differentials: `print(@y)` shows `@y = 2 * x * @x` — the tangent of y's definition in
// terms of the differentials of its direct inputs (SPEC §7), simplified by collecting like terms.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "lang/passes/ad_common.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::BinOp;
using ir::Kind;

namespace {

std::string num_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
  }
  char b[40];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

int prec(const NodeRef& n) {
  if (n->kind != Kind::Binary) return n->kind == Kind::Unary ? 9 : 10;
  switch (static_cast<BinOp>(n->ival)) {
    case BinOp::Add:
    case BinOp::Sub: return 6;
    case BinOp::Mul:
    case BinOp::Div:
    case BinOp::Mod: return 7;
    case BinOp::Pow: return 8;
    default: return 4;
  }
}

std::string text(const NodeRef& n);

// The texts of a list of kids, comma-separated.
template <class F>
std::string listed(ir::Kids parts, F&& each) {
  std::string s;
  bool first = true;
  for (const NodeRef& p : parts) {
    s += (first ? "" : ", ") + each(p);
    first = false;
  }

  return s;
}


std::string wrapped(
const NodeRef& n, int outer) {
  std::string t = text(n);
  return prec(n) < outer ? "(" + t + ")" : t;
}

std::string text(const NodeRef& n) {
  if (!n) return "0";
  switch (n->kind) {
    case Kind::IntLit: return std::to_string(n->ival);
    case Kind::FloatLit: return n->name.empty() ? num_text(n->fval) : n->name;
    case Kind::BoolLit: return n->ival ? "true" : "false";
    case Kind::Name:
    case Kind::Path: {
      if (auto b = builtin_of(n->def)) return builtin_shown_name(*b);
      return n->name;
    }
    case Kind::Unary:
      return std::string(ir::unop_spelling(static_cast<ir::UnOp>(n->ival))) + wrapped(ir::unary_operand(n), 9);
    case Kind::Binary: {
      int p = prec(n);
      bool right = static_cast<BinOp>(n->ival) == BinOp::Pow;
      return wrapped(ir::bin_lhs(n), right ? p + 1 : p) + " " + ir::binop_spelling(static_cast<BinOp>(n->ival)) +
             " " + wrapped(ir::bin_rhs(n), right ? p : p + 1);
    }
    case Kind::Call: return text(ir::call_callee(n)) + "(" + listed(ir::call_args(n), text) + ")";
    case Kind::Index: return text(ir::index_base(n)) + "[" + listed(ir::index_args(n), text) + "]";
    case Kind::Cast: return wrapped(ir::cast_expr(n), 9) + " as " + ir::cast_type(n)->name;
    case Kind::Reduce: {
      auto slot_name = [](const NodeRef& s) { return s->name; };
      return n->name + "[" + listed(ir::reduce_slots(n), slot_name) + "](" + text(ir::reduce_body(n)) + ")";
    }
    case Kind::If:
      return "if " + text(ir::if_cond(n)) + " { " + text(ir::if_then(n)) + " } else { " + text(ir::if_else(n)) + " }";
    case Kind::Member: return wrapped(ir::member_base(n), 10) + "." + n->name;
    default: return "(…)";
  }
}

// A sum of monomials: coefficient × sorted factor texts.
using Poly = std::map<std::vector<std::string>, double>;

Poly poly(const NodeRef& n) {
  Poly p;
  if (!n) return p;
  if (n->kind == Kind::FloatLit || n->kind == Kind::IntLit) {
    double v = n->kind == Kind::FloatLit ? n->fval : static_cast<double>(n->ival);
    if (v != 0) p[{}] = v;
    return p;
  }
  if (n->kind == Kind::Cast) return poly(ir::cast_expr(n));
  if (n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg) {
    for (auto& [k, c] : poly(ir::unary_operand(n))) p[k] -= c;
    return p;
  }
  if (n->kind == Kind::Binary) {
    auto op = static_cast<BinOp>(n->ival);
    if (op == BinOp::Add || op == BinOp::Sub) {
      p = poly(ir::bin_lhs(n));
      for (auto& [k, c] : poly(ir::bin_rhs(n))) p[k] += op == BinOp::Add ? c : -c;
      return p;
    }
    if (op == BinOp::Mul) {
      Poly a = poly(ir::bin_lhs(n)), b = poly(ir::bin_rhs(n));
      for (auto& [ka, ca] : a)
        for (auto& [kb, cb] : b) {
          std::vector<std::string> k = ka;
          k.insert(k.end(), kb.begin(), kb.end());
          std::sort(k.begin(), k.end());
          p[k] += ca * cb;
        }
      return p;
    }
  }
  p[{wrapped(n, 8)}] = 1;
  return p;
}

std::string poly_text(const Poly& p) {
  std::string s;
  for (auto& [k, c] : p) {
    if (c == 0) continue;
    double mag = std::fabs(c);
    std::string term;
    // Powers: repeated factors print as x ** n.
    std::vector<std::pair<std::string, int>> f;
    for (auto& x : k) {
      if (!f.empty() && f.back().first == x) ++f.back().second;
      else f.emplace_back(x, 1);
    }
    // Differentials go last: "2 * x * @x".
    std::stable_sort(f.begin(), f.end(), [](auto& a, auto& b) {
      return (a.first[0] == '@') < (b.first[0] == '@');
    });
    if (mag != 1 || f.empty()) term = num_text(mag);
    for (auto& [x, e] : f) term += (term.empty() ? "" : " * ") + (e == 1 ? x : x + " ** " + std::to_string(e));
    if (s.empty()) s = (c < 0 ? "-" : "") + term;
    else s += (c < 0 ? " - " : " + ") + term;
  }
  return s.empty() ? "0" : s;
}

}  // namespace

// The differential of the binding `y` defined by `stmt` (a Let or an EinGroup).
std::string symbolic_differential(CompileCtx& cx, Facts& facts, const std::string& y, const NodeRef& stmt) {
  Forward fwd(cx, facts);
  // Every float binding the definition reads directly gets the symbol @name as its tangent.
  auto seed = [&](const NodeRef& value) {
    ir::for_each_node(value, [&](const NodeRef& n) {
      if ((n->kind != Kind::Name && n->kind != Kind::Path) || !n->def.valid()) return;
      DefKind k = cx.resolver.info(n->def).kind;
      if ((k == DefKind::Global || k == DefKind::Local || k == DefKind::Const) &&
          facts.float_dtype_of_def(n->def))
        fwd.tangents[n->def] = ir::make_name("@" + n->name, ir::DefId{});
    });
  };
  if (stmt->kind == Kind::Let) {
    seed(ir::let_value(*stmt));
    if (fwd.tangents.empty()) return "@" + y;  // a leaf: its differential is itself
    NodeRef t = fwd.tangent(ir::let_value(*stmt));
    return "@" + y + " = " + poly_text(poly(t));
  }
  std::string out;
  for (auto& c : stmt->kids) {
    seed(ir::ein_value(*c));
    NodeRef t = fwd.tangent(ir::ein_value(*c));
    std::string lhs = "@" + y + "[";
    auto slot_text = [](const NodeRef& s) { return s->kind == Kind::IdxLit ? std::to_string(s->ival) : s->name; };
    lhs += listed(ir::ein_slots(c), slot_text);
    out += (out.empty() ? "" : "\n") + lhs + "] = " + poly_text(poly(t));

  }
  return out;
}

}  // namespace ein::ad
