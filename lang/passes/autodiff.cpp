#include "lang/passes/autodiff.h"

#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/resolve/builtins.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
using namespace ad;

namespace {

// `@` nodes outside derivative rules (`@fn` bodies use `@x` for the incoming tangent).
bool has_diff(const NodeRef& n) {
  if (!n || n->kind == Kind::DiffFn) return false;
  if (n->kind == Kind::Diff) return true;
  for (auto& k : n->kids)
    if (has_diff(k)) return true;
  return false;
}

bool is_quotient(const NodeRef& n) {
  return n->kind == Kind::Binary && static_cast<ir::BinOp>(n->ival) == ir::BinOp::Div &&
         n->kids[0]->kind == Kind::Diff && n->kids[1]->kind == Kind::Diff;
}

// Number of elements of `v` (rank `r`) when shape analysis knows every extent.
std::optional<int64_t> numel(CompileCtx& cx, const NodeRef& v, int r) {
  int64_t n = 1;
  for (int a = 0; a < r; ++a) {
    auto e = fold_int(cx, cx.cell(), irb::dim_of(v, a));
    if (!e || *e < 0) return std::nullopt;
    n *= *e;
  }
  return n;
}

// Forward mode (one tangent sweep per parameter element) for a whole Jacobian of `y` (rank ry)
// with respect to `x` (rank rx): when both sizes are known and x has fewer elements.
bool prefers_forward(CompileCtx& cx, const NodeRef& y, int ry, const NodeRef& x, int rx) {
  if (ry <= 0 || rx < 0) return false;
  auto ny = numel(cx, y, ry), nx = numel(cx, x, rx);
  return ny && nx && *nx < *ny;
}

class Rewriter {
 public:
  Rewriter(CompileCtx& cx, Facts& facts) : cx_(cx), facts_(facts) {}
  std::unordered_map<DefId, NodeRef> visible;

  std::unordered_map<DefId, NodeRef> lazy;  // Jacobian bindings never observed whole

  NodeRef rewrite(const NodeRef& n) {
    if (!n || n->kind == Kind::DiffFn || n->kind == Kind::Fn) return n;
    if (NodeRef r = lazy_use(n)) return r;
    if (n->kind == Kind::Lambda) {
      if (has_diff(n))
        cx_.error("E013", "derivative requests inside closures are not supported", n->span);
      return n;
    }
    if (is_quotient(n)) return quotient(n);
    if (n->kind == Kind::Diff) return differential(n);
    std::vector<NodeRef> kids;
    for (auto& k : n->kids) kids.push_back(rewrite(k));
    return ir::with_kids(n, std::move(kids));
  }

 private:
  // Uses of a lazy Jacobian J = @y / @x: J[row..., rest...] computes one VJP row; shape(J) and
  // len(J) need no derivative at all.
  NodeRef lazy_use(const NodeRef& n) {
    if (lazy.empty()) return nullptr;
    auto lazy_of = [&](const NodeRef& x) -> const NodeRef* {
      if (x->kind != Kind::Name) return nullptr;
      auto it = lazy.find(x->def);
      return it == lazy.end() ? nullptr : &it->second;
    };
    if (n->kind == Kind::Call && n->kids.size() == 2) {
      const NodeRef* q = lazy_of(n->kids[1]);
      auto b = builtin_of(n->kids[0]->def);
      if (q && b && (*b == Builtin::Shape || *b == Builtin::Len)) {
        const NodeRef& T = (*q)->kids[0]->kids[0];
        const NodeRef& X = (*q)->kids[1]->kids[0];
        NodeRef tn = T->kind == Kind::Index ? T->kids[0] : T;
        int ry = T->kind == Kind::Index ? 0 : ir::rank_of(facts_.def_type(tn->def));
        int rx = ir::rank_of(facts_.def_type(X->def));
        std::vector<NodeRef> dims;
        for (int a = 0; a < ry; ++a) dims.push_back(irb::dim_of(tn, a));
        for (int a = 0; a < rx; ++a) dims.push_back(irb::dim_of(X, a));
        if (*b == Builtin::Len) return dims.empty() ? irb::lit(0) : dims[0];
        return ir::make({.kind = Kind::ArrayLit, .span = n->span, .kids = std::move(dims)});
      }
    }
    if (n->kind == Kind::Index) {
      const NodeRef* q = lazy_of(n->kids[0]);
      if (!q) return nullptr;
      const NodeRef& T = (*q)->kids[0]->kids[0];
      int ry = ir::rank_of(facts_.def_type(T->def));
      std::vector<NodeRef> rows, rest;
      for (size_t i = 1; i < n->kids.size(); ++i)
        (static_cast<int>(i) <= ry ? rows : rest).push_back(rewrite(n->kids[i]));
      bool const_rows = true;
      for (auto& r : rows) const_rows = const_rows && fold_int(cx_, cx_.cell(), r).has_value();
      if (!const_rows) return column_use(*q, n, rows, rest);
      fixed_rows_ = rows;
      NodeRef row = quotient(*q);
      fixed_rows_.clear();
      if (rest.empty()) return row;
      std::vector<NodeRef> kids{row};
      for (auto& r : rest) kids.push_back(r);
      return ir::make({.kind = Kind::Index, .span = n->span, .kids = std::move(kids)});
    }
    return nullptr;
  }

