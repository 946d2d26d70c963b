// Lowering of one derivative request `@y / @x` (a named target and parameter) into ordinary IR:
// reverse sweeps (one VJP for a scalar target, one per row of a Jacobian), forward sweeps for
// whole Jacobians with fewer parameter than target elements, lazy Jacobians read at constant
// rows or columns, and reverse sweeps shared by several requests of one scalar target.
#include "lang/passes/ad_rewrite.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

namespace {

// Number of elements of `v` (rank `r`) when shape analysis knows every extent.
std::optional<int64_t> numel(const Facts& facts, const NodeRef& v, int r) {
  int64_t n = 1;
  for (int a = 0; a < r; ++a) {
    auto e = facts.fold(irb::dim_of(v, a));
    if (!e || *e < 0) return std::nullopt;
    n *= *e;
  }
  return n;
}

// Forward mode (one tangent sweep per parameter element) for a whole Jacobian of `y` (rank ry)
// with respect to `x` (rank rx): when both sizes are known and x has fewer elements.
bool prefers_forward(const Facts& facts, const NodeRef& y, int ry, const NodeRef& x, int rx) {
  if (ry <= 0 || rx < 0) return false;
  auto ny = numel(facts, y, ry), nx = numel(facts, x, rx);
  return ny && nx && *nx < *ny;
}

NodeRef index_into(const NodeRef& base, const std::vector<NodeRef>& ix, Span span) {
  if (ix.empty()) return base;
  std::vector<NodeRef> kids{base};
  for (auto& i : ix) kids.push_back(i);
  return ir::make({.kind = Kind::Index, .span = span, .kids = std::move(kids)});
}

}  // namespace

Tape Rewriter::tape() const {
  Tape t(cx_, facts_, visible_);
  t.set_leaves(&leaves_);
  t.set_outer(&outer_);
  return t;
}

// Uses of a lazy Jacobian J = @y / @x: J[row..., rest...] computes one VJP row; shape(J) and
// len(J) need no derivative at all.
NodeRef Rewriter::lazy_use(const NodeRef& n) {
  auto lazy_of = [&](const NodeRef& x) -> const NodeRef* {
    if (x->kind != Kind::Name) return nullptr;
    auto it = lazy.find(x->def);
    return it == lazy.end() ? nullptr : &it->second;
  };
  if (n->kind == Kind::Call && ir::call_args_count(n) == 1) {
    const NodeRef* q = lazy_of(ir::call_args(n)[0]);
    auto b = builtin_of(ir::call_callee(n)->def);
    if (q && b && (*b == Builtin::Shape || *b == Builtin::Len)) {
      const NodeRef& T = quotient_of(*q);
      const NodeRef& X = quotient_by(*q);
      NodeRef tn = T->kind == Kind::Index ? ir::index_base(T) : T;
      int ry = T->kind == Kind::Index ? 0 : ir::rank_of(facts_.def_type(tn->def));
      int rx = ir::rank_of(facts_.def_type(X->def));
      std::vector<NodeRef> dims;
      for (int a = 0; a < ry; ++a) dims.push_back(irb::dim_of(tn, a));
      for (int a = 0; a < rx; ++a) dims.push_back(irb::dim_of(X, a));
      if (*b == Builtin::Len) return dims.empty() ? irb::lit(0) : dims[0];
      return ir::make({.kind = Kind::ArrayLit, .span = n->span, .kids = std::move(dims)});
    }
  }
  if (n->kind != Kind::Index) return nullptr;
  const NodeRef* q = lazy_of(ir::index_base(n));
  if (!q) return nullptr;
  const NodeRef& T = quotient_of(*q);
  int ry = ir::rank_of(facts_.def_type(T->def));
  std::vector<NodeRef> rows, rest;  // J's first ry axes are y's, the rest x's
  ir::Kids idx = ir::index_args(n);
  for (size_t i = 0; i < idx.size(); ++i)
    (static_cast<int>(i) < ry ? rows : rest).push_back(expr(idx[i]));
  bool const_rows = true;
  for (auto& r : rows) const_rows = const_rows && fold_int(cx_, cx_.cell(), r).has_value();
  if (!const_rows) return column_use(*q, n, rows, rest);
  fixed_rows_ = rows;
  NodeRef row;
  try {
    // Generated code carries the request's span: a later pass's diagnostic on it has a caret.
    row = spanned(quotient(*q), (*q)->span);
  } catch (...) {
    fixed_rows_.clear();
    throw;
  }
  fixed_rows_.clear();
  return index_into(place(row, "jacobian_row", n->span), rest, n->span);
}

