// Autodiff support: IR builders for generated code, fact lookup, and the renaming copier.
#include <cstdio>

#include "lang/passes/ad_common.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

[[noreturn]] void unsupported(const std::string& what, Span span) { throw Unsupported{what, span}; }

// ---- builders -----------------------------------------------------------------------------------

NodeRef flit(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string text = buf;
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return ir::make({.kind = Kind::FloatLit, .name = text, .fval = v});
}

NodeRef zero_of(DType dt) {
  NodeRef ty = ir::make({.kind = Kind::TyPrim, .name = dtype_name(dt)});
  return ir::make({.kind = Kind::Cast, .kids = {flit(0.0), ty}});
}

namespace {
bool is_float_lit(const NodeRef& n, double v) {
  return n && n->kind == Kind::FloatLit && n->fval == v;
}
}  // namespace

NodeRef add(const NodeRef& a, const NodeRef& b) {
  if (!a) return b;
  if (!b) return a;
  return ir::make_binary(ir::BinOp::Add, a, b);
}

NodeRef sub(const NodeRef& a, const NodeRef& b) {
  if (!b) return a;
  if (!a) return neg(b);
  return ir::make_binary(ir::BinOp::Sub, a, b);
}

NodeRef mul(const NodeRef& a, const NodeRef& b) {
  if (!a || !b) return nullptr;
  if (is_float_lit(a, 1.0)) return b;
  if (is_float_lit(b, 1.0)) return a;
  return ir::make_binary(ir::BinOp::Mul, a, b);
}

NodeRef div(const NodeRef& a, const NodeRef& b) {
  if (!a) return nullptr;
  if (is_float_lit(b, 1.0)) return a;
  return ir::make_binary(ir::BinOp::Div, a, b);
}

NodeRef neg(const NodeRef& a) { return a ? ir::make_unary(ir::UnOp::Neg, a) : nullptr; }

NodeRef name(const std::string& n, DefId d) { return ir::make_name(n, d); }

NodeRef call_builtin(int b, std::vector<NodeRef> args, Span s) {
  auto bi = static_cast<Builtin>(b);
  return ir::make_call(ir::make_name(builtin_info(bi).name, builtin_def(bi), s), std::move(args), s);
}

NodeRef eq(const NodeRef& a, const NodeRef& b) { return ir::make_binary(ir::BinOp::Eq, a, b); }

NodeRef ty_prim(DType d) { return ir::make({.kind = Kind::TyPrim, .name = dtype_name(d)}); }

NodeRef index_eq(const NodeRef& key, const TypeRef& key_type, const NodeRef& m) {
  if (!key_type || !ir::is_scalar(key_type) || !is_int(key_type->dtype) || key_type->dtype == DType::I32)
    return eq(key, m);
  auto wide = [](const NodeRef& v) { return ir::make({.kind = Kind::Cast, .kids = {v, ty_prim(DType::I64)}}); };
  return eq(key_type->dtype == DType::I64 ? key : wide(key), wide(m));
}

NodeRef land(const NodeRef& a, const NodeRef& b) {
  if (!a) return b;
  if (!b) return a;
  return ir::make_binary(ir::BinOp::And, a, b);
}

NodeRef ifz(const NodeRef& cond, const NodeRef& then, const NodeRef& zero) {
  return ir::make({.kind = Kind::If, .kids = {cond, then, zero}});
}

NodeRef zero_guard(const NodeRef& cond, const NodeRef& then, const NodeRef& zero) {
  return ir::make({.kind = Kind::If, .kids = {cond, then, zero}, .name = kZeroGuard});
}

NodeRef where(NodeRef value, std::vector<NodeRef> items) {
  if (items.empty()) return value;
  std::vector<NodeRef> kids{std::move(value)};
  for (auto& i : items) kids.push_back(std::move(i));
  return ir::make({.kind = Kind::Where, .kids = std::move(kids)});
}

NodeRef wbind(const std::string& n, DefId d, NodeRef v) {
  return ir::make({.kind = Kind::WBind, .kids = {std::move(v)}, .name = n, .def = d});
}

