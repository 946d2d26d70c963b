#include "lang/passes/contraction.h"

#include <algorithm>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/resolve/builtins.h"

namespace ein {

using ir::BinOp;
using ir::DefId;
using ir::Kind;
using ir::NodeRef;

bool is_len_call(const NodeRef& x) {
  if (x->kind != Kind::Call || ir::call_args_count(*x) != 1 || ir::call_callee(*x)->def != builtin_def(Builtin::Len))
    return false;
  const NodeRef& a = ir::call_args(*x)[0];
  if (a->kind == Kind::Name) return true;
  if (a->kind != Kind::Index || ir::index_base(a)->kind != Kind::Name) return false;  // `len(B[0])`
  for (const NodeRef& i : ir::index_args(a))
    if (i->kind != Kind::IntLit) return false;
  return true;
}

bool ContractionOperand::uses(DefId d) const { return axis_of(d) >= 0; }

std::vector<NodeRef> operand_reads(const ContractionOperand& o) {
  if (!o.value) return {o.read};
  std::vector<NodeRef> out;
  ir::for_each_node(o.value, [&](const NodeRef& x) {
    if (x->kind == Kind::Index) out.push_back(x);
  });
  return out;
}

int ContractionOperand::axis_of(DefId d) const {
  for (size_t a = 0; a < axes.size(); ++a)
    if (axes[a] == d) return static_cast<int>(a);
  return -1;
}

void mul_factors(const NodeRef& e, std::vector<NodeRef>& out) {
  if (e->kind == Kind::Binary && static_cast<BinOp>(e->ival) == BinOp::Mul) {
    mul_factors(ir::bin_lhs(e), out);
    mul_factors(ir::bin_rhs(e), out);
  } else {
    out.push_back(e);
  }
}

namespace {

bool contains(const std::vector<DefId>& v, DefId d) { return std::find(v.begin(), v.end(), d) != v.end(); }

// Pure integer arithmetic on names bound outside the nest: a fixed subscript or an extent
// (`DimOf`, or `len(X)` / `len(X[0])` in a generic function, where extents are not folded).
bool invariant_int(const NodeRef& e, const std::vector<DefId>& inner) {
  switch (e->kind) {
    case Kind::IntLit: return true;
    case Kind::Binary:
    case Kind::Unary:
    case Kind::IMin:
    case Kind::IMax:
    case Kind::DimOf:
      for (const NodeRef& k : e->kids)
        if (k && !invariant_int(k, inner)) return false;
      return true;
    case Kind::Call: {
      if (!is_len_call(e)) return false;
      const NodeRef& a = ir::call_args(*e)[0];
      return !contains(inner, (a->kind == Kind::Name ? a : ir::index_base(a))->def);
    }
    case Kind::Name:
    case Kind::Path: return !contains(inner, e->def);
    default: return false;
  }
}

// The variables of an affine subscript `a + b`, `2 * t + a`, `t + a - 1`: sums of variables of
// `inner`, each with an integer literal factor or none, plus invariant terms.
bool affine_vars(const NodeRef& e, const std::vector<DefId>& inner, std::vector<DefId>& out) {
  if (e->kind == Kind::Name && contains(inner, e->def)) {
    out.push_back(e->def);
    return true;
  }
  if (invariant_int(e, inner)) return true;
  if (e->kind != Kind::Binary) return false;
  auto op = static_cast<BinOp>(e->ival);
  if (op == BinOp::Add) return affine_vars(ir::bin_lhs(e), inner, out) && affine_vars(ir::bin_rhs(e), inner, out);
  if (op == BinOp::Sub) return affine_vars(ir::bin_lhs(e), inner, out) && invariant_int(ir::bin_rhs(e), inner);
  if (op == BinOp::Mul) {
    const NodeRef& l = ir::bin_lhs(e);
    const NodeRef& r = ir::bin_rhs(e);
    // A literal or loop-invariant coefficient (a stride or dilation held in a variable, as in
    // std::ml's convolutions): the packed copy evaluates the read itself at every point.
    if (invariant_int(l, inner) && r->kind == Kind::Name && contains(inner, r->def)) return affine_vars(r, inner, out);
    if (invariant_int(r, inner) && l->kind == Kind::Name && contains(inner, l->def)) return affine_vars(l, inner, out);
  }
  return false;
}

bool has_read(const NodeRef& e) {
  bool hit = false;
  ir::for_each_node(e, [&](const NodeRef& x) { hit = hit || x->kind == Kind::Index; });
  return hit;
}

}  // namespace

// A function whose lowered body only computes a scalar from its parameters.
bool scalar_function(const Unit* callee) {
  return callee && callee->kind == Unit::Kind::Fn && callee->captures.empty() && callee->lowered &&
         ir::expression_body(callee->lowered, /*reads=*/false);
}

namespace {

// A sum of a product whose factors read tensors over two sets of variables (each factor's reads
// within one set) is a product of two computed operands: each set's factors multiplied, packed
// over its variables, then one GEMM. `sum[n](d_Z[n, j] * (1 - Z[n, j]^2) * X[n, k])`, the weight
// gradient of every dense layer with an activation, or a weighted `sum[n](A[n, i] * w[n] *
// B[n, j])`, or an RNN's `sum[t](d_h[t, j] * (1 - h[t, j]^2) * h[t - 1, k])`.
void computed_operands(Contraction& orig, const std::vector<NodeRef>& products) {
  Contraction c = orig;  // (the grouped form is an alternative: orig stays as matched)
  // A quotient whose numerator and divisor read different variables (softplus' rule
  // `X[n, k] / (1 + exp(-pre[n, j]))`) is the numerator's factors times the divisor's reciprocal,
  // which joins the packed operand of its own variables (one rounding more than the quotient).
  std::vector<NodeRef> factors;
  std::function<void(const NodeRef&)> split = [&](const NodeRef& f) {
    if (f->kind == Kind::Binary && static_cast<BinOp>(f->ival) == BinOp::Div && has_read(ir::bin_lhs(f)) &&
        has_read(ir::bin_rhs(f))) {
      std::vector<NodeRef> num;
      mul_factors(ir::bin_lhs(f), num);
      for (auto& x : num) split(x);
      auto one = std::make_shared<ir::Node>(*ir::make({.kind = Kind::FloatLit, .name = "1.0", .fval = 1.0}));
      one->dt = f->dt;
      auto r = std::make_shared<ir::Node>(*ir::make_binary(BinOp::Div, one, ir::bin_rhs(f)));
      r->dt = f->dt;
      factors.push_back(r);
      return;
    }
    factors.push_back(f);
  };
  for (auto& f : products) split(f);
  auto op_of = [&](const NodeRef& read) -> const ContractionOperand* {
    for (auto& o : c.operands)
      if (ir::structurally_equal(o.read, read)) return &o;
    return nullptr;
  };
  struct Factor {
    NodeRef e;
    std::vector<DefId> vars;
    NodeRef first;
  };
  std::vector<Factor> fs;
  std::vector<NodeRef> scalars;
  for (auto& f : factors) {
    Factor x{f, {}, nullptr};
    bool plain = true;
    ir::for_each_node(f, [&](const NodeRef& n) {
      if (n->kind != Kind::Index) return;
      const ContractionOperand* o = op_of(n);
      if (!o) {
        plain = false;
        return;
      }
      if (!x.first) x.first = n;
      for (DefId d : o->axes)
        if (d.valid() && !contains(x.vars, d)) x.vars.push_back(d);
    });
    if (!plain) return;
    if (!x.first) scalars.push_back(f);
    else fs.push_back(std::move(x));
  }
  auto subset = [](const std::vector<DefId>& a, const std::vector<DefId>& b) {
    for (DefId d : a)
      if (!contains(b, d)) return false;
    return true;
  };
  // The two groups: the variable sets no other factor's set strictly contains.
  std::vector<std::vector<DefId>> sets;
  for (auto& f : fs) {
    bool inside = false, dup = false;
    for (auto& g : fs) inside = inside || (subset(f.vars, g.vars) && !subset(g.vars, f.vars));
    for (auto& s : sets) dup = dup || (subset(s, f.vars) && subset(f.vars, s));
    if (!inside && !dup) sets.push_back(f.vars);
  }
  // One widest set, and factors over a strict subset of it that hold every summed variable: a
  // matrix times a computed vector, `sum[n](X[n, d] * (p[n] - y[n]))` (the gradient of a
  // logistic or linear regression, a weighted column sum). Without this the vector's factors
  // joined X's group and the column sum ran as loops reading X with a stride, once per column
  // (logreg_step in tests/bench/probes5.py: 2.7 × NumPy's `X.T @ (p - y)`). The narrower
  // factors form the second operand (the union of their variables); the widest set's factors
  // the first.
  bool narrow = false;
  if (sets.size() == 1) {
    std::vector<DefId> rest;
    for (auto& f : fs)
      if (!subset(sets[0], f.vars))
        for (DefId d : f.vars)
          if (!contains(rest, d)) rest.push_back(d);
    if (rest.empty() || subset(sets[0], rest)) return;  // (a strict subset: else no GEMV)
    sets.push_back(rest);
    narrow = true;
  }
  if (sets.size() != 2) return;
  for (DefId s : c.summed)
    if (!contains(sets[0], s) || !contains(sets[1], s)) return;
  std::vector<ContractionOperand> ops(2);
  std::vector<int> count(2, 0);
  DType dt = static_cast<DType>(c.reduce->dt);
  for (auto& f : fs) {
    size_t g = narrow ? (subset(sets[0], f.vars) ? 0 : 1) : subset(f.vars, sets[0]) ? 0 : 1;
    ContractionOperand& o = ops[g];
    ++count[g];
    if (!o.read) o.read = f.first;
    if (!o.value) {
      o.value = f.e;
    } else {
      auto m = std::make_shared<ir::Node>(*ir::make_binary(ir::BinOp::Mul, o.value, f.e));
      m->dt = static_cast<int8_t>(dt);  // (planned after frame_layout typed the body's nodes)
      o.value = m;
    }
  }
  for (size_t g = 0; g < 2; ++g) {
    ContractionOperand& o = ops[g];
    if (!o.value || o.value->dt != static_cast<int8_t>(dt)) return;
    if (count[g] == 1 && o.value->kind == Kind::Index) {  // a plain read stays one
      o = *op_of(o.value);
      continue;
    }
    o.gathered = true;
    o.axes = sets[g];
  }
  c.operands = std::move(ops);
  c.product = true;
  c.scalars = std::move(scalars);
  orig.grouped = std::make_shared<Contraction>(std::move(c));
}

}  // namespace

std::optional<Contraction> match_contraction(const NodeRef& r, const std::vector<DefId>& nest, const Unit* u,
                                             bool gather) {
  if (!r || r->kind != Kind::LReduce) return std::nullopt;
  auto op = ir::reduce_op_from_name(r->name);
  if (!op || (*op != ir::ReduceOp::Sum && *op != ir::ReduceOp::Max && *op != ir::ReduceOp::Min))
    return std::nullopt;
  Contraction c;
  c.reduce = r;
  c.op = *op;
  std::vector<DefId> inner = nest;  // variables that change inside the nest
  for (const NodeRef& v : ir::lreduce_items(r)) {
    if (v->kind != Kind::LoopVar) return std::nullopt;  // an LCheck: keep the general path
    c.summed.push_back(v->def);
    inner.push_back(v->def);
  }
  if (c.summed.empty()) return std::nullopt;
  for (const NodeRef& v : ir::lreduce_items(r)) {
    const NodeRef& lo = ir::loopvar_lo(v);
    if (lo->kind != Kind::IntLit || lo->ival < 0 || (lo->ival != 0 && !gather) || !invariant_int(ir::loopvar_hi(v), inner))
      return std::nullopt;
    c.summed_lo.push_back(lo->ival);
  }
  const NodeRef& body = ir::lreduce_body(r);
  bool ok = true;
  std::function<void(const NodeRef&)> walk = [&](const NodeRef& x) {
    if (!ok) return;
    switch (x->kind) {
      case Kind::Index: {
        const NodeRef& base = ir::index_base(x);
        if (base->kind != Kind::Name || contains(inner, base->def)) {
          ok = false;
          return;
        }
        ContractionOperand op;
        op.read = x;
        std::vector<DefId> vars;  // every variable of every subscript, for a gathered read
        bool plain = true;
        for (const NodeRef& s : ir::index_args(x)) {
          if (s->kind == Kind::Name && contains(inner, s->def)) {
            if (contains(op.axes, s->def)) ok = false;  // a diagonal A[i, i]
            op.axes.push_back(s->def);
          } else if (invariant_int(s, inner)) {
            op.axes.push_back(DefId{});
          } else {
            plain = false;
          }
          if (gather && !affine_vars(s, inner, vars)) ok = false;
        }
        if (!plain) {
          if (!gather) ok = false;
          for (size_t i = 0; i < vars.size() && ok; ++i)
            for (size_t j = 0; j < i; ++j)
              if (vars[i] == vars[j]) ok = false;  // `x[t + a, a]`: no one axis per variable
          op.gathered = true;
          op.axes = vars;
        }
        if (!ok) return;
        for (auto& o : c.operands)
          if (ir::structurally_equal(o.read, x)) return;
        c.operands.push_back(std::move(op));
        return;
      }
      case Kind::IntLit:
      case Kind::FloatLit:
      case Kind::BoolLit:
      case Kind::TyPrim: return;
      case Kind::Name:
      case Kind::Path:
        if (contains(inner, x->def)) ok = false;  // an index used as a value
        return;
      case Kind::Binary: {
        auto b = static_cast<BinOp>(x->ival);
        if (b == BinOp::And || b == BinOp::Or || b == BinOp::In) ok = false;
        break;
      }
      case Kind::Unary:
      case Kind::Cast: break;
      case Kind::Call: {
        auto b = builtin_of(ir::call_callee(x)->def);
        if (b) {
          if (!is_math_intrinsic(*b)) ok = false;
        } else {
          auto t = u ? u->call_targets.find(x->id) : decltype(u->call_targets.end()){};
          if (!u || t == u->call_targets.end() || !scalar_function(t->second)) ok = false;
        }
        for (const NodeRef& a : ir::call_args(x)) walk(a);
        return;
      }
      default: ok = false; return;
    }
    for (auto& k : x->kids) walk(k);
  };
  walk(body);
  if (!ok || c.operands.empty()) return std::nullopt;
  for (DefId d : nest)
    for (auto& o : c.operands)
      if (o.uses(d) && !contains(c.free, d)) c.free.push_back(d);
  for (DefId s : c.summed) {
    bool used = false;
    for (auto& o : c.operands) used = used || o.uses(s);
    if (!used) return std::nullopt;
  }
  if (c.op == ir::ReduceOp::Sum) {
    std::vector<NodeRef> fs;
    mul_factors(body, fs);
    size_t reads = 0;
    bool product = true;
    std::vector<NodeRef> scalars;
    for (auto& f : fs) {
      if (f->kind == Kind::Index) ++reads;
      else if (has_read(f)) product = false;
      else scalars.push_back(f);
    }
    if (product && reads == c.operands.size()) {
      c.product = true;
      c.scalars = std::move(scalars);
      // Three or more reads, some of them gathered or over a sum starting above 0: the
      // factorised path takes plain reads only, two computed operands take these.
      bool packed = c.offset();
      for (auto& o : c.operands) packed = packed || o.gathered;
      if (gather && packed && c.operands.size() > 2) computed_operands(c, fs);
    } else if (gather) {
      computed_operands(c, fs);
    }
  }
  return c;
}

namespace {

// Positions of `group` in `axes`: consecutive, in the group's order. Returns the first position
// (or -1 for an empty group), or -2 when they are not laid out that way.
int consecutive(const std::vector<DefId>& axes, const std::vector<DefId>& group) {
  if (group.empty()) return -1;
  auto at = [&](DefId d) {
    for (size_t a = 0; a < axes.size(); ++a)
      if (axes[a] == d) return static_cast<int>(a);
    return -3;
  };
  int p0 = at(group[0]);
  if (p0 < 0) return -2;
  for (size_t i = 1; i < group.size(); ++i)
    if (at(group[i]) != p0 + static_cast<int>(i)) return -2;
  return p0;
}

bool ends_at_last(const std::vector<DefId>& axes, const std::vector<DefId>& group, int p0) {
  return p0 >= 0 && p0 + static_cast<int>(group.size()) == static_cast<int>(axes.size());
}

std::vector<DefId> in_order(const std::vector<DefId>& axes, const std::vector<DefId>& keep) {
  std::vector<DefId> out;
  for (DefId d : axes)
    if (d.valid() && contains(keep, d)) out.push_back(d);
  return out;
}

std::optional<GemmShape> try_roles(const Contraction& c, int a, int b, const std::vector<DefId>& dest) {
  const ContractionOperand& A = c.operands[static_cast<size_t>(a)];
  const ContractionOperand& B = c.operands[static_cast<size_t>(b)];
  GemmShape g;
  g.a = a;
  g.b = b;
  std::vector<DefId> m, n, batch;
  for (DefId d : c.free) {
    bool ia = A.uses(d), ib = B.uses(d);
    (ia && ib ? batch : ia ? m : n).push_back(d);
  }
  for (DefId s : c.summed)
    if (!A.uses(s) || !B.uses(s)) return std::nullopt;  // summed in one operand only
  g.batch = in_order(dest, batch);
  g.m = in_order(dest, m);
  g.n = in_order(dest, n);
  g.k = in_order(A.axes, c.summed);
  if (g.m.empty() && g.n.empty()) return std::nullopt;
  // C: m and n consecutive, the inner one last.
  int cm = consecutive(dest, g.m), cn = consecutive(dest, g.n);
  if (cm == -2 || cn == -2) return std::nullopt;
  if (!g.n.empty() ? !ends_at_last(dest, g.n, cn) : !ends_at_last(dest, g.m, cm)) return std::nullopt;
  // A(m, k) and B(k, n).
  int am = consecutive(A.axes, g.m), ak = consecutive(A.axes, g.k);
  int bk = consecutive(B.axes, g.k), bn = consecutive(B.axes, g.n);
  if (am == -2 || ak == -2 || bk == -2 || bn == -2) return std::nullopt;
  if (ends_at_last(A.axes, g.k, ak)) g.ta = false;
  else if (!g.m.empty() && ends_at_last(A.axes, g.m, am)) g.ta = true;
  else return std::nullopt;
  if (!g.n.empty() && ends_at_last(B.axes, g.n, bn)) g.tb = false;
  else if (ends_at_last(B.axes, g.k, bk)) g.tb = true;
  else return std::nullopt;
  if ((g.m.empty() && g.ta) || (g.n.empty() && !g.tb)) return std::nullopt;  // a vector with stride
  return g;
}

}  // namespace

std::optional<GemmShape> gemm_shape(const Contraction& c, const std::vector<DefId>& dest) {
  if (!c.product || c.operands.size() != 2) return std::nullopt;
  if (auto g = try_roles(c, 0, 1, dest)) return g;
  return try_roles(c, 1, 0, dest);
}

std::optional<StepGemm> step_gemm(const std::vector<DefId>& a, const std::vector<DefId>& b,
                                  const std::vector<DefId>& sum, const std::vector<DefId>* dest) {
  if (sum.empty()) return std::nullopt;
  auto has = [](const std::vector<DefId>& v, DefId d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  auto unique = [&](const std::vector<DefId>& v) {
    for (size_t i = 0; i < v.size(); ++i)
      if (std::find(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v[i]) != v.begin() + static_cast<std::ptrdiff_t>(i))
        return false;
    return true;
  };
  if (!unique(a) || !unique(b)) return std::nullopt;
  // Splits a layout into [kept.., S..] (s_last) or [S.., kept..]; S must be contiguous.
  auto split = [&](const std::vector<DefId>& t, std::vector<DefId>& kept, std::vector<DefId>& s, bool& s_last) {
    size_t n_s = 0;
    for (DefId d : t) n_s += has(sum, d) ? 1 : 0;
    if (n_s != sum.size()) return false;  // a summed variable missing here: not a product of two matrices
    size_t lead = 0;
    while (lead < t.size() && has(sum, t[lead])) ++lead;
    if (lead == n_s) {
      s_last = false;
    } else {
      for (size_t i = t.size() - n_s; i < t.size(); ++i)
        if (!has(sum, t[i])) return false;
      if (lead != 0) return false;
      s_last = true;
    }
    for (DefId d : t) (has(sum, d) ? s : kept).push_back(d);
    return true;
  };
  for (int swap = 0; swap < 2; ++swap) {
    StepGemm g;
    g.swap = swap == 1;
    std::vector<DefId> sy;
    if (!split(g.swap ? b : a, g.m, g.k, g.x_s_last) || !split(g.swap ? a : b, g.n, sy, g.y_s_last) || g.k != sy)
      return std::nullopt;
    for (DefId d : g.m)
      if (has(g.n, d)) return std::nullopt;  // a batch variable: not one GEMM
    std::vector<DefId> want = g.m;
    want.insert(want.end(), g.n.begin(), g.n.end());
    if (dest && want != *dest) continue;
    return g;
  }
  return std::nullopt;
}

std::string contraction_text(const Contraction& c) {
  std::string out;
  for (auto& o : c.operands) {
    out += (out.empty() ? "" : " ") + ir::index_base(o.read)->name + "[";
    bool first = true;
    for (const NodeRef& s : ir::index_args(o.read)) {
      out += (first ? "" : ", ");
      first = false;
      out += s->kind == Kind::Name ? s->name : std::string("·");
    }
    out += "]";
  }
  return out;
}

}  // namespace ein