// The basis tangent of x at `at` (one index expression per axis of x):
// `t_x[k..] = (k.. == at..) as x's float type`, the seed of one forward (JVP) sweep. With `at`
// empty, the all-ones tangent (the seed of a structurally independent entry, ad_indexed.cpp).
NodeRef Rewriter::basis_tangent(const NodeRef& q, const NodeRef& X, DType dtx, const std::vector<NodeRef>& at) {
  std::vector<NodeRef> slots;
  NodeRef cond;
  int rx = ir::rank_of(facts_.def_type(X->def));
  for (int a = 0; a < rx; ++a) {
    std::string nm = "k" + std::to_string(a);
    DefId d = cx_.resolver.new_def(nm, DefKind::Index, q->span);
    slots.push_back(idx_in(nm, d, irb::lit(0), irb::dim_of(X, a)));
    if (!at.empty()) cond = land(cond, eq(name(nm, d), at[static_cast<size_t>(a)]));
  }
  NodeRef ty = ir::make({.kind = Kind::TyPrim, .name = dtype_name(dtx)});
  NodeRef value = ir::make({.kind = Kind::Cast, .kids = {cond ? ifz(cond, flit(1.0), flit(0.0)) : flit(1.0), ty}});
  std::string sn = "t_" + X->name;
  DefId sd = cx_.resolver.new_def(sn, DefKind::Local, q->span);
  NodeRef sdecl = ir::make({.kind = Kind::EinDecl, .kids = ir::kid_list(value, slots), .name = sn, .def = sd});
  return ir::make({.kind = Kind::EinGroup, .kids = {sdecl}, .name = sn, .def = sd});
}

// `J[i.., c..]` with the row indices free and the parameter indices constant: the column c of
// J, one forward (JVP) sweep seeded with the basis tangent e_c, computed once (so a clause over
// i reads one tensor instead of sweeping per point). Without a forward rule the whole Jacobian
// is computed instead.
NodeRef Rewriter::column_use(const NodeRef& q, const NodeRef& use, const std::vector<NodeRef>& rows,
                             const std::vector<NodeRef>& cols) {
  const NodeRef& T = quotient_of(q);
  const NodeRef& X = quotient_by(q);
  auto whole = [&]() {
    std::vector<NodeRef> all = rows;
    for (auto& c : cols) all.push_back(c);
    return index_into(place(spanned(quotient(q), q->span), "jacobian_whole", q->span), all, use->span);
  };
  int rx = X->kind == Kind::Name && X->def.valid() ? ir::rank_of(facts_.def_type(X->def)) : -1;
  if (T->kind != Kind::Name || rx < 0 || static_cast<int>(cols.size()) != rx) return whole();
  auto dty = facts_.float_dtype_of_def(T->def);
  auto dtx = facts_.float_dtype_of_def(X->def);
  if (!dty || !dtx) return whole();
  try {
    Tape tp = tape();
    if (!tp.build(T->def, X->def)) return whole();
    NodeRef seed = flit(1.0);
    std::vector<NodeRef> stmts;
    if (rx > 0) {
      stmts.push_back(basis_tangent(q, X, *dtx, cols));
      seed = name(stmts.back()->name, stmts.back()->def);
    }
    Tangents t = forward_sweep(cx_, facts_, tp, T->def, X->def, seed);
    for (auto& st : t.stmts) stmts.push_back(st);
    NodeRef col = place(spanned(block(std::move(stmts), t.result), q->span), "jacobian_col", q->span);
    return index_into(col, rows, use->span);
  } catch (const Unsupported&) {
    return whole();
  }
}