NodeRef wguard(NodeRef cond) { return ir::make({.kind = Kind::WGuard, .kids = {std::move(cond)}}); }

NodeRef idx_in(const std::string& n, DefId d, NodeRef lo, NodeRef hi) {
  NodeRef r = ir::make({.kind = Kind::RangeLit, .kids = {std::move(lo), std::move(hi)}});
  return ir::make({.kind = Kind::IdxIn, .kids = {r}, .name = n, .def = d});
}

NodeRef reduce(const std::string& op, NodeRef body, std::vector<NodeRef> slots) {
  std::vector<NodeRef> kids{std::move(body)};
  for (auto& s : slots) kids.push_back(std::move(s));
  return ir::make({.kind = Kind::Reduce, .kids = std::move(kids), .name = op});
}

NodeRef let_stmt(const std::string& n, DefId d, NodeRef v, std::optional<DType> ty) {
  NodeRef pat = ir::make({.kind = Kind::PBind, .name = n, .def = d});
  NodeRef ann = ty ? ir::make({.kind = Kind::TyPrim, .name = dtype_name(*ty)}) : nullptr;
  return ir::make({.kind = Kind::Let, .kids = {pat, ann, std::move(v)}});
}

NodeRef let_typed(const std::string& n, DefId d, NodeRef v, const TypeRef& t) {
  TypeRef el = ir::elem_of(t);
  int r = ir::rank_of(t);
  if (!el || el->k != ir::Type::K::Scalar || r < 0) return let_stmt(n, d, std::move(v));
  NodeRef ty = ir::make({.kind = Kind::TyPrim, .name = dtype_name(el->dtype)});
  if (r > 0) {
    std::vector<NodeRef> kids{ty};
    for (int a = 0; a < r; ++a) kids.push_back(ir::make({.kind = Kind::TyDim, .ival = -1}));
    ty = ir::make({.kind = Kind::TyArray, .kids = std::move(kids)});
  }
  NodeRef pat = ir::make({.kind = Kind::PBind, .name = n, .def = d});
  return ir::make({.kind = Kind::Let, .kids = {pat, ty, std::move(v)}});
}

NodeRef spanned(const NodeRef& n, Span s) {
  if (!n || !s.valid()) return n;
  std::vector<NodeRef> kids;
  for (auto& k : n->kids) kids.push_back(spanned(k, s));
  NodeRef m = ir::with_kids(n, std::move(kids));
  if (m->span.valid()) return m;
  return ir::edited(m, [&](ir::Node& x) { x.span = s; });
}

namespace {

// A value a let may rename without cost: a name, or a read at names and integer arithmetic.
bool alias_value(const NodeRef& v) {
  if (v->kind == Kind::Name) return true;
  if (v->kind != Kind::Index || ir::index_base(v)->kind != Kind::Name) return false;
  bool ok = true;
  for (const NodeRef& s : ir::index_args(v))
    ir::for_each_node(s, [&](const NodeRef& x) {
      ok = ok && (x->kind == Kind::Name || x->kind == Kind::IntLit || x->kind == Kind::Binary || x->kind == Kind::Unary);
    });
  return ok;
}

NodeRef substitute_names(const NodeRef& n, const std::unordered_map<DefId, NodeRef>& sub) {
  if (!n) return n;
  if (n->kind == Kind::Name) {
    auto it = sub.find(n->def);
    return it == sub.end() ? n : it->second;
  }
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    kids.push_back(substitute_names(k, sub));
    changed = changed || kids.back() != k;
  }
  return changed ? ir::with_kids(n, std::move(kids)) : n;
}

}  // namespace

namespace {

// A copy of `e` with ids of its own (types follow the original through `facts`): the reverse
// sweep tells reads apart by node id, so one node standing in two places would be two reads
// with one partial each (the derivative counted once per place).
NodeRef fresh_copy(const NodeRef& e, Facts& facts) {
  if (!e) return e;
  std::vector<NodeRef> kids;
  for (const NodeRef& k : e->kids) kids.push_back(fresh_copy(k, facts));
  NodeRef m = ir::rebuilt_fresh(e, std::move(kids));
  facts.note_origin(m->id, e->id);
  return m;
}

NodeRef substitute_fresh(const NodeRef& n, DefId d, const NodeRef& with, Facts& facts) {
  if (!n) return n;
  if (n->kind == Kind::Name && n->def == d) return fresh_copy(with, facts);
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    kids.push_back(substitute_fresh(k, d, with, facts));
    changed = changed || kids.back() != k;
  }
  return changed ? ir::with_kids(n, std::move(kids)) : n;
}

}  // namespace

