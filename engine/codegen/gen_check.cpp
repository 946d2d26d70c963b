// Bounds-check versioning. Range analysis proves the accesses whose indices determine the loop
// ranges (kProven). The others — explicit ranges, recurrence self-reads like `u[t - 1, x + 1]`,
// constant rows like `u[T - 1, x]` — are affine in loop variables whose bounds are known at
// kernel entry, so one test before the loops decides them all: when it passes, a fast version
// runs without per-element checks (and vectorises); when it fails, the checked version runs
// and reports exactly the first failing access, as the interpreter would.
#include <functional>

#include "engine/codegen/gen.h"
#include "lang/resolve/builtins.h"

namespace ein::codegen {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

namespace {

struct Range {
  NodeRef lo, hi;
};

// Loop variables of the statement (LFor, reduction LoopVars) and aliases bound by LLet.
void collect_loops(const NodeRef& n, std::unordered_map<std::string, Range>& loops,
                   std::unordered_map<std::string, std::string>& alias, std::vector<ir::DefId>& local) {
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::LFor || x->kind == Kind::LoopVar) {
      loops[def_key(x->def)] = Range{ir::loop_lo(x), ir::loop_hi(x)};
      local.push_back(x->def);
    } else if (x->kind == Kind::LLet && ir::llet_value(x)->kind == Kind::Name) {
      alias[def_key(x->def)] = def_key(ir::llet_value(x)->def);
      local.push_back(x->def);
    } else if (x->kind == Kind::LLet || x->kind == Kind::LLetIn || x->kind == Kind::PBind) {
      local.push_back(x->def);
    }
  });
}

// `len(x)` of a buffer: its first extent, known at entry and free of side effects (library
// loops run over `n in 0..len(X)`). Also `len(X[0])`, `len(X[0, 0])`: a later extent, read
// through rows at literal positions (`c in 0..len(X[0])` written in place of a let): the kernel
// computes it before its loops as `0 < e0 ? e1 : 0`, and the row read is checked where the
// bound is used (an empty X fails there, or never runs the loop), so the value is a fixed
// number for the entry test. Refused, every read of such a loop stayed checked and scalar: a
// hand-written 3 x 3 / 2 max pool's row pass over 1 x 64 x 112 x 112 took 2.4 ms against 0.35
// with the extents bound by lets (one thread).
bool extent_call(const NodeRef& x) {
  // `shape(X)[k]`, k a literal: X's extent k (gen_kernel.cpp load; a k past the rank is not a
  // kernel at all).
  if (x->kind == Kind::Index && ir::index_args_count(x) == 1 && ir::index_args(x)[0]->kind == Kind::IntLit &&
      ir::index_base(x)->kind == Kind::Call && ir::call_args(ir::index_base(x)).size() == 1 &&
      ir::call_args(ir::index_base(x))[0]->kind == Kind::Name) {
    const NodeRef& callee = ir::call_callee(ir::index_base(x));
    auto b = callee->kind == Kind::Name ? builtin_of(callee->def) : std::nullopt;
    return b && *b == Builtin::Shape;
  }
  if (x->kind != Kind::Call || ir::call_args(x).size() != 1) return false;
  const NodeRef& callee = ir::call_callee(x);
  auto b = callee->kind == Kind::Name ? builtin_of(callee->def) : std::nullopt;
  if (!b || *b != Builtin::Len) return false;
  const NodeRef& a = ir::call_args(x)[0];
  if (a->kind == Kind::Name) return true;
  if (a->kind != Kind::Index || ir::index_base(a)->kind != Kind::Name) return false;
  for (const NodeRef& i : ir::index_args(a))
    if (!i || i->kind != Kind::IntLit || i->ival < 0) return false;
  return true;
}

bool invariant(const NodeRef& n, const std::vector<ir::DefId>& local) {
  if (n->kind == Kind::Name) return std::find(local.begin(), local.end(), n->def) == local.end();
  if (extent_call(n)) {
    const NodeRef& a = n->kind == Kind::Index ? ir::call_args(ir::index_base(n))[0] : ir::call_args(n)[0];
    return invariant(a->kind == Kind::Index ? ir::index_base(a) : a, local);
  }
  if (n->kind == Kind::Index || n->kind == Kind::Call || n->kind == Kind::LReduce || n->kind == Kind::Block)
    return false;
  for (const NodeRef& k : n->kids)
    if (k && !invariant(k, local)) return false;
  return true;
}

}  // namespace