// A standalone `@y`: its symbolic form, as a string value.
NodeRef Rewriter::differential(const NodeRef& n) {
  const NodeRef& y = ir::diff_expr(n);
  if (y->kind != Kind::Name || !y->def.valid()) {
    cx_.error("E013", "a differential needs a named binding", n->span, "not a binding name",
              "bind the expression first: `let y = ...;` then `@y`");
    return n;
  }
  NodeRef stmt;
  if (auto it = visible_.find(y->def); it != visible_.end()) stmt = it->second;
  else if (cx_.persist && cx_.persist->defs.count(y->def)) stmt = cx_.persist->defs[y->def].stmt;
  std::string s = "@" + y->name;
  try {
    if (stmt && !(stmt->kind == Kind::Let && ir::let_pattern(*stmt)->kind != Kind::PBind))
      s = symbolic_differential(cx_, facts_, y->name, stmt);
  } catch (const Unsupported& u) {
    cx_.error("E013", "cannot differentiate through " + u.what, u.span.valid() ? u.span : n->span);
    return n;
  }
  return ir::make_str(s, n->span);
}

bool Rewriter::checked_param(const NodeRef& q, const NodeRef& X) {
  if (X->kind != Kind::Name || !X->def.valid()) {
    cx_.error("E013", "the parameter of a derivative must be a named binding", ir::bin_rhs(q)->span,
              "not a binding name", "bind the value first: `let v = ...;` then `@y / @v`");
    return false;
  }
  DefKind xk = cx_.resolver.info(X->def).kind;
  if (xk != DefKind::Global && xk != DefKind::Local && xk != DefKind::Const && xk != DefKind::Param &&
      xk != DefKind::Index) {
    cx_.error("E013", "cannot differentiate with respect to `" + X->name + "`", X->span, "not a value binding");
    return false;
  }
  return true;
}

NodeRef Rewriter::quotient(const NodeRef& q) {
  const NodeRef& T = quotient_of(q);
  const NodeRef& X = quotient_by(q);
  if (X->kind == Kind::Index || (T->kind == Kind::Index && fixed_rows_.empty())) return indexed(q);
  if (!checked_param(q, X)) return q;
  if (T->kind != Kind::Name || !T->def.valid()) {
    cx_.error("E013", "the target of a derivative must be a named binding", ir::bin_lhs(q)->span,
              "not a binding name", "bind the expression first: `let y = ...;` then `@y / @x`");
    return q;
  }
  try {
    if (fixed_rows_.empty())
      if (NodeRef r = shared(T->def, X)) return r;
    return build(q, T, T->def, T->name, X, nullptr);
  } catch (const Unsupported& u) {
    return not_differentiable(q, u);
  }
}

NodeRef Rewriter::not_differentiable(const NodeRef& q, const Unsupported& u) {
  Diagnostic d = make_diag("E013", "cannot differentiate through " + u.what, u.span.valid() ? u.span : q->span,
                           "not differentiable here");
  if (u.span.valid() && u.span.file == q->span.file) d.secondary.push_back(Label{q->span, "in this derivative"});
  cx_.diags.report(std::move(d));
  return q;
}