NodeRef match_bindings(const NodeRef& e, Facts& facts) {
  if (!e) return e;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : e->kids) {
    kids.push_back(match_bindings(k, facts));
    changed = changed || kids.back() != k;
  }
  NodeRef n = changed ? ir::with_kids(e, std::move(kids)) : e;
  if (n->kind != Kind::Match) return n;
  const NodeRef& scrut = ir::match_scrutinee(n);
  // Only a scrutinee that binds nothing itself is written again (a copy of a reduction would
  // bind its index twice).
  if (!binders_in(scrut).empty()) return n;
  std::vector<NodeRef> out{scrut};
  bool edited = false;
  for (const NodeRef& arm : ir::match_arms(n)) {
    const NodeRef& pat = ir::arm_pattern(arm);
    if ((pat->kind != Kind::PBind && pat->kind != Kind::PAt) || !pat->def.valid()) {
      out.push_back(arm);
      continue;
    }
    NodeRef test = pat->kind == Kind::PAt ? ir::pat_inner(pat) : ir::make({.kind = Kind::PWild, .span = pat->span});
    out.push_back(ir::with_kids(arm, {test, substitute_fresh(ir::arm_guard(arm), pat->def, scrut, facts),
                                      substitute_fresh(ir::arm_body(arm), pat->def, scrut, facts)}));
    edited = true;
  }
  return edited ? ir::with_kids(n, std::move(out)) : n;
}

NodeRef block(std::vector<NodeRef> stmts, NodeRef tail) {
  stmts.push_back(std::move(tail));
  return ir::make({.kind = Kind::Block, .kids = std::move(stmts), .flags = ir::kHasTail});
}

// Lets that only rename a value (`let dx = dt;`, a tangent `let dt = X[n, k];`) are substituted:
// a generated partial is then a plain product of reads, which the contraction plan can see as
// one (a dense layer's weight gradient `sum[n](d_Z[n, j] * (1 - Z[n, j]^2) * X[n, k])`).
NodeRef alias_block(std::vector<NodeRef> stmts, NodeRef tail) {
  std::unordered_map<DefId, NodeRef> sub;
  std::vector<NodeRef> kept;
  for (auto& s : stmts) {
    NodeRef s2 = sub.empty() ? s : substitute_names(s, sub);
    if (s2 && s2->kind == Kind::Let && ir::let_pattern(*s2)->kind == Kind::PBind && alias_value(ir::let_value(*s2))) {
      sub[ir::let_pattern(*s2)->def] = ir::let_value(*s2);
      continue;
    }
    kept.push_back(s2);
  }
  if (!sub.empty()) tail = substitute_names(tail, sub);
  // A block that is only its value (a rule's body `{ e }`) is that value.
  while (tail && tail->kind == Kind::Block && tail->has(ir::kHasTail) && tail->kids.size() == 1) tail = tail->kids[0];
  if (kept.empty()) return tail;
  kept.push_back(std::move(tail));
  return ir::make({.kind = Kind::Block, .kids = std::move(kept), .flags = ir::kHasTail});
}

