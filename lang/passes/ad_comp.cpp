// Comprehensions on the primal tape (SPEC §7: derivatives go through every expression). Where an
// element of `[e | clauses]` lands depends on the data (generators over arrays, guards), so a
// comprehension is no set of indexed clauses. Its entry is linearised instead: for every active
// input x, a Jacobian
//   J_x = [∂e/∂x[s] | clauses, s over x's shape]    (one row of |x| entries per element, flat)
// is computed by the same enumeration, and the comprehension c becomes the clause
//   c[k] = Σ_x Σ_s J_x[k * |x| + flat(s)] * x[s]
// whose partial derivatives are the comprehension's. J_x is a real definition in the generated
// code (emitted before the adjoints), so differentiating the derivative goes through it.
#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

namespace {

NodeRef one_of(DType d) { return ir::make({.kind = Kind::Cast, .kids = {flit(1.0), ty_prim(d)}}); }

// The tangent of x is the basis vector at s: `P[i..]` becomes `i.. == s..`, a bare `P` (scalar
// x) becomes 1.
NodeRef basis(const NodeRef& n, DefId P, const std::vector<NodeRef>& s, DType dt) {
  if (!n) return n;
  if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && ir::index_base(n)->def == P) {
    ir::Kids idx = ir::index_args(n);
    if (idx.size() != s.size()) unsupported("a partial read of an array inside a comprehension", n->span);
    NodeRef same;
    for (size_t a = 0; a < s.size(); ++a) same = land(same, eq(basis(idx[a], P, s, dt), s[a]));
    return ifz(same, one_of(dt), zero_of(dt));
  }
  if (n->kind == Kind::Name && n->def == P) {
    if (!s.empty()) unsupported("a whole array inside a comprehension's element", n->span);
    return one_of(dt);
  }
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    kids.push_back(basis(k, P, s, dt));
    changed = changed || kids.back() != k;
  }
  return changed ? ir::with_kids(n, std::move(kids)) : n;
}

NodeRef comp_gen(const std::string& n, DefId d, NodeRef iter) {
  return ir::make({.kind = Kind::CompGen, .kids = {std::move(iter)}, .name = n, .def = d});
}
NodeRef comp_let(const std::string& n, DefId d, NodeRef v) {
  return ir::make({.kind = Kind::CompLet, .kids = {std::move(v)}, .name = n, .def = d});
}
NodeRef range(NodeRef lo, NodeRef hi) {
  return ir::make({.kind = Kind::RangeLit, .kids = {std::move(lo), std::move(hi)}});
}

}  // namespace