NodeRef Rewriter::build(const NodeRef& q, const NodeRef& T, DefId target, const std::string& tname,
                        const NodeRef& X, const NodeRef& synthetic) {
  TypeRef ty = synthetic ? facts_.type(T) : facts_.def_type(target);
  TypeRef tx = facts_.def_type(X->def);
  int ry = ir::rank_of(ty), rx = ir::rank_of(tx);
  if (ry < 0 || rx < 0) unsupported("a value of unknown rank", q->span);
  auto dty = synthetic ? facts_.float_dtype(T) : facts_.float_dtype_of_def(target);
  auto dtx = facts_.float_dtype_of_def(X->def);
  // A zero derivative needs a proof (a known integer or bool type), never a missing fact.
  for (const TypeRef& t : {ty, tx}) {
    TypeRef el = ir::elem_of(t);
    if (el && el->k == ir::Type::K::Scalar) continue;
    // A target computed from a value typed only at run time: the tape stops at that value,
    // which is the place to annotate (`load_npy(..) as [f64; ?]`), not the request.
    if (t == ty && dtx && !synthetic) (void)tape().build(target, X->def);
    unsupported("a value whose type is not known here", q->span);
  }
  DType dt = dty.value_or(dtx.value_or(DType::F32));
  // The request on one tape; `pre` goes in front of its statements.
  auto lower = [&](Tape& tp, std::vector<NodeRef> pre) -> NodeRef {
    if (synthetic) tp.add_visible(target, synthetic);
    bool active = dty && dtx && tp.build(target, X->def);
    if (!active) return zeros(q, tname, target, ry, X, rx, dt, pre);
    if (ry == 0 && rx == 0 && fixed_rows_.empty() && tangent_first(target, X, tp)) {
      try {
        Tangents t = forward_sweep(cx_, facts_, tp, target, X->def, flit(1.0));
        for (auto& s : t.stmts) pre.push_back(s);
        return with_span(block(std::move(pre), t.result), q->span);
      } catch (const Unsupported&) {
        // no forward rule for a construct: the reverse sweep below
      }
    }
    if (ry == 0) {
      Sweep s = reverse_sweep(cx_, facts_, tp, target, X->def, X->name, rx, dt, nullptr);
      for (auto& p : pre) s.stmts.insert(s.stmts.begin(), p);
      return with_span(block(std::move(s.stmts), s.result), q->span);
    }
    if (!fixed_rows_.empty()) {
      // A lazy Jacobian indexed at one output point: only that row is computed (one VJP).
      std::vector<NodeRef> rows = fixed_rows_;
      auto seed = [&](const std::vector<NodeRef>& m) {
        NodeRef cond;
        for (size_t a = 0; a < m.size() && a < rows.size(); ++a) cond = land(cond, eq(m[a], rows[a]));
        return ifz(cond, flit(1.0), flit(0.0));
      };
      Sweep s = reverse_sweep(cx_, facts_, tp, target, X->def, X->name, rx, dt, seed);
      for (auto& p : pre) s.stmts.insert(s.stmts.begin(), p);
      return with_span(block(std::move(s.stmts), s.result), q->span);
    }
    // The sweeps below stand inside a declaration (one per row or column): their run-time
    // branches would need tests per row.
    if (!tp.decisions().empty()) unsupported("a whole Jacobian through a branch on a value known only at run time", q->span);
    if (NodeRef r = jvp(q, target, tname, X, ry, rx, tp, pre)) return r;
    return rows_jacobian(q, target, tname, X, ry, rx, dt, tp, std::move(pre));
  };
  std::vector<NodeRef> pre;
  if (synthetic) pre.push_back(synthetic);
  Tape tp = tape();
  try {
    return lower(tp, pre);
  } catch (const Unsupported& plain) {
    // Only a request the plain tape refuses is tried again with its run-time branches decided
    // (ad_variants.cpp): every request that lowered before lowers the same way.
    try {
      int budget = kMaxVariants;
      NodeRef v = variants([&](Tape& t) { return lower(t, {}); }, {}, budget, q->span);
      return pre.empty() ? v : with_span(block(std::move(pre), v), q->span);
    } catch (const Unsupported&) {
      throw plain;
    }
  }
}