// A partial as the contraction matcher can read it: the lets of inlined calls and rules (a
// parameter bound to a read or a literal, a tangent used once, an unused `dalpha`) substituted,
// so an elu or leaky_relu layer's weight gradient is a product of reads like tanh's. A value used
// more than once stays bound (unless it is a read or a literal: no work is repeated), and so does
// every let of a block that sums (a value substituted into a loop would be recomputed per term).
NodeRef flatten_partial(const NodeRef& n) {
  if (!n) return n;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    kids.push_back(flatten_partial(k));
    changed = changed || kids.back() != k;
  }
  NodeRef b = changed ? ir::with_kids(n, std::move(kids)) : n;
  if (b->kind != Kind::Block || !b->has(ir::kHasTail) || b->kids.empty()) return b;
  if (b->kids.size() == 1) return b->kids[0];  // a block that is only its value
  bool sums = false;
  ir::for_each_node(b, [&](const NodeRef& x) { sums = sums || x->kind == Kind::Reduce; });
  auto uses = [&](DefId d, size_t from, const std::vector<NodeRef>& ks) {
    int c = 0;
    for (size_t i = from; i < ks.size(); ++i)
      ir::for_each_node(ks[i], [&](const NodeRef& x) { c += x->kind == Kind::Name && x->def == d; });
    return c;
  };
  std::vector<NodeRef> ks(b->kids.begin(), b->kids.end());
  std::vector<NodeRef> kept;
  for (size_t i = 0; i + 1 < ks.size(); ++i) {
    const NodeRef& s = ks[i];
    if (s->kind != Kind::Let || ir::let_pattern(*s)->kind != Kind::PBind) {
      kept.push_back(s);
      continue;
    }
    DefId d = ir::let_pattern(*s)->def;
    NodeRef v = ir::let_value(*s);
    const NodeRef& ty = ir::let_type(*s);
    bool float_ty = ty && ty->kind == Kind::TyPrim && dtype_from_name(ty->name) && is_float(*dtype_from_name(ty->name));
    int u = uses(d, i + 1, ks);
    NodeRef with;
    if (u == 0) {
      continue;
    } else if (v->kind == Kind::FloatLit || alias_value(v)) {
      with = v;
    } else if (v->kind == Kind::IntLit) {
      with = float_ty ? flit(static_cast<double>(v->ival)) : v;
    } else if (u == 1 && !sums) {
      with = ty && ty->kind == Kind::TyPrim ? ir::make({.kind = Kind::Cast, .kids = {v, ty}}) : v;
    } else {
      kept.push_back(s);
      continue;
    }
    std::unordered_map<DefId, NodeRef> sub{{d, with}};
    for (size_t j = i + 1; j < ks.size(); ++j) ks[j] = substitute_names(ks[j], sub);
  }
  NodeRef tail = ks.back();
  if (kept.empty()) return tail;
  if (kept.size() + 1 == ks.size()) return b;
  kept.push_back(tail);
  return ir::make({.kind = Kind::Block, .kids = std::move(kept), .flags = ir::kHasTail});
}

// ---- facts --------------------------------------------------------------------------------------

Facts::Facts(CompileCtx& cx) : cx_(cx) {
  for (auto& u : cx.units) {
    units_.push_back(u.get());
    range_maps_.push_back(&u->ranges);
  }
}

std::optional<int64_t> Facts::fold(const NodeRef& e) const {
  if (!units_.empty() && units_.front() != &cx_.cell())
    if (auto v = fold_int(cx_, *units_.front(), e)) return v;
  return fold_int(cx_, cx_.cell(), e);
}

void Facts::prefer(const Unit* u) {
  units_.insert(units_.begin(), u);
  range_maps_.insert(range_maps_.begin(), &u->ranges);
}

void Facts::unprefer() {
  units_.erase(units_.begin());
  range_maps_.erase(range_maps_.begin());
}

TypeRef Facts::type(const NodeRef& n) const {
  uint32_t id = n->id;
  for (int hop = 0; hop < 64; ++hop) {
    if (auto it = extra_.find(id); it != extra_.end()) return it->second;
    for (const Unit* u : units_)
      if (auto it = u->types.find(id); it != u->types.end()) return it->second;
    auto o = origin_.find(id);
    if (o == origin_.end()) break;
    id = o->second;
  }
  if (n->kind == Kind::Name || n->kind == Kind::Path) return def_type(n->def);
  return ir::t_unknown();
}