  // The basis tangent of x at `at` (one index expression per axis of x):
  // `t_x[k..] = (k.. == at..) as x's float type`, the seed of one forward (JVP) sweep.
  NodeRef basis_tangent(const NodeRef& q, const NodeRef& X, DType dtx, const std::vector<NodeRef>& at) {
    std::vector<NodeRef> skids{nullptr};
    NodeRef cond;
    for (size_t a = 0; a < at.size(); ++a) {
      std::string nm = "k" + std::to_string(a);
      DefId d = cx_.resolver.new_def(nm, DefKind::Index, q->span);
      skids.push_back(idx_in(nm, d, irb::lit(0), irb::dim_of(X, static_cast<int>(a))));
      cond = land(cond, eq(name(nm, d), at[a]));
    }
    NodeRef ty = ir::make({.kind = Kind::TyPrim, .name = dtype_name(dtx)});
    skids[0] = ir::make({.kind = Kind::Cast, .kids = {ifz(cond, flit(1.0), flit(0.0)), ty}});
    std::string sn = "t_" + X->name;
    DefId sd = cx_.resolver.new_def(sn, DefKind::Local, q->span);
    NodeRef sdecl = ir::make({.kind = Kind::EinDecl, .kids = std::move(skids), .name = sn, .def = sd});
    return ir::make({.kind = Kind::EinGroup, .kids = {sdecl}, .name = sn, .def = sd});
  }

  // `J[i.., c..]` with the row indices free and the parameter indices constant: the column c of
  // J, one forward (JVP) sweep seeded with the basis tangent e_c, placed before the statement
  // (so a clause over i reads one tensor instead of sweeping per point). Without a forward rule
  // the whole Jacobian is computed there instead.
  NodeRef column_use(const NodeRef& q, const NodeRef& use, const std::vector<NodeRef>& rows,
                     const std::vector<NodeRef>& cols) {
    const NodeRef& T = q->kids[0]->kids[0];
    const NodeRef& X = q->kids[1]->kids[0];
    auto index_into = [&](const NodeRef& base, const std::vector<NodeRef>& ix) {
      std::vector<NodeRef> kids{base};
      for (auto& i : ix) kids.push_back(i);
      return ir::make({.kind = Kind::Index, .span = use->span, .kids = std::move(kids)});
    };
    auto whole = [&]() {
      DefId d = cx_.resolver.new_def("jacobian_whole", DefKind::Local, q->span);
      prelude.push_back(let_stmt("jacobian_whole", d, quotient(q)));
      std::vector<NodeRef> all = rows;
      for (auto& c : cols) all.push_back(c);
      return index_into(name("jacobian_whole", d), all);
    };
    int rx = X->kind == Kind::Name && X->def.valid() ? ir::rank_of(facts_.def_type(X->def)) : -1;
    if (T->kind != Kind::Name || rx < 0 || static_cast<int>(cols.size()) != rx) return whole();
    auto dty = facts_.float_dtype_of_def(T->def);
    auto dtx = facts_.float_dtype_of_def(X->def);
    if (!dty || !dtx) return whole();
    try {
      Tape tape(cx_, facts_, visible);
      if (!tape.build(T->def, X->def)) return whole();
      NodeRef seed = flit(1.0);
      std::vector<NodeRef> seed_stmts;
      if (rx > 0) {
        seed_stmts.push_back(basis_tangent(q, X, *dtx, cols));
        seed = name(seed_stmts.back()->name, seed_stmts.back()->def);
      }
      Tangents t = forward_sweep(cx_, facts_, tape, T->def, X->def, seed);
      DefId cd = cx_.resolver.new_def("jacobian_col", DefKind::Local, q->span);
      std::vector<NodeRef> stmts = seed_stmts;
      for (auto& st : t.stmts) stmts.push_back(st);
      prelude.push_back(let_stmt("jacobian_col", cd, with_span(block(std::move(stmts), t.result), q->span)));
      return index_into(name("jacobian_col", cd), rows);
    } catch (const Unsupported&) {
      return whole();
    }
  }