// A tensor target: one VJP per output point, seeded with the basis cotangent there.
NodeRef Rewriter::rows_jacobian(const NodeRef& q, DefId target, const std::string& tname, const NodeRef& X,
                                int ry, int rx, DType dt, const Tape& tp, std::vector<NodeRef> pre) {
  std::vector<NodeRef> rows, row_slots;
  for (int a = 0; a < ry; ++a) {
    std::string nm = "i" + std::to_string(a);
    DefId d = cx_.resolver.new_def(nm, DefKind::Index, q->span);
    rows.push_back(name(nm, d));
    row_slots.push_back(idx_in(nm, d, irb::lit(0), irb::dim_of(name(tname, target), a)));
  }
  auto seed = [&](const std::vector<NodeRef>& m) {
    NodeRef cond;
    for (size_t a = 0; a < m.size(); ++a) cond = land(cond, eq(m[a], rows[a]));
    return ifz(cond, flit(1.0), flit(0.0));
  };
  Sweep s = reverse_sweep(cx_, facts_, tp, target, X->def, X->name, rx, dt, seed);
  NodeRef row_value = block(std::move(s.stmts), s.result);
  DefId j = cx_.resolver.new_def("jacobian", DefKind::Local, q->span);
  std::vector<NodeRef> kids{row_value};
  for (auto& r : row_slots) kids.push_back(r);
  NodeRef decl = ir::make({.kind = Kind::EinDecl, .span = q->span, .kids = std::move(kids), .name = "jacobian", .def = j});
  pre.push_back(ir::make({.kind = Kind::EinGroup, .span = q->span, .kids = {decl}, .name = "jacobian", .def = j}));
  return with_span(block(std::move(pre), name("jacobian", j)), q->span);
}

// The whole Jacobian by forward mode (see prefers_forward): for a scalar x it is the target's
// tangent; otherwise the columns `cols[j..] = { t_x = e_j; tangents...; t_y }` transposed to
// shape(y) ++ shape(x). nullptr when not preferred or a construct has no forward rule.
NodeRef Rewriter::jvp(const NodeRef& q, DefId target, const std::string& tname, const NodeRef& X, int ry,
                      int rx, const Tape& tp, std::vector<NodeRef> pre) {
  if (!prefers_forward(facts_, name(tname, target), ry, X, rx)) return nullptr;
  auto dtx = facts_.float_dtype_of_def(X->def);
  if (!dtx) return nullptr;
  try {
    if (rx == 0) {
      Tangents t = forward_sweep(cx_, facts_, tp, target, X->def, flit(1.0));
      for (auto& s : t.stmts) pre.push_back(s);
      return with_span(block(std::move(pre), t.result), q->span);
    }
    auto vars = [&](const std::string& p, int n, const std::function<NodeRef(int)>& ext,
                    std::vector<NodeRef>& names, std::vector<NodeRef>& slots) {
      for (int a = 0; a < n; ++a) {
        std::string nm = p + std::to_string(a);
        DefId d = cx_.resolver.new_def(nm, DefKind::Index, q->span);
        names.push_back(name(nm, d));
        slots.push_back(idx_in(nm, d, irb::lit(0), ext(a)));
      }
    };
    auto xdim = [&](int a) { return irb::dim_of(X, a); };
    auto ydim = [&](int a) { return irb::dim_of(name(tname, target), a); };
    // The seed: the basis tangent e_j of x for column j.
    std::vector<NodeRef> cj, cslots;
    vars("c", rx, xdim, cj, cslots);
    NodeRef sgroup = basis_tangent(q, X, *dtx, cj);
    Tangents t = forward_sweep(cx_, facts_, tp, target, X->def, name(sgroup->name, sgroup->def));
    t.stmts.insert(t.stmts.begin(), sgroup);
    DefId cd = cx_.resolver.new_def("jacobian_cols", DefKind::Local, q->span);
    std::vector<NodeRef> ckids{block(std::move(t.stmts), t.result)};
    for (auto& s : cslots) ckids.push_back(s);
    NodeRef cdecl = ir::make({.kind = Kind::EinDecl, .span = q->span, .kids = std::move(ckids), .name = "jacobian_cols", .def = cd});
    pre.push_back(ir::make({.kind = Kind::EinGroup, .span = q->span, .kids = {cdecl}, .name = "jacobian_cols", .def = cd}));
    // jacobian[i.., j..] = jacobian_cols[j.., i..]
    std::vector<NodeRef> i, islots, j, jslots;
    vars("i", ry, ydim, i, islots);
    vars("j", rx, xdim, j, jslots);
    std::vector<NodeRef> read{name("jacobian_cols", cd)};
    for (auto& v : j) read.push_back(v);
    for (auto& v : i) read.push_back(v);
    std::vector<NodeRef> jkids{ir::make({.kind = Kind::Index, .kids = std::move(read)})};
    for (auto& s : islots) jkids.push_back(s);
    for (auto& s : jslots) jkids.push_back(s);
    DefId jd = cx_.resolver.new_def("jacobian", DefKind::Local, q->span);
    NodeRef jdecl = ir::make({.kind = Kind::EinDecl, .span = q->span, .kids = std::move(jkids), .name = "jacobian", .def = jd});
    pre.push_back(ir::make({.kind = Kind::EinGroup, .span = q->span, .kids = {jdecl}, .name = "jacobian", .def = jd}));
    return with_span(block(std::move(pre), name("jacobian", jd)), q->span);
  } catch (const Unsupported&) {
    return nullptr;  // the reverse sweep handles it (or reports it)
  }
}