TypeRef Facts::def_type(DefId d) const {
  for (int hop = 0; hop < 64 && d.valid(); ++hop) {
    if (auto it = extra_defs_.find(d); it != extra_defs_.end()) return it->second;
    for (const Unit* u : units_)
      if (auto it = u->def_types.find(d); it != u->def_types.end()) return it->second;
    if (auto it = cx_.global_types.find(d); it != cx_.global_types.end()) return it->second;
    if (TypeRef t = cx_.env.type_of(d)) return t;
    auto o = def_origin_.find(d);
    if (o == def_origin_.end()) break;
    d = o->second;
  }
  return ir::t_unknown();
}

const RangeFact* Facts::range(DefId d) const {
  for (int hop = 0; hop < 64 && d.valid(); ++hop) {
    // A copy of an inlined index has its own range (its names copied too): nearer than the
    // original's, which reads the callee's locals.
    if (auto it = own_ranges_.find(d); it != own_ranges_.end()) return &it->second;
    for (auto* m : range_maps_)
      if (auto it = m->find(d); it != m->end()) return &it->second;
    auto o = def_origin_.find(d);
    if (o == def_origin_.end()) break;
    d = o->second;
  }
  return nullptr;
}

const Unit* Facts::call_target(const NodeRef& call, const Unit* within) const {
  uint32_t id = call->id;
  for (int hop = 0; hop < 64; ++hop) {
    // Specialisations share the nodes their rank tests did not prune: the same call is
    // `f(rank 3) -> f(rank 2)` in one and `f(rank 4) -> f(rank 3)` in another.
    if (auto it = pinned_calls_.find(id); it != pinned_calls_.end()) return it->second;
    if (within)
      if (auto it = within->call_targets.find(id); it != within->call_targets.end()) return it->second;
    for (const Unit* u : units_)
      if (auto it = u->call_targets.find(id); it != u->call_targets.end()) return it->second;
    auto o = origin_.find(id);
    if (o == origin_.end()) break;
    id = o->second;
  }
  return nullptr;
}

std::optional<DType> Facts::float_dtype(const NodeRef& n) const {
  TypeRef el = ir::elem_of(type(n));
  if (el && el->k == ir::Type::K::Scalar && is_float(el->dtype)) return el->dtype;
  return std::nullopt;
}

std::optional<DType> Facts::float_dtype_of_def(DefId d) const {
  TypeRef el = ir::elem_of(def_type(d));
  if (el && el->k == ir::Type::K::Scalar && is_float(el->dtype)) return el->dtype;
  return std::nullopt;
}

// ---- copier -------------------------------------------------------------------------------------

NodeRef Copier::copy(const NodeRef& n) {
  Env env;
  for (auto& [d, e] : subst) env[d] = Binding{false, {}, e};
  return rec(n, env);
}

void copy_index_ranges(CompileCtx& cx, Facts& facts, const Copier& cp,
                       const std::function<const RangeFact*(DefId)>& first) {
  std::unordered_map<DefId, NodeRef> to_copy = cp.subst;  // parameters -> their lets
  for (auto& [orig, copy] : cp.renamed) to_copy[orig] = name(cx.resolver.info(copy).name, copy);
  for (auto& [orig, copy] : cp.renamed) {
    const RangeFact* rf = first ? first(orig) : nullptr;
    if (!rf) rf = facts.range(orig);
    if (!rf || !rf->lo || !rf->hi) continue;
    Copier rc(cx, facts);
    rc.subst = to_copy;
    RangeFact f = *rf;
    f.lo = rc.copy(rf->lo);
    f.hi = rc.copy(rf->hi);
    facts.add_range(copy, f);
  }
}

DefId Copier::fresh(const NodeRef& binder, Env& env) {
  const DefInfo& info = cx_.resolver.info(binder->def);
  DefKind k = info.kind == DefKind::Global ? DefKind::Local : info.kind;
  DefId d = cx_.resolver.new_def(info.name.empty() ? binder->name : info.name, k, binder->span);
  facts_.note_def_origin(d, binder->def);
  renamed.emplace_back(binder->def, d);
  env[binder->def] = Binding{true, d, nullptr};
  return d;
}