NodeRef unwrap_tail(const NodeRef& n) {
  if (n && n->kind == Kind::Block && n->has(ir::kHasTail) && n->kids.size() == 1) return unwrap_tail(n->kids[0]);
  return n;
}

// Does `t` compare v with the bound b, and from which side: -1 when it holds for v below b
// (v < b, v <= b, b > v, b >= v), +1 for v above b, 0 when it is no such test.
int bound_test(const NodeRef& t, const NodeRef& v, const NodeRef& b) {
  if (!t || t->kind != Kind::Binary) return 0;
  auto op = static_cast<BinOp>(t->ival);
  int side = op == BinOp::Lt || op == BinOp::Le ? -1 : op == BinOp::Gt || op == BinOp::Ge ? 1 : 0;
  // The same value: one node, one binding, or equal expressions without calls (written out
  // in place, `if o - 2 <= 0 { 0 } else if o - 2 >= W1 { W1 } else { o - 2 }`, each copy is
  // evaluated on its own: a call might not give the same value twice).
  auto same = [](const NodeRef& a, const NodeRef& c) {
    NodeRef x = unwrap_tail(a), y = unwrap_tail(c);
    if (!x || !y) return false;
    bool calls = false;
    ir::for_each_node(x, [&](const NodeRef& n) { calls = calls || n->kind == Kind::Call; });
    return x == y || (x->kind == Kind::Name && y->kind == Kind::Name && x->def == y->def) ||
           (!calls && ir::structurally_equal(x, y));
  };
  const NodeRef &l = ir::bin_lhs(t), &r = ir::bin_rhs(t);
  if (same(l, v) && same(r, b)) return side;
  if (same(l, b) && same(r, v)) return -side;
  return 0;
}

std::vector<std::pair<NodeRef, NodeRef>> min_max_nests(const NodeRef& e0, bool& outer_min) {
  std::vector<std::pair<NodeRef, NodeRef>> out;
  const NodeRef e = unwrap_tail(e0);
  if (!e || e->kind != Kind::Call || ir::call_args(e).size() != 2) return out;
  const NodeRef& callee = ir::call_callee(e);
  auto b = callee->kind == Kind::Name ? builtin_of(callee->def) : std::nullopt;
  if (!b || (*b != Builtin::Min2 && *b != Builtin::Max2)) return out;
  outer_min = *b == Builtin::Min2;
  const Builtin other = outer_min ? Builtin::Max2 : Builtin::Min2;
  const auto& args = ir::call_args(e);
  for (size_t i = 0; i < 2; ++i) {
    const NodeRef in = unwrap_tail(args[i]);
    if (!in || in->kind != Kind::Call || ir::call_args(in).size() != 2) continue;
    const NodeRef& ic = ir::call_callee(in);
    auto ib = ic->kind == Kind::Name ? builtin_of(ic->def) : std::nullopt;
    if (ib && *ib == other) out.emplace_back(in, args[1 - i]);
  }
  return out;
}

namespace {

// Index nodes evaluated only under a condition: an if/else branch, a guarded value, the right
// side of && or ||, a match arm. Their entry test can fail in a run that fails nowhere (the
// guard keeps the read in range), so the checked copy of such a clause is a normal path.
void conditional_reads(const NodeRef& n, bool under, std::unordered_set<uint32_t>& out) {
  if (!n) return;
  if ((n->kind == Kind::Index || n->kind == Kind::Binary) && under) out.insert(n->id);
  const bool branchy = n->kind == Kind::If || n->kind == Kind::LIf || n->kind == Kind::LGuard || n->kind == Kind::Match ||
                       (n->kind == Kind::Binary && (static_cast<BinOp>(n->ival) == BinOp::And ||
                                                    static_cast<BinOp>(n->ival) == BinOp::Or));
  for (size_t i = 0; i < n->kids.size(); ++i) conditional_reads(n->kids[i], under || (branchy && i > 0), out);
}

}  // namespace