Entry Tape::comp_entry(DefId d, const std::string& nm, const NodeRef& comp) {
  Entry e;
  e.def = d;
  e.name = nm;
  e.dt = facts_.float_dtype_of_def(d).value_or(DType::F32);
  e.rank = 1;
  if (ir::rank_of(facts_.def_type(d)) != 1) unsupported("a comprehension whose elements are arrays", comp->span);
  // The active values the comprehension reads.
  std::vector<DefId> inputs;
  std::unordered_set<DefId> inner = binders_in(comp);
  ir::for_each_node(comp, [&](const NodeRef& n) {
    if ((n->kind != Kind::Name && n->kind != Kind::Path) || !n->def.valid() || inner.count(n->def)) return;
    if (cx_.resolver.info(n->def).kind == DefKind::Fn) return;
    for (auto& x : inputs)
      if (x == n->def) return;
    if (visit(n->def)) inputs.push_back(n->def);
  });
  auto reads_input = [&](const NodeRef& root) {
    bool r = false;
    ir::for_each_node(root, [&](const NodeRef& n) {
      for (auto& x : inputs) r = r || ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == x);
    });
    return r;
  };
  // Generators over active arrays enumerate positions instead, so an element's tangent can name
  // the position it came from: `c in v` -> `i in 0..len(v), c = v[i]` (the same order).
  std::vector<NodeRef> clauses;
  for (const NodeRef& g : ir::comp_clauses(comp)) {
    int r = g->kind == Kind::CompGen ? ir::rank_of(facts_.type(ir::compgen_iter(g))) : 0;
    if (r <= 0 || !reads_input(ir::compgen_iter(g))) {
      clauses.push_back(g);
      continue;
    }
    if (r != 1) unsupported("a generator over the rows of a differentiated array", g->span);
    DefId pos = cx_.resolver.new_def(g->name + ".pos", DefKind::Local, g->span);
    clauses.push_back(comp_gen(g->name + ".pos", pos, range(irb::lit(0), extent_of(ir::compgen_iter(g), 0))));
    clauses.push_back(comp_let(g->name, g->def, pointwise(ir::compgen_iter(g), {name(g->name + ".pos", pos)})));
  }
  const NodeRef& elem = ir::comp_elem(*comp);
  DefId kdef = cx_.resolver.new_def(nm + ".k", DefKind::Index, comp->span);
  NodeRef k = name(nm + ".k", kdef);
  NodeRef value;
  for (DefId x : inputs) {
    const std::string xname = cx_.resolver.info(x).name;  // new_def may move the table
    int rx = ir::rank_of(facts_.def_type(x));
    DType dx = facts_.float_dtype_of_def(x).value_or(e.dt);
    if (rx < 0) unsupported("a value of unknown rank read by a comprehension", comp->span);
    NodeRef xn = name(xname, x);
    Forward fwd(cx_, facts_);
    DefId P = cx_.resolver.new_def("t." + xname, DefKind::Local, comp->span);
    fwd.tangents[x] = name("t." + xname, P);
    std::vector<NodeRef> jcl, tlets, s;
    for (auto& c : clauses) {
      jcl.push_back(c);
      if (c->kind != Kind::CompLet) continue;
      if (NodeRef t = fwd.tangent(ir::complet_value(c))) {
        DefId td = cx_.resolver.new_def("t." + c->name, DefKind::Local, c->span);
        tlets.push_back(comp_let("t." + c->name, td, t));
        fwd.tangents[c->def] = name("t." + c->name, td);
      }
    }
    NodeRef te = fwd.tangent(elem);
    if (!te) continue;
    for (int a = 0; a < rx; ++a) {
      DefId sd = cx_.resolver.new_def("s" + std::to_string(a), DefKind::Local, comp->span);
      s.push_back(name("s" + std::to_string(a), sd));
      jcl.push_back(comp_gen(s.back()->name, sd, range(irb::lit(0), irb::dim_of(xn, a))));
    }
    for (auto& t : tlets) jcl.push_back(basis(t, P, s, dx));
    std::vector<NodeRef> kids{basis(te, P, s, dx)};
    kids.insert(kids.end(), jcl.begin(), jcl.end());
    Copier cp(cx_, facts_);  // the primal's binders stay the primal's
    NodeRef jcomp = cp.copy(ir::make({.kind = Kind::Comp, .span = comp->span, .kids = std::move(kids)}));
    std::string jn = "J." + nm + "." + xname;
    DefId jd = cx_.resolver.new_def(jn, DefKind::Local, comp->span);
    emits_.push_back(let_stmt(jn, jd, jcomp));
    memo_[jd] = false;  // constant to this sweep
    // Σ_s J[k * |x| + flat(s)] * x[s]
    NodeRef flat = k;
    std::vector<NodeRef> js, slots;
    for (int a = 0; a < rx; ++a) {
      std::string jnm = nm + ".j" + std::to_string(a);
      DefId jj = cx_.resolver.new_def(jnm, DefKind::Index, comp->span);
      js.push_back(name(jnm, jj));
      slots.push_back(idx_in(jnm, jj, irb::lit(0), irb::dim_of(xn, a)));
      flat = ir::make_binary(ir::BinOp::Add, ir::make_binary(ir::BinOp::Mul, flat, irb::dim_of(xn, a)), js.back());
    }
    NodeRef xr = xn;
    if (rx > 0) {
      std::vector<NodeRef> ik{xn};
      ik.insert(ik.end(), js.begin(), js.end());
      xr = ir::make({.kind = Kind::Index, .kids = std::move(ik)});
    }
    NodeRef term = mul(ir::make({.kind = Kind::Index, .kids = {name(jn, jd), flat}}), xr);
    value = add(value, rx > 0 ? reduce("sum", term, slots) : term);
  }
  Clause cl;
  cl.value = value ? value : zero_of(e.dt);
  cl.slots.push_back(idx_in(nm + ".k", kdef, irb::lit(0), irb::dim_of(name(nm, d), 0)));
  e.clauses.push_back(std::move(cl));
  return e;
}