NodeRef Copier::node(const NodeRef& n, std::vector<NodeRef> kids, const Env& env) {
  DefId def = n->def;
  if (auto it = env.find(def); it != env.end() && it->second.renamed) def = it->second.to;
  // The extent of a parameter replaced by a row (`V[k]` for `v`): that axis of the array; by an
  // elementwise expression of a row (`V[k] * 2.0`): that axis of the operand of its rank.
  if (n->kind == Kind::DimOf && kids.size() == 1) {
    NodeRef x = ir::through_elementwise(kids[0], [&](const NodeRef& k) { return ir::rank_of(facts_.type(k)); });
    if (x->kind == Kind::Index && ir::index_base(x)->kind == Kind::Name)
      return irb::dim_of(ir::index_base(x), static_cast<int>(n->ival + static_cast<int64_t>(ir::index_args_count(x))));
  }
  NodeRef m = ir::rebuilt_fresh(n, std::move(kids), def);
  facts_.note_origin(m->id, n->id);
  return m;
}

namespace {

bool is_binder(Kind k) {
  return k == Kind::IdxVar || k == Kind::IdxIn || k == Kind::IdxRest || k == Kind::WBind ||
         k == Kind::WDerived || k == Kind::PBind || k == Kind::Param || k == Kind::CompGen ||
         k == Kind::CompLet || k == Kind::PAt || k == Kind::PRest;
}

}  // namespace

NodeRef Copier::rec(const NodeRef& n, Env& env) {
  if (!n) return n;
  if ((n->kind == Kind::Name || n->kind == Kind::Path || n->kind == Kind::RestIdx) && n->def.valid()) {
    auto it = env.find(n->def);
    if (it != env.end() && !it->second.renamed) {
      Copier inner(cx_, facts_);  // the replacement is copied afresh at each use
      return inner.copy(it->second.expr);
    }
    return node(n, {}, env);
  }
  switch (n->kind) {
    case Kind::Reduce:
    case Kind::EinDecl:
    case Kind::Where:
    case Kind::Comp:
    case Kind::Lambda:
    case Kind::Arm: {
      // Binders of these nodes scope over the whole node.
      Env inner = env;
      std::function<void(const NodeRef&)> bind = [&](const NodeRef& k) {
        if (!k) return;
        if (is_binder(k->kind) && k->def.valid()) fresh(k, inner);
        if (k->kind == Kind::PTuple || k->kind == Kind::POr || k->kind == Kind::PArray ||
            k->kind == Kind::PAt)
          for (auto& x : k->kids) bind(x);
      };
      for (auto& k : n->kids) bind(k);
      std::vector<NodeRef> kids;
      for (auto& k : n->kids) {
        if (k && is_binder(k->kind) && k->def.valid()) {
          // A range sees the node's other binders (DefIds are unique, so a def it mentions
          // that the node binds is that binder: `sum[m, n in 0..m + 1]` in an adjoint whose m
          // was an outer index of the primal), but not its own binder.
          Env ranges = inner;
          if (auto o = env.find(k->def); o != env.end()) ranges[k->def] = o->second;
          else ranges.erase(k->def);
          std::vector<NodeRef> sub;
          for (auto& x : k->kids) sub.push_back(rec(x, ranges));
          if (k->kind == Kind::WBind || k->kind == Kind::WDerived || k->kind == Kind::CompLet ||
              k->kind == Kind::CompGen) {
            sub.clear();
            for (auto& x : k->kids) sub.push_back(rec(x, inner));
          }
          kids.push_back(node(k, std::move(sub), inner));
        } else {
          kids.push_back(rec(k, inner));
        }
      }
      return node(n, std::move(kids), env);
    }
    case Kind::Block:
    case Kind::Program: {
      // Statements bind for the rest of the block.
      Env inner = env;
      std::vector<NodeRef> kids;
      for (auto& s : n->kids) {
        if (s && s->kind == Kind::Let) {
          NodeRef ty = ir::let_type(s);
          NodeRef v = rec(ir::let_value(s), inner);
          std::function<NodeRef(const NodeRef&)> pat = [&](const NodeRef& p) -> NodeRef {
            if (!p) return p;
            if (p->kind == Kind::PBind) {
              fresh(p, inner);
              return node(p, {}, inner);
            }
            std::vector<NodeRef> sub;
            for (auto& x : p->kids) sub.push_back(pat(x));
            return node(p, std::move(sub), inner);
          };
          NodeRef pt = pat(ir::let_pattern(s));

          kids.push_back(node(s, {pt, ty, v}, inner));
        } else if (s && s->kind == Kind::EinGroup) {
          fresh(s, inner);  // the tensor's name is visible in its own clauses (recurrences)
          std::vector<NodeRef> clauses;
          for (auto& c : s->kids) clauses.push_back(rec(c, inner));
          kids.push_back(node(s, std::move(clauses), inner));
        } else {
          kids.push_back(rec(s, inner));
        }
      }
      return node(n, std::move(kids), env);
    }
    default: {
      std::vector<NodeRef> kids;
      for (auto& k : n->kids) kids.push_back(rec(k, env));
      if (n->kind == Kind::Call)
        if (NodeRef b = beta(n, kids)) return b;
      return node(n, std::move(kids), env);
    }
  }
}