  // A standalone `@y`: its symbolic form, as a string value.
  NodeRef differential(const NodeRef& n) {
    const NodeRef& y = n->kids[0];
    if (y->kind != Kind::Name || !y->def.valid()) {
      cx_.error("E013", "a differential needs a named binding", n->span, "not a binding name",
                "bind the expression first: `let y = ...;` then `@y`");
      return n;
    }
    NodeRef stmt;
    if (auto it = visible.find(y->def); it != visible.end()) stmt = it->second;
    else if (cx_.persist && cx_.persist->defs.count(y->def)) stmt = cx_.persist->defs[y->def].stmt;
    std::string s = "@" + y->name;
    try {
      if (stmt) s = symbolic_differential(cx_, facts_, y->name, stmt);
    } catch (const Unsupported& u) {
      cx_.error("E013", "cannot differentiate through " + u.what, u.span.valid() ? u.span : n->span);
      return n;
    }
    return ir::make_str(s, n->span);
  }

  NodeRef quotient(const NodeRef& q) {
    const NodeRef& T = q->kids[0]->kids[0];
    const NodeRef& X = q->kids[1]->kids[0];
    if (X->kind != Kind::Name || !X->def.valid()) {
      cx_.error("E013", "the parameter of a derivative must be a named binding", q->kids[1]->span,
                "not a binding name", "bind the value first: `let v = ...;` then `@y / @v`");
      return q;
    }
    DefKind xk = cx_.resolver.info(X->def).kind;
    if (xk != DefKind::Global && xk != DefKind::Local && xk != DefKind::Const) {
      cx_.error("E013", "cannot differentiate with respect to `" + X->name + "`", X->span,
                "not a value binding");
      return q;
    }
    NodeRef synthetic;
    DefId target;
    std::string target_name;
    if (T->kind == Kind::Name && T->def.valid()) {
      target = T->def;
      target_name = T->name;
    } else if (T->kind == Kind::Index && T->kids[0]->kind == Kind::Name) {
      // `@h[t] / @x`: the derivative of one point, a scalar target.
      target_name = T->kids[0]->name + "_pt";
      target = cx_.resolver.new_def(target_name, DefKind::Local, T->span);
      facts_.note_type(T->id, facts_.type(T));
      facts_.note_def_type(target, facts_.type(T));
      synthetic = let_stmt(target_name, target, T);
    } else {
      cx_.error("E013", "the target of a derivative must be a named binding", q->kids[0]->span,
                "not a binding name", "bind the expression first: `let y = ...;` then `@y / @x`");
      return q;
    }
    try {
      if (!synthetic && fixed_rows_.empty())
        if (NodeRef r = shared(q, target, target_name, X)) return r;
      return build(q, T, target, target_name, X, synthetic);
    } catch (const Unsupported& u) {
      Diagnostic d = make_diag("E013", "cannot differentiate through " + u.what,
                               u.span.valid() ? u.span : q->span, "not differentiable here");
      if (u.span.valid() && u.span.file == q->span.file) d.secondary.push_back(Label{q->span, "in this derivative"});
      cx_.diags.report(std::move(d));
      return q;
    }
  }