// A comprehension inside a larger expression becomes a definition of its own (emitted, so the
// derivative code can read it), when it reads nothing bound by the expression around it.
NodeRef Tape::hoist_comps(const NodeRef& e, const std::unordered_set<DefId>& around) {
  if (!e || e->kind == Kind::Lambda) return e;
  if (e->kind == Kind::Comp) {
    bool closed = true;
    std::unordered_set<DefId> inner = binders_in(e);
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->def.valid() && around.count(n->def) && !inner.count(n->def)) closed = false;
    });
    if (!closed) unsupported("a comprehension that reads indices or locals of the expression around it", e->span);
    DefId d = cx_.resolver.new_def("comp", DefKind::Local, e->span);
    facts_.note_def_type(d, facts_.type(e));
    NodeRef let = let_typed("comp", d, e, facts_.type(e));
    visible_[d] = let;
    emits_.push_back(let);
    NodeRef n = name("comp", d);
    facts_.note_type(n->id, facts_.type(e));
    return n;
  }
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : e->kids) {
    kids.push_back(hoist_comps(k, around));
    changed = changed || kids.back() != k;
  }
  return changed ? ir::with_kids(e, std::move(kids)) : e;
}

// ---- comprehensions over rows -----------------------------------------------------------------
// `[f(row) | row in X]` (and `[g(k) | k in 0..n, e = h(k)]`) whose elements are arrays, or whose
// generator walks the rows of an array, is no elementwise value and no linear entry of scalars.
// With a generator extent known at compile time it is the array literal `[f(X[0]), .., f(X[n-1])]`,
// whose elements are inlined as any call and stacked per point by `pointwise`. Library functions
// that work along an axis recurse this way (`[lp_at(row, a - 1) | row in X]`), so the unrolled
// elements may unroll again; the total is bounded, and past it the request is E013.

// A function body seen through its call: parameters stand for the call's arguments (read in
// the caller's context, `up`), lets for their values.
struct Tape::ExtentEnv {
  const ExtentEnv* up = nullptr;
  std::unordered_map<DefId, NodeRef> params, lets;
};

// The extent of `f(args)` along `axis` when f's result is elementwise in its array arguments:
// a parameter, arithmetic and math intrinsics of such values, lets of them, calls of such
// functions, and an `if` whose branches agree (relu, sigmoid, an activation written by hand).
// Anything else (a declaration, an index, another intrinsic) is not folded.
std::optional<int64_t> Tape::call_extent(const NodeRef& call, int axis, const ExtentEnv* env, int depth) const {
  if (depth > 16 || call->kind != Kind::Call) return std::nullopt;
  const NodeRef& callee = ir::call_callee(call);
  if (auto b = builtin_of(callee->def)) {
    if (!is_math_intrinsic(*b)) return std::nullopt;
    for (const NodeRef& a : ir::call_args(call))
      if (auto e = body_extent(a, axis, env, depth + 1)) return e;
    return std::nullopt;
  }
  TypeRef ct = facts_.type(callee);
  NodeRef fn = ct && ct->k == ir::Type::K::FnItem ? cx_.resolver.info(ct->def).node : cx_.resolver.info(callee->def).node;
  if (!fn || fn->kind != Kind::Fn || ir::fn_params_count(*fn) != ir::call_args_count(call)) return std::nullopt;
  // The arguments are read in the caller's context: `inner` maps the parameters to copies of
  // the argument expressions bound in `env` (a nested call's arguments name its caller's
  // parameters), so each parameter resolves through the chain of callers.
  ExtentEnv inner;
  inner.up = env;
  for (size_t i = 0; i < ir::call_args_count(call); ++i)
    inner.params[ir::fn_params(*fn)[i]->def] = ir::call_args(call)[i];
  return body_extent(ir::fn_body(*fn), axis, &inner, depth + 1);
}