namespace {

// An argument cheap and safe to copy to each use of its parameter: names, literals, index
// arithmetic and reads (what a per-point argument of an inlined call already is).
bool copyable_arg(const NodeRef& e, int depth = 0) {
  if (!e || depth > 6) return false;
  switch (e->kind) {
    case Kind::Name:
    case Kind::Path:
    case Kind::IntLit:
    case Kind::FloatLit:
    case Kind::BoolLit: return true;
    case Kind::Unary:
    case Kind::Binary:
    case Kind::Index:
      for (auto& k : e->kids)
        if (!copyable_arg(k, depth + 1)) return false;
      return true;
    default: return false;
  }
}

}  // namespace

// `(|u| e)(a)` is e with u bound to a. A closure passed to an inlined function (`euler(|u| -k *
// u, ..)`) is called where the body calls its parameter; left a call of a lambda copy, it ran
// as a closure no frame layout had seen, its captures unbound (E003 "`k` is used before it has
// a value" at run time in a gradient inside a function).
NodeRef Copier::beta(const NodeRef& call, const std::vector<NodeRef>& kids) {
  if (kids.empty() || !kids[0] || kids[0]->kind != Kind::Lambda) return nullptr;
  const NodeRef& f = kids[0];
  ir::Kids params = ir::lambda_params(*f);
  if (params.size() + 1 != kids.size()) return nullptr;
  for (auto& p : params)
    if (!p || p->kind != Kind::Param || !p->def.valid()) return nullptr;
  Copier body(cx_, facts_);
  std::vector<NodeRef> lets;
  for (size_t a = 0; a < params.size(); ++a) {
    const NodeRef& p = params[a];
    const NodeRef& arg = kids[a + 1];
    // The closure's own copies of its parameters (a lambda substituted for a parameter is
    // copied afresh) reach the ranges of its indices through their origins: bind them all.
    auto bind = [&](const NodeRef& e) {
      DefId d = p->def;
      for (int hop = 0; hop < 64 && d.valid(); ++hop, d = facts_.def_origin(d)) body.subst[d] = e;
    };
    if (copyable_arg(arg)) {
      bind(arg);
      continue;
    }
    // Evaluated once, before the body, as the call would.
    DefId d = cx_.resolver.new_def(p->name, DefKind::Local, p->span);
    facts_.note_def_origin(d, p->def);
    NodeRef pb = ir::make({.kind = Kind::PBind, .span = p->span, .name = p->name, .def = d});
    NodeRef ty = p->kids.empty() ? nullptr : p->kids[0];
    lets.push_back(ir::make({.kind = Kind::Let, .span = arg->span, .kids = {pb, ty, arg}}));
    bind(name(p->name, d));
  }
  NodeRef v = body.copy(ir::lambda_body(*f));
  // Its indices get their ranges here, with the parameters bound (the enclosing copy's
  // substitutions name the callee's parameters, which a closure written by the caller never reads).
  copy_index_ranges(cx_, facts_, body);
  if (lets.empty()) return v;
  lets.push_back(v);
  return ir::make({.kind = Kind::Block, .span = call->span, .kids = std::move(lets), .flags = ir::kHasTail});
}

}  // namespace ein::ad