  NodeRef build(const NodeRef& q, const NodeRef& T, DefId target, const std::string& tname,
                const NodeRef& X, const NodeRef& synthetic) {
    TypeRef ty = synthetic ? facts_.type(T) : facts_.def_type(target);
    TypeRef tx = facts_.def_type(X->def);
    int ry = ir::rank_of(ty), rx = ir::rank_of(tx);
    if (ry < 0 || rx < 0) unsupported("a value of unknown rank", q->span);
    auto dty = synthetic ? facts_.float_dtype(T) : facts_.float_dtype_of_def(target);
    auto dtx = facts_.float_dtype_of_def(X->def);
    DType dt = dty.value_or(dtx.value_or(DType::F32));
    std::vector<NodeRef> pre;
    if (synthetic) pre.push_back(synthetic);
    Tape tape(cx_, facts_, visible);
    if (synthetic) tape.add_visible(target, synthetic);
    bool active = dty && dtx && tape.build(target, X->def);
    if (!active) return zeros(q, tname, target, ry, X, rx, dt, pre);
    if (ry == 0) {
      Sweep s = reverse_sweep(cx_, facts_, tape, target, X->def, X->name, rx, dt, nullptr);
      for (auto& p : pre) s.stmts.insert(s.stmts.begin(), p);
      return with_span(block(std::move(s.stmts), s.result), q->span);
    }
    if (fixed_rows_.empty())
      if (NodeRef r = jvp(q, target, tname, X, ry, rx, tape, pre)) return r;
    if (!fixed_rows_.empty()) {
      // A lazy Jacobian indexed at one output point: only that row is computed (one VJP).
      std::vector<NodeRef> rows = fixed_rows_;
      auto seed = [&](const std::vector<NodeRef>& m) {
        NodeRef cond;
        for (size_t a = 0; a < m.size() && a < rows.size(); ++a) cond = land(cond, eq(m[a], rows[a]));
        return ifz(cond, flit(1.0), flit(0.0));
      };
      Sweep s = reverse_sweep(cx_, facts_, tape, target, X->def, X->name, rx, dt, seed);
      for (auto& p : pre) s.stmts.insert(s.stmts.begin(), p);
      return with_span(block(std::move(s.stmts), s.result), q->span);
    }
    // A tensor target: one VJP per output point, seeded with the basis cotangent there.
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
    Sweep s = reverse_sweep(cx_, facts_, tape, target, X->def, X->name, rx, dt, seed);
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
  NodeRef jvp(const NodeRef& q, DefId target, const std::string& tname, const NodeRef& X, int ry,
              int rx, const Tape& tape, std::vector<NodeRef> pre) {
    if (!prefers_forward(cx_, name(tname, target), ry, X, rx)) return nullptr;
    auto dtx = facts_.float_dtype_of_def(X->def);
    if (!dtx) return nullptr;
    try {
      if (rx == 0) {
        Tangents t = forward_sweep(cx_, facts_, tape, target, X->def, flit(1.0));
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
      Tangents t = forward_sweep(cx_, facts_, tape, target, X->def, name(sgroup->name, sgroup->def));
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

  // Several requests of one scalar target in this cell (`@loss / @W1`, `@loss / @W2`) share one
  // reverse sweep (thesis §6.4: shared bars): its statements go before the first request, and
  // every request reads its parameter's adjoint.
  NodeRef shared(const NodeRef& q, DefId target, const std::string& tname, const NodeRef& X) {
    auto done = shared_.find(target);
    if (done != shared_.end()) {
      auto it = done->second.find(X->def);
      return it == done->second.end() ? nullptr : ir::fresh_copy(it->second);
    }
    if (ir::rank_of(facts_.def_type(target)) != 0 || !facts_.float_dtype_of_def(target)) return nullptr;
    std::vector<NodeRef> wrts;
    std::unordered_set<DefId> seen;
    for (auto& s : remaining)
      ir::for_each_node(s, [&](const NodeRef& n) {
        if (!is_quotient(n) || n->kids[0]->kids[0]->kind != Kind::Name ||
            n->kids[0]->kids[0]->def != target || n->kids[1]->kids[0]->kind != Kind::Name)
          return;
        const NodeRef& w = n->kids[1]->kids[0];
        if (facts_.float_dtype_of_def(w->def) && ir::rank_of(facts_.def_type(w->def)) >= 0 &&
            seen.insert(w->def).second)
          wrts.push_back(w);
      });
    if (wrts.size() < 2 || !seen.count(X->def)) return nullptr;
    std::vector<DefId> defs;
    std::vector<Leaf> leaves;
    for (auto& w : wrts) {
      defs.push_back(w->def);
      leaves.push_back(Leaf{w->def, w->name, ir::rank_of(facts_.def_type(w->def)),
                            *facts_.float_dtype_of_def(w->def)});
    }
    Tape tape(cx_, facts_, visible);
    if (!tape.build(target, defs)) return nullptr;
    Sweep s = reverse_sweep(cx_, facts_, tape, target, leaves, nullptr);
    for (auto& st : s.stmts) prelude.push_back(st);
    auto& res = shared_[target];
    for (size_t i = 0; i < wrts.size(); ++i) res[wrts[i]->def] = s.results[i];
    (void)q;
    (void)tname;
    return ir::fresh_copy(res[X->def]);
  }

  // ∂y/∂x = 0 with the right shape and type (y does not depend on x, or is not a float).
  NodeRef zeros(const NodeRef& q, const std::string& tname, DefId target, int ry, const NodeRef& X,
                int rx, DType dt, std::vector<NodeRef> pre) {
    if (ry == 0 && rx == 0) return with_span(block(std::move(pre), zero_of(dt)), q->span);
    std::vector<NodeRef> kids{zero_of(dt)};
    for (int a = 0; a < ry + rx; ++a) {
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

  NodeRef with_span(const NodeRef& n, Span s) {
    return ir::edited(n, [&](ir::Node& m) { m.span = s; });
  }

  CompileCtx& cx_;
  Facts& facts_;
  std::vector<NodeRef> fixed_rows_;
  std::unordered_map<DefId, std::unordered_map<DefId, NodeRef>> shared_;  // target -> wrt -> adjoint

 public:
  std::vector<NodeRef> remaining;  // this statement and the ones after it
  std::vector<NodeRef> prelude;    // statements to place before this statement
};

// Is every use of `j` in `stmts` an index that fixes all `ry` output axes, or shape()/len()?
bool only_row_uses(const std::vector<NodeRef>& stmts, DefId j, int ry) {
  bool ok = true;
  std::function<void(const NodeRef&, const NodeRef&, size_t)> walk = [&](const NodeRef& n, const NodeRef& parent, size_t pos) {
    if (!n || !ok) return;
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == j) {
      bool row = parent && parent->kind == Kind::Index && pos == 0 &&
                 static_cast<int>(parent->kids.size()) - 1 >= ry;
      bool meta = false;
      if (parent && parent->kind == Kind::Call && pos == 1 && parent->kids.size() == 2)
        if (auto b = builtin_of(parent->kids[0]->def)) meta = *b == Builtin::Shape || *b == Builtin::Len;
      if (!row && !meta) ok = false;
      return;
    }
    if (n->kind == Kind::Lambda) {
      ir::for_each_node(n, [&](const NodeRef& m) { if (m->kind == Kind::Name && m->def == j) ok = false; });
      return;
    }
    for (size_t i = 0; i < n->kids.size(); ++i) walk(n->kids[i], n, i);
  };
  for (auto& s : stmts) walk(s, nullptr, 0);
  return ok;
}

// Does every row use `j[r.., ...]` in `stmts` fix its `ry` row indices to compile-time constants?
// (Rows at an index variable read the Jacobian whole: forward mode computes it once.)
bool constant_rows(CompileCtx& cx, const std::vector<NodeRef>& stmts, DefId j, int ry) {
  bool ok = true;
  for (auto& s : stmts)
    ir::for_each_node(s, [&](const NodeRef& n) {
      if (!ok || n->kind != Kind::Index || n->kids[0]->kind != Kind::Name || n->kids[0]->def != j) return;
      for (int a = 1; a <= ry && a < static_cast<int>(n->kids.size()); ++a)
        if (!fold_int(cx, cx.cell(), n->kids[static_cast<size_t>(a)])) ok = false;
    });
  return ok;
}

// Does every use `j[..]` in `stmts` give all `ry + rx` indices, with the `rx` parameter
// indices compile-time constants? (Columns: one JVP each, see Rewriter::column_use.)
bool constant_cols(CompileCtx& cx, const std::vector<NodeRef>& stmts, DefId j, int ry, int rx) {
  bool ok = true;
  for (auto& s : stmts)
    ir::for_each_node(s, [&](const NodeRef& n) {
      if (!ok || n->kind != Kind::Index || n->kids[0]->kind != Kind::Name || n->kids[0]->def != j) return;
      if (static_cast<int>(n->kids.size()) - 1 != ry + rx) {
        ok = false;
        return;
      }
      for (int a = ry + 1; a <= ry + rx; ++a)
        if (!fold_int(cx, cx.cell(), n->kids[static_cast<size_t>(a)])) ok = false;
    });
  return ok;
}

}  // namespace

void differentiate(CompileCtx& cx) {
  for (size_t i = 1; i < cx.units.size(); ++i) {
    const NodeRef& b = cx.units[i]->body;
    if (b && (b->kind == Kind::Fn || b->kind == Kind::Lambda) && has_diff(b)) {
      ir::for_each_node(b, [&](const NodeRef& n) {
        if (n->kind == Kind::Diff)
          cx.error("E013", "derivative requests inside functions are not supported", n->span,
                   "inside a function body", "request the derivative at the top level of a cell");
      });
    }
  }
  Unit& cell = cx.cell();
  if (!has_diff(cell.body)) return;
  Facts facts(cx);
  Rewriter rw(cx, facts);
  std::vector<NodeRef> kids;
  const auto& stmts = cell.body->kids;
  bool tail = cell.body->has(ir::kHasTail);
  // Bindings whose type is only known once this round's rewrites are analysed: a request that
  // reaches one (`let h = @g / @x;` after `let g = @y / @x;`) waits for the next round.
  std::unordered_set<DefId> pending;
  bool deferring = false;
  auto reaches_pending = [&](const NodeRef& n) {
    bool hit = false;
    ir::for_each_node(n, [&](const NodeRef& m) {
      if ((m->kind == Kind::Name || m->kind == Kind::Path) && pending.count(m->def)) hit = true;
    });
    return hit;
  };
  auto defined_by = [](const NodeRef& r) {
    if (r && r->kind == Kind::EinGroup) return r->def;
    if (r && r->kind == Kind::Let && ir::let_pattern(*r)->kind == Kind::PBind) return ir::let_pattern(*r)->def;
    return DefId{};
  };
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (deferring || (s && has_diff(s) && reaches_pending(s))) {
      deferring = true;  // keep statement order: everything after waits too
      kids.push_back(s);
      continue;
    }
    if (s && reaches_pending(s)) pending.insert(defined_by(s));
    // `let J = @y / @x;` with a tensor y whose every later use reads single rows: lazy (only in
    // a whole program, where no later cell can observe J whole).
    if (cx.opt.whole_program && s && s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind &&
        is_quotient(ir::let_value(*s)) && ir::let_value(*s)->kids[0]->kids[0]->kind == Kind::Name &&
        !(tail && i + 1 == stmts.size())) {
      const NodeRef& q = ir::let_value(*s);
      int ry = ir::rank_of(facts.def_type(q->kids[0]->kids[0]->def));
      std::vector<NodeRef> later(stmts.begin() + static_cast<long>(i) + 1, stmts.end());
      // Rows read at an index variable (`sum[t](J[t])`) observe J whole: it is built once (by
      // forward or reverse mode), never row by row inside the reader's loop.
      const NodeRef& X = q->kids[1]->kids[0];
      int rx = X->kind == Kind::Name && X->def.valid() ? ir::rank_of(facts.def_type(X->def)) : -1;
      DefId jd = ir::let_pattern(*s)->def;
      if (ry > 0 && only_row_uses(later, jd, ry) &&
          (constant_rows(cx, later, jd, ry) || (rx > 0 && constant_cols(cx, later, jd, ry, rx)))) {
        rw.lazy[ir::let_pattern(*s)->def] = q;
        continue;
      }
    }
    bool rewrites = s && has_diff(s);
    rw.remaining.assign(stmts.begin() + static_cast<long>(i), stmts.end());
    NodeRef r0 = s && (rewrites || !rw.lazy.empty()) ? rw.rewrite(s) : s;
    // Generated adjoint statements are charged to the request's line (timings, run-time errors).
    for (auto& p : rw.prelude) {
      if (p && !p->span.valid() && s)
        kids.push_back(ir::edited(p, [&](ir::Node& n) { n.span = s->span; }));
      else
        kids.push_back(p);
    }
    rw.prelude.clear();
    kids.push_back(r0);
    const NodeRef& r = kids.back();
    if (!r) continue;
    if (rewrites && defined_by(r).valid()) pending.insert(defined_by(r));
    // Definitions visible to later requests, in order.
    if (r->kind == Kind::EinGroup) rw.visible[r->def] = r;
    if (r->kind == Kind::Let && ir::let_pattern(*r)->kind == Kind::PBind)
      rw.visible[ir::let_pattern(*r)->def] = r;
  }
  cell.body = ir::with_kids(cell.body, std::move(kids));
}

void check_no_autodiff_left(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (has_diff(u->body))
      cx.error("E013", "internal: a derivative request survived the autodiff phase", u->body->span);
  }
}

}  // namespace ein