// Several requests of one scalar target in one statement list (`@loss / @W1`, `@loss / @W2`)
// share one reverse sweep (thesis §6.4: shared bars): its statements are placed once, before the
// first request, and every request reads its parameter's adjoint.
bool Rewriter::recurrent(DefId d) const {
  NodeRef stmt;
  if (auto it = visible_.find(d); it != visible_.end()) stmt = it->second;
  else if (cx_.persist && cx_.persist->defs.count(d)) stmt = cx_.persist->defs.at(d).stmt;
  if (!stmt || stmt->kind != Kind::EinGroup) return false;
  bool reads = false;
  for (const NodeRef& decl : stmt->kids)
    if (decl && decl->kind == Kind::EinDecl && !decl->kids.empty())
      reads = reads || ir::mentions(decl->kids[0], d);
  return reads;
}

NodeRef Rewriter::shared(DefId target, const NodeRef& X) {
  for (size_t l = levels_.size(); l-- > 0;) {
    auto& m = levels_[l].shared;
    if (auto t = m.find(target); t != m.end()) {
      auto it = t->second.find(X->def);
      if (it != t->second.end()) return ir::fresh_copy(it->second);
    }
  }
  if (levels_.empty() || ir::rank_of(facts_.def_type(target)) != 0 || !facts_.float_dtype_of_def(target))
    return nullptr;
  // Scalar parameters through a long recurrence take forward tangents (tangent_first): left
  // out of the shared reverse sweep, whose steps then need not read the primal for them.
  auto forward = [&](const NodeRef& w) {
    if (ir::rank_of(facts_.def_type(w->def)) != 0) return false;
    Tape t = tape();
    try {
      return t.build(target, w->def) && tangent_first(target, w, t);
    } catch (const Unsupported&) {
      return false;  // the request alone reports it
    }
  };
  if (forward(X)) return nullptr;
  // A recurrence as a parameter is differentiated by its stored values (SPEC 7; a request of
  // its own stops the sweep at it). In a shared sweep it would also be an interior node whose
  // adjoint runs through its own steps: the total derivative, a different number depending on
  // which other requests the scope holds.
  if (recurrent(X->def)) return nullptr;
  std::vector<NodeRef> wrts;
  std::unordered_set<DefId> seen;
  // A parameter bound after the current statement (`a` rebound between two requests) does not
  // exist where the shared sweep is placed: its request is lowered on its own.
  for (auto& s : levels_.back().remaining)
    ir::for_each_node(s, [&](const NodeRef& n) {
      if (n->kind == Kind::PBind || n->kind == Kind::EinGroup) seen.insert(n->def);
    });
  if (seen.count(X->def)) return nullptr;
  for (auto& s : levels_.back().remaining)
    ir::for_each_node(s, [&](const NodeRef& n) {
      if (!is_quotient(n) || quotient_of(n)->kind != Kind::Name || quotient_of(n)->def != target ||
          quotient_by(n)->kind != Kind::Name)
        return;
      const NodeRef& w = quotient_by(n);

      if (facts_.float_dtype_of_def(w->def) && ir::rank_of(facts_.def_type(w->def)) >= 0 &&
          level_of_def(w->def) < levels_.size() && seen.insert(w->def).second && !forward(w) &&
          !recurrent(w->def))
        wrts.push_back(w);
    });
  if (wrts.size() < 2 || !seen.count(X->def)) return nullptr;
  std::vector<DefId> defs;
  std::vector<Leaf> leaves;
  for (auto& w : wrts) {
    defs.push_back(w->def);
    leaves.push_back(Leaf{w->def, w->name, ir::rank_of(facts_.def_type(w->def)), *facts_.float_dtype_of_def(w->def)});
  }
  Tape tp = tape();
  Sweep s;
  try {
    if (!tp.build(target, defs)) return nullptr;
    s = reverse_sweep(cx_, facts_, tp, target, leaves, nullptr);
  } catch (const Unsupported&) {
    return shared_variants(target, wrts, defs, leaves);
  }
  size_t l = hoist_level(block(s.stmts, flit(0.0)));
  if (l >= levels_.size()) return nullptr;
  for (auto& st : s.stmts) levels_[l].prelude.push_back(st);
  auto& res = levels_[l].shared[target];
  for (size_t i = 0; i < wrts.size(); ++i) res[wrts[i]->def] = s.results[i];
  return ir::fresh_copy(res[X->def]);
}