std::optional<int64_t> Tape::body_extent(const NodeRef& e, int axis, const ExtentEnv* env, int depth) const {
  if (!e || depth > 64) return std::nullopt;
  if (!env) return fold_extent(e, axis);  // the caller's own context
  switch (e->kind) {
    case Kind::Name: {
      if (auto it = env->params.find(e->def); it != env->params.end()) return body_extent(it->second, axis, env->up, depth + 1);
      if (auto it = env->lets.find(e->def); it != env->lets.end()) return body_extent(it->second, axis, env, depth + 1);
      return std::nullopt;
    }
    case Kind::Binary:
    case Kind::Unary:
      for (const NodeRef& k : e->kids)
        if (auto x = body_extent(k, axis, env, depth + 1)) return x;
      return std::nullopt;
    case Kind::Call: return call_extent(e, axis, env, depth + 1);
    case Kind::If: {
      auto a = body_extent(ir::if_then(*e), axis, env, depth + 1);
      auto b = ir::if_else(*e) ? body_extent(ir::if_else(*e), axis, env, depth + 1) : std::nullopt;
      return a && b && *a == *b ? a : std::nullopt;
    }
    case Kind::Block: {
      if (!e->has(ir::kHasTail)) return std::nullopt;
      ExtentEnv local = *env;
      ir::Kids stmts = ir::block_stmts(*e);
      for (size_t i = 0; i + 1 < stmts.size(); ++i)
        if (stmts[i] && stmts[i]->kind == Kind::Let && ir::let_pattern(*stmts[i])->kind == Kind::PBind)
          local.lets[ir::let_pattern(*stmts[i])->def] = ir::let_value(*stmts[i]);
      return body_extent(ir::tail_expr(*e), axis, &local, depth + 1);
    }
    default: return std::nullopt;
  }
}

// The inlined value of `let d = f(..);` (the tape's own when d is differentiated, else inlined
// here for its extents only: the statements the inlining emits are dropped again, the copies
// it makes are reachable from the value alone). The let's value itself when f cannot be
// inlined.
NodeRef Tape::inlined_for_extents(DefId d, const NodeRef& let) {
  if (auto it = inlined_value_.find(d); it != inlined_value_.end()) return it->second;
  NodeRef v = ir::let_value(*let);
  inlined_value_[d] = v;  // (also stops a cycle through the inlining's own folds)
  size_t emitted = emits_.size(), decided = decisions_.size();
  int saved_depth = inline_depth_;
  auto saved_bound = std::move(bound_);
  bound_.clear();
  const Unit* saved_within = within_;
  auto sw = stmt_within_.find(let->id);
  within_ = sw == stmt_within_.end() ? nullptr : sw->second;
  NodeRef out = v;
  try {
    out = extract_calls(v);
  } catch (const Unsupported&) {
    out = v;
  }
  emits_.resize(emitted);
  decisions_.resize(decided);  // their lets are gone: the real inlining decides again, alike
  inline_depth_ = saved_depth;
  bound_ = std::move(saved_bound);
  within_ = saved_within;
  inlined_value_[d] = out;
  return out;
}