std::string Gen::precheck(const NodeRef& stmt) {
  std::unordered_map<std::string, Range> loops;
  std::unordered_map<std::string, std::string> alias;
  std::vector<ir::DefId> local;
  collect_loops(stmt, loops, alias, local);
  // A scalar divisor fixed at entry: a name no node of the statement binds (loops, lets, block
  // locals, parameters of inlined bodies), of a scalar integer type.
  std::unordered_set<std::string> binders;
  ir::for_each_node(stmt, [&](const NodeRef& x) {
    if (x->kind != Kind::Name && x->def.valid()) binders.insert(def_key(x->def));
  });
  auto entry_divisor = [&](const NodeRef& r) {
    if (r->kind != Kind::Name || binders.count(def_key(r->def)) || !invariant(r, local) || !is_int(dtype_of(r))) return false;
    auto t = unit->def_types.find(r->def);
    return t != unit->def_types.end() && ir::is_scalar(t->second);
  };
  auto range_of = [&](const NodeRef& name) -> const Range* {
    std::string key = def_key(name->def);
    for (int hops = 0; hops < 8 && alias.count(key); ++hops) key = alias[key];
    auto it = loops.find(key);
    if (it == loops.end()) return nullptr;
    if (!invariant(it->second.lo, local) || !invariant(it->second.hi, local)) return nullptr;
    return &it->second;
  };
  std::vector<std::string> conds;
  std::vector<NodeRef> accesses;
  ir::for_each_node(stmt, [&](const NodeRef& x) {
    if (x->kind != Kind::Index || is_proven(*unit, x) || ir::index_base(x)->kind != Kind::Name) return;
    if (fusion.producers.count(ir::index_base(x)->def) || is_local_def(ir::index_base(x)->def)) return;
    accesses.push_back(x);
  });
  // The condition that index `e` stays below `ext` at every point of the loops, or "" when it
  // cannot be decided at entry: a ranged variable (± an invariant), an invariant, or a gather —
  // a read of an integer tensor whose own subscripts are of those forms (`T[idx[n], d]`,
  // `logp[n, label[n]]`). A gather's extremes come from one scan of the index tensor over the
  // box of its variables (a superset of the points read, so passing it is enough); the scan
  // runs only when its own reads are in bounds.
  std::function<std::string(const NodeRef&, const std::string&, bool)> axis_cond;
  auto affine = [&](const NodeRef& e, NodeRef& var, NodeRef& off, bool& neg) {
    if (e->kind == Kind::Name && range_of(e)) {
      var = e;
      return true;
    }
    if (e->kind == Kind::Binary && (static_cast<BinOp>(e->ival) == BinOp::Add || static_cast<BinOp>(e->ival) == BinOp::Sub)) {
      bool sub = static_cast<BinOp>(e->ival) == BinOp::Sub;
      const NodeRef &l = ir::bin_lhs(e), &r = ir::bin_rhs(e);
      if (l->kind == Kind::Name && range_of(l) && invariant(r, local)) {
        var = l, off = r, neg = sub;
        return true;
      }
      if (!sub && r->kind == Kind::Name && range_of(r) && invariant(l, local)) {
        var = r, off = l;
        return true;
      }
    }
    return false;
  };
  auto gather_cond = [&](const NodeRef& g, const std::string& ext, const std::string& off) -> std::string {
    const NodeRef& base = ir::index_base(g);
    if (base->kind != Kind::Name || base->def == out_def || fusion.producers.count(base->def) || g->has(ir::kWindowed) ||
        is_local_def(base->def))
      return "";
    ir::TypeRef t = type_of_def(base);
    size_t n = ir::index_args_count(g);
    if (ir::rank_of(t) != static_cast<int>(n)) return "";
    int gb = buffer_of(base);
    const BufArg& G = k.bufs[static_cast<size_t>(gb)];
    if (!is_int(G.dt) || G.windowed || G.output) return "";
    std::vector<std::string> own;
    std::vector<NodeRef> vars;  // distinct variables of the subscripts, in order
    for (size_t a = 0; a < n; ++a) {
      const NodeRef& e = ir::index_args(g)[a];
      std::string c = axis_cond(e, extent(gb, static_cast<int>(a)), false);
      if (c.empty()) return "";
      own.push_back(c);
      NodeRef var, off;
      bool neg = false;
      if (affine(e, var, off, neg) &&
          std::none_of(vars.begin(), vars.end(), [&](const NodeRef& v) { return v->def == var->def; }))
        vars.push_back(var);
    }
    std::string lo = em.fresh("glo"), hi = em.fresh("ghi"), all;
    for (auto& c : own) all += (all.empty() ? "" : " && ") + c;
    em.line("int64_t " + lo + " = INT64_MAX, " + hi + " = INT64_MIN;");
    em.open("if (" + (all.empty() ? std::string("true") : all) + ") {", true);
    size_t m = mark();
    for (size_t i = 0; i < vars.size(); ++i) {
      const Range* r = range_of(vars[i]);
      std::string v = em.fresh("gv"), rl = index(r->lo).c, rh = index(r->hi).c;
      bool last = i + 1 == vars.size();
      em.open(std::string(last ? "#pragma omp simd reduction(min:" + lo + ") reduction(max:" + hi + ")\n" : "") +
                  "for (int64_t " + v + " = " + rl + "; " + v + " < " + rh + "; ++" + v + ") {", false);
      Val var{v, DType::I64, em.depth(), true};
      var.bits = kExtentBits;
      bind(vars[i]->def, var);
    }
    std::vector<std::string> at;
    for (size_t a = 0; a < n; ++a) at.push_back(index(ir::index_args(g)[a]).c);
    std::string q = em.fresh("gq");
    em.line("const int64_t " + q + " = (int64_t)b" + std::to_string(gb) + "[" + flat(gb, at, false) + "];");
    em.line(lo + " = " + q + " < " + lo + " ? " + q + " : " + lo + "; " + hi + " = " + q + " > " + hi + " ? " + q + " : " + hi + ";");
    for (size_t i = 0; i < vars.size(); ++i) em.close();
    unbind_to(m);
    em.close();
    k.plan.push_back("bounds: gathered index `" + base->name + "` scanned once at entry for its extremes");
    // Every own condition is also part of the entry test (a failing one sends the run to the
    // checked version, which reports it where the interpreter would).
    std::string c = "(" + lo + " > " + hi + " || ((__int128)" + lo + off + " >= 0 && (__int128)" + hi + off + " < " + ext + "))";
    for (auto& o : own) c += " && " + o;
    return c;
  };
  // e as a sum of ranged variables, ranged variables times invariants (`o * s + k`, a strided
  // window with a run-time stride) and invariants, each with its sign (`x[i + k - 3]`, a window
  // read): its smallest and largest values are those of the terms, taken apart (a variable
  // used twice is bounded per use, which can only widen the test).
  struct Term {
    NodeRef var, coef;  // coef: null for a plain variable
    int sign;
  };
  using Terms = std::vector<Term>;
  std::function<bool(const NodeRef&, int, Terms&, Terms&)> linear = [&](const NodeRef& x, int sign, Terms& vars, Terms& invs) {
    if (x->kind == Kind::Name && range_of(x)) {
      vars.push_back({x, nullptr, sign});
      return true;
    }
    if (x->kind == Kind::Binary && (static_cast<BinOp>(x->ival) == BinOp::Add || static_cast<BinOp>(x->ival) == BinOp::Sub))
      return linear(ir::bin_lhs(x), sign, vars, invs) &&
             linear(ir::bin_rhs(x), static_cast<BinOp>(x->ival) == BinOp::Sub ? -sign : sign, vars, invs);
    if (x->kind == Kind::Binary && static_cast<BinOp>(x->ival) == BinOp::Mul) {
      const NodeRef &l = ir::bin_lhs(x), &r = ir::bin_rhs(x);
      if (l->kind == Kind::Name && range_of(l) && invariant(r, local)) {
        vars.push_back({l, r, sign});
        return true;
      }
      if (r->kind == Kind::Name && range_of(r) && invariant(l, local)) {
        vars.push_back({r, l, sign});
        return true;
      }
    }
    if (!invariant(x, local)) return false;
    invs.push_back({x, nullptr, sign});
    return true;
  };
  // e's smallest and largest values over the loops (exact, 128-bit C text), the condition that
  // some loop is empty, and that each product fits in 32 bits; false when e is not linear.
  auto linear_parts = [&](const NodeRef& e, std::string& empty, std::string& lo, std::string& hi, std::string& fits) -> bool {
    Terms vars, invs;
    if (!linear(e, 1, vars, invs) || vars.empty()) return false;
    empty.clear();
    fits.clear();
    lo = "(__int128)0";
    hi = "(__int128)0";
    for (auto& [v, coef, sign] : vars) {
      const Range* r = range_of(v);
      const std::string a = index(r->lo).c, b = index(r->hi).c;
      empty += (empty.empty() ? "" : " || ") + a + " >= " + b;
      if (!coef) {
        lo += sign > 0 ? " + (__int128)" + a : " - ((__int128)" + b + " - 1)";
        hi += sign > 0 ? " + ((__int128)" + b + " - 1)" : " - (__int128)" + a;
        continue;
      }
      // v * c at the ends of v's range; the smaller and the larger depend on c's sign. Each
      // product must also fit in 32 bits: the kernel forms it in the index's own (wrapping)
      // type, and a wrapped term summed in a wider type would not be the exact index tested.
      const std::string c = "(__int128)" + index(coef).c;
      const std::string p = "((__int128)" + a + " * " + c + ")", q = "(((__int128)" + b + " - 1) * " + c + ")";
      const std::string mn = "(" + p + " < " + q + " ? " + p + " : " + q + ")";
      const std::string mx = "(" + p + " < " + q + " ? " + q + " : " + p + ")";
      lo += sign > 0 ? " + " + mn : " - " + mx;
      hi += sign > 0 ? " + " + mx : " - " + mn;
      fits += " && " + mn + " >= -((__int128)1 << 31) && " + mx + " < ((__int128)1 << 31)";
    }
    for (auto& [x, coef, sign] : invs) {
      const std::string c = std::string(sign > 0 ? " + " : " - ") + "(__int128)" + index(x).c;
      lo += c;
      hi += c;
    }
    return true;
  };
  auto linear_cond = [&](const NodeRef& e, const std::string& ext) -> std::string {
    std::string empty, lo, hi, fits;
    if (!linear_parts(e, empty, lo, hi, fits)) return "";
    return "(" + empty + " || ((" + lo + ") >= 0 && (" + hi + ") < " + ext + fits + "))";
  };
  // A quotient or remainder of a linear value by a scalar fixed at entry (`Yg[m / MG, m % MG,
  // ..]`: std conv's groups): with c > 0 truncating division is non-decreasing in the dividend,
  // so the quotient lies between lo / c and hi / c; a remainder of a dividend that is never
  // negative lies in [0, min(hi, c - 1)]. The dividend must be exact in 32 bits (the kernel
  // divides the index's own i32 value).
  auto divided_cond = [&](const NodeRef& e, const std::string& ext) -> std::string {
    if (e->kind != Kind::Binary) return "";
    const auto op = static_cast<BinOp>(e->ival);
    if (op != BinOp::Div && op != BinOp::Mod) return "";
    const NodeRef& r = ir::bin_rhs(e);
    if (!entry_divisor(r)) return "";
    std::string empty, lo, hi, fits;
    if (!linear_parts(ir::bin_lhs(e), empty, lo, hi, fits)) return "";
    const std::string c = "(__int128)" + index(r).c;
    const std::string in32 = "(" + lo + ") >= -((__int128)1 << 31) && (" + hi + ") < ((__int128)1 << 31)" + fits;
    const std::string range = op == BinOp::Div
                                  ? "(" + lo + ") / " + c + " >= 0 && (" + hi + ") / " + c + " < " + ext
                                  : "(" + lo + ") >= 0 && ((" + hi + ") < " + ext + " || " + c + " <= " + ext + ")";
    return "(" + empty + " || (" + c + " > 0 && " + in32 + " && " + range + "))";
  };
  // A clamp of any value v between two invariant bounds: `if v < lo { lo } else if v > hi { hi }
  // else { v }` (either test first, < or <=, either side of the comparison; written in place or
  // the body of a called function such as std's clampi) or `__min2(__max2(v, lo), hi)` and
  // `__max2(__min2(v, hi), lo)`. Its value is lo, hi or between them whatever v is (v < lo
  // gives lo; else v > hi gives hi; else lo <= v <= hi; with lo > hi only lo or hi), so it is
  // in [0, ext) when both bounds are: `X[.., clampi(ow * s + b - p, 0, W - 1)]`, an edge-padded
  // window read, is decided by two tests at entry. `arg` maps a callee's parameters to the
  // caller's argument nodes (null: not a parameter); the bounds returned are caller nodes.
  std::function<std::optional<std::pair<NodeRef, NodeRef>>(const NodeRef&, const std::function<NodeRef(const NodeRef&)>&, int)> clamp_bounds =
      [&](const NodeRef& e0, const std::function<NodeRef(const NodeRef&)>& arg, int depth) -> std::optional<std::pair<NodeRef, NodeRef>> {
    const NodeRef e = unwrap_tail(e0);
    if (!e || depth > 2) return std::nullopt;
    auto bound = [&](const NodeRef& n) -> NodeRef {
      NodeRef c = unwrap_tail(n);
      if (c && c->kind == Kind::Name && arg) c = arg(c);
      return c && invariant(c, local) ? c : nullptr;
    };
    if (e->kind == Kind::If && ir::if_else(e)) {
      const NodeRef b1 = unwrap_tail(ir::if_then(e)), inner = unwrap_tail(ir::if_else(e));
      if (!b1 || !inner || inner->kind != Kind::If || !ir::if_else(inner)) return std::nullopt;
      const NodeRef b2 = unwrap_tail(ir::if_then(inner)), v = unwrap_tail(ir::if_else(inner));
      if (!b2 || !v) return std::nullopt;
      const int s1 = bound_test(ir::if_cond(e), v, b1), s2 = bound_test(ir::if_cond(inner), v, b2);
      if (s1 == 0 || s2 == 0 || s1 == s2) return std::nullopt;
      NodeRef lo = bound(b1), hi = bound(b2);
      if (!lo || !hi) return std::nullopt;
      return std::make_pair(lo, hi);
    }
    if (e->kind != Kind::Call) return std::nullopt;
    const NodeRef& callee = ir::call_callee(e);
    const auto& args = ir::call_args(e);
    auto b = callee->kind == Kind::Name ? builtin_of(callee->def) : std::nullopt;
    if (b && (*b == Builtin::Min2 || *b == Builtin::Max2) && args.size() == 2) {
      // The outer call's bound is one argument, the other the inner call of the other builtin
      // with one invariant argument (the other bound).
      bool outer_min = false;
      for (const auto& [in, other] : min_max_nests(e, outer_min)) {
        NodeRef outer = bound(other);
        if (!outer) continue;
        for (size_t j = 0; j < 2; ++j)
          if (NodeRef inner = bound(ir::call_args(in)[j])) return std::make_pair(inner, outer);
      }
      return std::nullopt;
    }
    if (b || arg) return std::nullopt;  // a user function called from a callee: not followed
    auto it = unit->call_targets.find(e->id);
    if (it == unit->call_targets.end() || !it->second->lowered || it->second->params.size() != args.size())
      return std::nullopt;
    const Unit* cu = it->second;
    if (cu->kind != Unit::Kind::Fn || !cu->captures.empty()) return std::nullopt;
    auto param = [&](const NodeRef& n) -> NodeRef {
      for (size_t i = 0; i < cu->params.size(); ++i)
        if (n->def == cu->params[i]) return args[i];
      return nullptr;
    };
    return clamp_bounds(cu->lowered, param, depth + 1);
  };
  axis_cond = [&](const NodeRef& e, const std::string& ext, bool gather) -> std::string {
    NodeRef var, off;
    bool neg = false;
    if (!affine(e, var, off, neg)) {
      if (invariant(e, local)) return "((uint64_t)" + index(e).c + " < (uint64_t)" + ext + ")";
      if (std::string c = linear_cond(e, ext); !c.empty()) return c;
      if (std::string c = divided_cond(e, ext); !c.empty()) return c;
      if (auto cb = clamp_bounds(e, nullptr, 0))
        return "((uint64_t)" + index(cb->first).c + " < (uint64_t)" + ext + " && (uint64_t)" + index(cb->second).c +
               " < (uint64_t)" + ext + ")";
      if (!gather) return "";
      if (e->kind == Kind::Index) return gather_cond(e, ext, "");
      // A gather plus or minus an invariant (`x[idx[n] - 1]`).
      if (e->kind != Kind::Binary) return "";
      auto op = static_cast<BinOp>(e->ival);
      const NodeRef &l = ir::bin_lhs(e), &r = ir::bin_rhs(e);
      if ((op == BinOp::Add || op == BinOp::Sub) && l->kind == Kind::Index && invariant(r, local))
        return gather_cond(l, ext, std::string(op == BinOp::Sub ? " - " : " + ") + "(__int128)" + index(r).c);
      if (op == BinOp::Add && r->kind == Kind::Index && invariant(l, local))
        return gather_cond(r, ext, " + (__int128)" + index(l).c);
      return "";
    }
    const Range* r = range_of(var);
    std::string lo = index(r->lo).c, hi = index(r->hi).c;
    std::string o = off ? index(off).c : "0";
    // Exact (128-bit): a wrapped first or last index would pass the test and run unchecked.
    const char* pm = neg ? " - " : " + ";
    std::string first = "((__int128)" + lo + pm + "(__int128)" + o + ")";
    std::string last1 = "((__int128)" + hi + pm + "(__int128)" + o + ")";  // last + 1
    return "(" + lo + " >= " + hi + " || (" + first + " >= 0 && " + last1 + " <= " + ext + "))";
  };
  std::unordered_set<uint32_t> conditional;
  conditional_reads(stmt, false, conditional);
  entry_guarded_ = false;
  for (auto& x : accesses) {
    // Only reads of this clause's own unit (not of inlined callees) and of real buffers.
    ir::TypeRef t = type_of_def(ir::index_base(x));
    if (ir::rank_of(t) != static_cast<int>(ir::index_args_count(x))) continue;
    bool ok = true;
    std::vector<std::string> mine;
    int b = -1;
    for (size_t a = 1; a < x->kids.size() && ok; ++a) {
      const NodeRef& e = ir::index_args(x)[a - 1];
      if (b < 0) b = buffer_of(ir::index_base(x));
      std::string ext = x->has(ir::kWindowed) && a == 1 ? "b" + std::to_string(b) + "_l0"
                                                         : extent(b, static_cast<int>(a) - 1);
      std::string c = axis_cond(e, ext, true);
      if (c.empty()) ok = false;
      else mine.push_back(c);
    }
    if (!ok || mine.empty()) continue;
    for (auto& m : mine) conds.push_back(m);
    assumed_.insert(x->id);
    entry_guarded_ = entry_guarded_ || conditional.count(x->id) > 0;
  }
  // Integer divisors fixed at entry (kernel scalars: `m / MG`, `i % n`): tested once to be
  // neither 0 (E007) nor -1 (MIN / -1 wraps), so that in the fast version each quotient is
  // plain C, moved out of the loops like any arithmetic (Gen::arith); a run with such a divisor
  // takes the checked version, which fails or wraps where the interpreter does.
  safe_divisors_.clear();
  std::unordered_set<uint32_t> cond_div;
  conditional_reads(stmt, false, cond_div);
  ir::for_each_node(stmt, [&](const NodeRef& x) {
    if (x->kind != Kind::Binary || x->dt < 0 || !is_int(static_cast<DType>(x->dt))) return;
    const auto op = static_cast<BinOp>(x->ival);
    if (op != BinOp::Div && op != BinOp::Mod) return;
    const NodeRef& r = ir::bin_rhs(x);
    if (!entry_divisor(r)) return;
    entry_guarded_ = entry_guarded_ || cond_div.count(x->id) > 0;
    if (!safe_divisors_.insert(def_key(r->def)).second) return;
    const std::string c = index(r).c;
    conds.push_back("(" + c + " != 0 && " + c + " != -1)");
  });
  if (assumed_.empty() && safe_divisors_.empty()) return "";
  std::string all;
  for (auto& c : conds)
    if (all.find(c) == std::string::npos) all += (all.empty() ? "" : " && ") + c;
  std::string name = em.fresh("pc");
  em.line("const bool " + name + " = " + all + ";");
  return name;
}

}  // namespace ein::codegen