// Whether `v` is affine in the reads of `d` (sums, differences and products by factors not
// reading d): then the adjoint of a step reads no row of d.
static bool affine_in(const NodeRef& v, DefId d) {
  auto reads = [&](const NodeRef& n) {
    bool hit = false;
    ir::for_each_node(n, [&](const NodeRef& x) { hit = hit || ((x->kind == Kind::Name || x->kind == Kind::Path) && x->def == d); });
    return hit;
  };
  if (!reads(v)) return true;
  if (v->kind == Kind::Index && (ir::index_base(*v)->kind == Kind::Name || ir::index_base(*v)->kind == Kind::Path) &&
      ir::index_base(*v)->def == d) {
    for (size_t i = 1; i < v->kids.size(); ++i)
      if (reads(v->kids[i])) return false;
    return true;
  }
  if (v->kind == Kind::Unary && static_cast<ir::UnOp>(v->ival) == ir::UnOp::Neg) return affine_in(v->kids[0], d);
  if (v->kind != Kind::Binary) return false;
  auto op = static_cast<ir::BinOp>(v->ival);
  const NodeRef &a = ir::bin_lhs(*v), &b = ir::bin_rhs(*v);
  if (op == ir::BinOp::Add || op == ir::BinOp::Sub) return affine_in(a, d) && affine_in(b, d);
  if (op == ir::BinOp::Mul) return reads(a) ? !reads(b) && affine_in(a, d) : affine_in(b, d);
  return false;
}