std::optional<int64_t> Tape::fold_extent(const NodeRef& a, int axis) const {
  if (a->kind == Kind::ArrayLit) {
    ir::Kids elems = ir::array_elems(a);
    if (axis == 0) return static_cast<int64_t>(elems.size());
    if (elems.empty() || axis < 0) return std::nullopt;
    return fold_extent(elems.front(), axis - 1);
  }
  // Elementwise arithmetic has the extents of its array operands (`d * d`, `X - mu`).
  if (a->kind == Kind::Binary || a->kind == Kind::Unary) {
    int r = ir::rank_of(facts_.type(a));
    if (r <= axis) return std::nullopt;
    for (auto& k : a->kids)
      if (ir::rank_of(facts_.type(k)) == r)
        if (auto e = fold_extent(k, axis)) return e;
    return std::nullopt;
  }
  if (a->kind == Kind::Index) {
    ir::Kids idx = ir::index_args(a);
    for (const NodeRef& i : idx)
      if (i->kind == Kind::RangeLit || ir::rank_of(facts_.type(i)) != 0) return std::nullopt;
    return fold_extent(ir::index_base(a), axis + static_cast<int>(idx.size()));
  }
  // `__convert(B, x)` keeps B's shape (the library's change of element type).
  if (a->kind == Kind::Call && ir::call_args_count(a) == 2)
    if (auto b = builtin_of(ir::call_callee(a)->def); b && *b == Builtin::Convert)
      return fold_extent(ir::call_args(a)[0], axis);
  // An elementwise intrinsic (`__max2(x, 0)`, relu's inlined value) has its array operands'
  // extents.
  if (a->kind == Kind::Call)
    if (auto b = builtin_of(ir::call_callee(a)->def); b && is_math_intrinsic(*b)) {
      int r = ir::rank_of(facts_.type(a));
      if (r <= axis) return std::nullopt;
      for (const NodeRef& k : ir::call_args(a))
        if (ir::rank_of(facts_.type(k)) == r)
          if (auto e = fold_extent(k, axis)) return e;
      return std::nullopt;
    }
  // A call the tape keeps (a function with an `@fn` rule: relu, sigmoid) whose body is
  // elementwise in its arguments.
  if (a->kind == Kind::Call) return call_extent(a, axis, nullptr, 0);
  if (a->kind != Kind::Name && a->kind != Kind::Path) return std::nullopt;
  if (auto it = visible_.find(a->def); it != visible_.end() && it->second->kind == Kind::Let &&
                                        ir::let_pattern(*it->second)->kind == Kind::PBind) {
    const NodeRef& v = ir::let_value(*it->second);
    if (v->kind == Kind::Name || v->kind == Kind::Path || v->kind == Kind::Index) return fold_extent(v, axis);
    // A literal argument bound to a parameter (`axes` = `[0, 2, 3]`).
    // A literal argument bound to a parameter (`axes` = `[0, 2, 3]`), or an unrolled
    // comprehension's rows: the literal's length, then its first element's extents.
    if (v->kind == Kind::ArrayLit || v->kind == Kind::Binary || v->kind == Kind::Unary || v->kind == Kind::Call) {
      if (auto e = fold_extent(v, axis)) return e;
      if (v->kind != Kind::Call) return std::nullopt;
      NodeRef iv = const_cast<Tape*>(this)->inlined_for_extents(a->def, it->second);
      return iv != v ? fold_extent(iv, axis) : std::nullopt;
    }
  }
  if (auto f = facts_.fold(irb::dim_of(a, axis))) return f;
  // An array an inlined body declares (`let y[0, ..r] = x[..r];` of `lift`, a fresh copy the
  // analysis has no shape for): the extent its clauses' slots give, one past the largest
  // literal or index bound, when every clause's slot folds.
  static thread_local int depth = 0;
  auto it = visible_.find(a->def);
  if (it == visible_.end() || it->second->kind != Kind::EinGroup || depth > 32) return std::nullopt;
  struct Depth {
    Depth() { ++depth; }
    ~Depth() { --depth; }
  } guard;
  std::optional<int64_t> ext;
  for (auto& c : ir::group_clauses(it->second)) {
    if (c->kind != Kind::EinDecl || axis >= static_cast<int>(ir::ein_slots_count(c))) return std::nullopt;
    const NodeRef& s = ir::ein_slots(c)[static_cast<size_t>(axis)];
    std::optional<int64_t> e;
    if (s->kind == Kind::IdxLit) {
      e = irb::add_exact(s->ival, 1);
    } else if (s->kind == Kind::IdxIn || s->kind == Kind::IdxVar) {
      NodeRef lo, hi;
      if (s->kind == Kind::IdxIn && ir::idxin_range(*s)->kind == Kind::RangeLit) {
        if (ir::idxin_range(*s)->has(ir::kInclusive)) return std::nullopt;
        lo = ir::range_lo(*ir::idxin_range(*s));
        hi = ir::range_hi(*ir::idxin_range(*s));
      } else if (const RangeFact* rf = facts_.range(s->def)) {
        lo = rf->lo;
        hi = rf->hi;
      }
      if (!lo || !hi) return std::nullopt;
      // A declaration's indices start at 0 (SPEC §5.2); anything else is not folded here.
      auto l = fold_scalar(lo, 0, nullptr);
      if (!l || *l != 0) return std::nullopt;
      e = fold_scalar(hi, 0, nullptr);
    }
    if (!e) return std::nullopt;
    ext = ext ? std::max(*ext, *e) : *e;
  }
  return ext;
}