// A scalar parameter x of a scalar target through a long recurrence (an active definition
// reading its own earlier rows, of at least kTangentPoints points): forward mode, one tangent
// beside each active definition, instead of a term per step of the reverse sweep. Those terms
// need every row of the primal during the reverse sweep (stored, or recomputed from
// checkpoints), while a tangent recurrence only reads the primal's previous rows as they are
// made: the checkpoint pass runs both time loops in one (lang/passes/checkpoint.h) and the
// primal keeps its window (the 10^3 x 10^4 heat stencil's `@loss / @k`: 4 sweeps over the
// rows, and 160 MiB stored or 10 MiB of checkpoints, become 2 and a 2-row window). Each such
// parameter costs one more sweep, so only up to kTangentParams of them per target. Rows of at
// least kTangentRow points: a scalar chain's tangent runs as a second latency-bound chain after
// each block of the primal's (the two do not interleave), while its reverse terms are one
// vectorised pass over a block of stored rows in cache (10^6 steps: 3.4 against 3.7 primals).
// f64 recurrences only: a tangent accumulates in the state's type, and an f32 tangent of a slowly
// decaying step settles where its roundings balance, eps / (1 - w) away (h[t, i] = w h[t - 1, i]
// + 0.001 x[i], w = 0.999, 10^6 steps: 5999.8145 against 6000.0777 exact; the reverse terms,
// summed in f64, give 6000.0796).
bool Rewriter::tangent_first(DefId target, const NodeRef& X, const Tape& tp) const {
  constexpr int64_t kTangentPoints = int64_t{1} << 16, kTangentRow = 64, kTangentParams = 2;
  if (!facts_.float_dtype_of_def(X->def) || ir::rank_of(facts_.def_type(X->def)) != 0) return false;
  bool long_recurrence = false;
  for (const Entry& e : tp.entries()) {
    if (e.rank < 1 || e.def == X->def) continue;
    bool self = false, linear = true;
    for (const Clause& c : e.clauses) {
      ir::for_each_node(c.value, [&](const NodeRef& n) {
        self = self || ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == e.def);
      });
      linear = linear && affine_in(c.value, e.def);
    }
    // A step nonlinear in its own rows has a reverse sweep that reads them anyway (checkpointed
    // with the terms beside it): no tangent then.
    if (self && !linear) return false;
    auto points = numel(facts_, name(e.name, e.def), e.rank);
    auto steps = facts_.fold(irb::dim_of(name(e.name, e.def), 0));
    long_recurrence = long_recurrence || (self && e.dt == DType::F64 && points && steps && *steps > 0 &&
                                          *points >= kTangentPoints && *points / *steps >= kTangentRow);
  }
  if (!long_recurrence || levels_.empty()) return long_recurrence;
  std::unordered_set<DefId> scalars;
  for (auto& s : levels_.back().remaining)
    ir::for_each_node(s, [&](const NodeRef& n) {
      if (is_quotient(n) && quotient_of(n)->kind == Kind::Name && quotient_of(n)->def == target &&
          quotient_by(n)->kind == Kind::Name && ir::rank_of(facts_.def_type(quotient_by(n)->def)) == 0)
        scalars.insert(quotient_by(n)->def);
    });
  return static_cast<int64_t>(scalars.size()) <= kTangentParams;
}

// ∂y/∂x = 0 with the right shape and type (y does not depend on x, or is not a float).
NodeRef Rewriter::zeros(const NodeRef& q, const std::string& tname, DefId target, int ry, const NodeRef& X,
                        int rx, DType dt, std::vector<NodeRef> pre) {
  // A row J[r..] of a lazy Jacobian has the shape of the remaining axes only.
  int first = std::min(ry, static_cast<int>(fixed_rows_.size()));
  if (ry - first == 0 && rx == 0) return with_span(block(std::move(pre), zero_of(dt)), q->span);
  std::vector<NodeRef> kids{zero_of(dt)};
  for (int a = first; a < ry + rx; ++a) {
    std::string nm = "z" + std::to_string(a);
    DefId d = cx_.resolver.new_def(nm, DefKind::Index, q->span);
    NodeRef ext = a < ry ? irb::dim_of(name(tname, target), a) : irb::dim_of(X, a - ry);
    kids.push_back(idx_in(nm, d, irb::lit(0), ext));
  }
  DefId z = cx_.resolver.new_def("zero", DefKind::Local, q->span);
  NodeRef decl = ir::make({.kind = Kind::EinDecl, .span = q->span, .kids = std::move(kids), .name = "zero", .def = z});
  pre.push_back(ir::make({.kind = Kind::EinGroup, .span = q->span, .kids = {decl}, .name = "zero", .def = z}));
  return with_span(block(std::move(pre), name("zero", z)), q->span);
}

}  // namespace ein::ad