// `X[k][j]` (a row read at a point) as `X[k, j]`, the only form the sweeps index through.
NodeRef Tape::flat_index(const NodeRef& e) {
  if (!e || e->kind == Kind::Lambda) return e;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : e->kids) {
    kids.push_back(flat_index(k));
    changed = changed || kids.back() != k;
  }
  NodeRef n = changed ? ir::with_kids(e, std::move(kids)) : e;
  if (changed) facts_.note_type(n->id, facts_.type(e));
  // `(X[q] * 2.0)[i]` (an elementwise argument substituted into an inlined body that reads it
  // at points): the read moves inside, `X[q, i] * 2.0`, which forward mode can differentiate.
  if (n->kind == Kind::Index) {
    Kind bk = ir::index_base(n)->kind;
    bool point = true;
    for (const NodeRef& i : ir::index_args(n)) point = point && i->kind != Kind::RangeLit;
    if (point && (bk == Kind::Binary || bk == Kind::Unary || bk == Kind::Cast || bk == Kind::Call))
      if (NodeRef at = index_elementwise(ir::index_base(n), ir::index_args(n), 0)) return flat_index(at);
  }
  if (n->kind != Kind::Index || ir::index_base(n)->kind != Kind::Index) return n;
  const NodeRef& inner = ir::index_base(n);
  std::vector<NodeRef> all = ir::kid_list(ir::index_base(inner), ir::index_args(inner));
  for (auto& k : all)
    if (k->kind == Kind::RangeLit) return n;
  for (const NodeRef& i : ir::index_args(n)) {
    if (i->kind == Kind::RangeLit) return n;
    all.push_back(i);
  }
  NodeRef m = ir::make({.kind = Kind::Index, .span = n->span, .kids = std::move(all)});
  facts_.note_type(m->id, facts_.type(e));
  return m;
}

NodeRef Tape::unrolled_let(const NodeRef& iter) {
  if (iter->kind != Kind::Name && iter->kind != Kind::Path) return nullptr;
  if (auto it = unrolled_lets_.find(iter->def); it != unrolled_lets_.end()) return it->second;
  auto v = visible_.find(iter->def);
  if (v == visible_.end() || v->second->kind != Kind::Let || ir::let_pattern(*v->second)->kind != Kind::PBind)
    return nullptr;
  const NodeRef& val = ir::let_value(*v->second);
  TypeRef t = facts_.def_type(iter->def);
  if (val->kind != Kind::Comp || !t || t->k != ir::Type::K::List) return nullptr;
  NodeRef lit = unroll_rows(val, true);
  if (!lit) return nullptr;
  lit = extract_calls(lit);
  if (lit->kind != Kind::ArrayLit) return nullptr;
  unrolled_lets_[iter->def] = lit;
  return lit;
}

NodeRef Tape::unroll_rows(const NodeRef& comp, bool nested) {
  auto clauses = ir::comp_clauses(*comp);
  if (clauses.empty() || clauses[0]->kind != Kind::CompGen) return nullptr;
  for (size_t i = 1; i < clauses.size(); ++i)
    if (clauses[i]->kind != Kind::CompLet) return nullptr;
  const NodeRef& g = clauses[0];
  const NodeRef& iter = ir::compgen_iter(*g);
  bool rows = ir::rank_of(facts_.type(iter)) >= 2;
  bool array_elems = ir::rank_of(facts_.type(comp)) >= 2;
  // Scalars over a vector: comp_entry's linear form, when the comprehension is an entry's value.
  if (!rows && !array_elems && !nested) return nullptr;
  // `[p.0 | p in parts]` over `let parts = [f(row) | row in X];` (a list of tuples, which is
  // no value the tape can hold): the rows of parts' own unrolling, taken once.
  NodeRef rows_lit = unrolled_let(iter);
  std::optional<int64_t> lo, n;
  if (rows_lit) {
    lo = 0;
    n = static_cast<int64_t>(rows_lit->kids.size());
  } else if (iter->kind == Kind::RangeLit) {
    lo = fold_scalar(ir::range_lo(*iter), 0, nullptr);
    auto hi = fold_scalar(ir::range_hi(*iter), 0, nullptr);
    if (lo && hi) n = *hi - *lo + (iter->has(ir::kInclusive) ? 1 : 0);
  } else if (ir::rank_of(facts_.type(iter)) >= 1) {
    lo = 0;
    n = fold_extent(iter, 0);
  }
  // A nested vector that cannot be unrolled stays (forward mode reports it).
  if (!rows && !array_elems && (!n || !lo || *n < 1 || *n > 256)) return nullptr;
  if (!n || !lo) unsupported("a comprehension over rows whose extent is not known at compile time", comp->span);
  unrolled_ += std::max<int64_t>(*n, 0);
  if (*n < 1 || unrolled_ > 4096)
    unsupported(*n < 1 ? "an empty comprehension over rows" : "a comprehension over too many rows to unroll",
                comp->span);
  // The generated elements carry the comprehension's type minus its leading axis.
  TypeRef elem_t = facts_.type(ir::comp_elem(*comp));
  TypeRef row_t = facts_.def_type(g->def);
  std::vector<NodeRef> elems;
  for (int64_t k = 0; k < *n; ++k) {
    Copier cp(cx_, facts_);
    NodeRef at = ir::make_int(*lo + k);
    if (rows_lit) {
      cp.subst[g->def] = ir::array_elems(rows_lit)[static_cast<size_t>(k)];

    } else if (iter->kind == Kind::RangeLit) {
      cp.subst[g->def] = at;
    } else {
      NodeRef row = ir::make({.kind = Kind::Index, .span = g->span, .kids = {iter, at}});
      facts_.note_type(row->id, row_t);
      cp.subst[g->def] = row;
    }
    for (size_t i = 1; i < clauses.size(); ++i) {
      NodeRef v = cp.copy(ir::complet_value(*clauses[i]));
      cp.subst[clauses[i]->def] = v;
    }
    NodeRef el = cp.copy(ir::comp_elem(*comp));
    if (within_) pin_node_types(ir::comp_elem(*comp), el, within_);
    el = flat_index(el);
    facts_.note_type(el->id, elem_t);
    elems.push_back(el);
  }
  NodeRef lit = ir::make({.kind = Kind::ArrayLit, .span = comp->span, .kids = std::move(elems)});
  facts_.note_type(lit->id, facts_.type(comp));
  return lit;
}

}  // namespace ein::ad
