// Reductions (SPEC §5.3) with the interpreter's exact rules: accumulation at the result's
// precision, identities, first-NaN-wins for max/min, first index for argmax/argmin, E006 for
// empty integer max/min, short-circuit all/any. A reduction whose value does not depend on the
// enclosing loops is hoisted out of them (it cannot fail, so computing it earlier is safe).
// A `let` bound to a reduction runs it in parallel with per-thread partials, combined in
// thread order so that ties and NaNs resolve as in sequential order.
#include <algorithm>

#include "engine/codegen/gen.h"
#include "lang/ir/reduce_op.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

using Op = ir::ReduceOp;

Op op_of(const std::string& s) {
  if (auto op = ir::reduce_op_from_name(s)) return *op;
  unsupported("reduction `" + s + "`");
}

bool is_arg(Op op) { return ir::is_arg_reduce(op); }
bool is_extremum(Op op) { return op == Op::Max || op == Op::Min; }
bool is_additive(Op op) { return op == Op::Sum || op == Op::Prod; }

const char* uns(DType dt) { return dt == DType::I32 ? "uint32_t" : dt == DType::I8 ? "uint8_t" : "uint64_t"; }

}  // namespace

// The largest (max) or smallest value of an integer dtype, as C++ text (also contract_tiled.cpp).
std::string int_bound(DType dt, bool max) {
  switch (dt) {
    case DType::I8: return max ? "((i8)127)" : "((i8)-128)";
    case DType::I32: return max ? "INT32_MAX" : "INT32_MIN";
    default: return max ? "INT64_MAX" : "INT64_MIN";
  }
}

// Names defined inside n (its own loop variables and lets) are not free.
static void defined_in(const NodeRef& n, std::vector<ir::DefId>& out) {
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::LoopVar || x->kind == Kind::LLetIn || x->kind == Kind::PBind || x->kind == Kind::LFor)
      out.push_back(x->def);
  });
}

int Gen::free_level(const NodeRef& n, std::string* key) const {
  std::vector<ir::DefId> own;
  defined_in(n, own);
  int level = 0;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind != Kind::Name) return;
    if (std::find(own.begin(), own.end(), x->def) != own.end()) return;
    if (const Val* v = lookup(x->def)) {
      level = std::max(level, v->level);
      if (key) *key += v->c + ",";
    }
  });
  return level;
}

bool Gen::may_fail(const NodeRef& n, const Unit& u, int depth) const {
  if (depth > 8) return true;
  bool fail = false;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (fail) return;
    switch (x->kind) {
      case Kind::Index: {
        const NodeRef& base = ir::index_base(x);
        if (base->kind == Kind::Name && base->def == out_def && !earlier_row_read(x)) fail = true;
        auto fp = fusion.producers.find(base->def);
        if (fp != fusion.producers.end()) fail = may_fail(fp->second, u, depth + 1);
        else if (!is_proven(u, x) && !assumed(x)) fail = true;
        break;
      }
      case Kind::Binary: {
        auto op = static_cast<ir::BinOp>(x->ival);
        bool int_op = x->dt >= 0 && is_int(static_cast<DType>(x->dt));
        // (A literal divisor other than 0 cannot fail: literals are not negative, and
        // Gen::binary emits such a quotient as plain C.)
        const NodeRef& rhs = ir::bin_rhs(*x);
        const bool literal_divisor =
            (rhs->kind == Kind::IntLit && rhs->ival > 0 && rhs->ival <= INT32_MAX) || safe_divisor(rhs);
        if (int_op && (((op == ir::BinOp::Div || op == ir::BinOp::Mod) && !literal_divisor) || op == ir::BinOp::Pow))
          fail = true;
        break;
      }
      case Kind::LCheck: fail = true; break;
      case Kind::LReduce: {
        // Only an empty domain fails (E006): not when every range is known to hold a value and
        // no `where` filters it (a guard may leave nothing: differential seed 42000000000083).
        Op op = op_of(x->name);
        bool int_val = x->dt >= 0 && is_int(static_cast<DType>(x->dt));
        if (is_arg(op) || ((op == Op::Max || op == Op::Min) && int_val)) {
          ir::for_each_node(ir::lreduce_body(x), [&](const NodeRef& g) { fail = fail || g->kind == Kind::LGuard; });
          for (const NodeRef& k : ir::lreduce_items(x)) {
            if (k->kind != Kind::LoopVar) {
              fail = true;
              continue;
            }
            auto trip = static_trip(cx, u, ir::loopvar_lo(*k), ir::loopvar_hi(*k));
            fail = fail || !trip || *trip < 1;
          }
        }
        break;
      }
      case Kind::Call: {
        auto it = u.call_targets.find(x->id);
        if (it != u.call_targets.end() && it->second->lowered) fail = may_fail(it->second->lowered, *it->second, depth + 1);
        break;
      }
      default: break;
    }
  });
  return fail;
}

// A read of the tensor being written at `v - c` (c >= 1) on an axis where the clause's only
// store writes at `v` (a loop variable, or the step's `LLet t = t'`): wherever v is bound, every
// store writes row v, so the rows the read sees are fixed while the code under v runs (a
// recurrence step reading its previous row: `max[k](h[t - 1, k])` at every point of row t).
// Such a reduction may be computed once per step, before the row's loop, instead of per point
// (its free level already keeps it inside v's scope). A storage window keeps more rows than the
// lookback, so row v never shares row v - c's memory.
bool Gen::earlier_row_read(const NodeRef& x) const {
  if (!clause_root_) return false;
  NodeRef store;
  int stores = 0;
  // (Stores into block-local arrays, gen_local.cpp, are not the clause's: a step's scratch row.)
  ir::for_each_node(clause_root_, [&](const NodeRef& n) {
    if (n->kind != Kind::LStore || is_local_def(n->def)) return;
    ++stores;
    if (n->def == out_def) store = n;
  });
  if (stores != 1 || !store) return false;
  ir::Kids at = ir::lstore_index(*store);
  for (size_t a = 0; a + 1 < x->kids.size() && a < at.size(); ++a) {
    const NodeRef& w = at[a];
    const NodeRef& r = x->kids[a + 1];
    if (w->kind != Kind::Name || !w->def.valid()) continue;
    if (r->kind != Kind::Binary || static_cast<ir::BinOp>(r->ival) != ir::BinOp::Sub) continue;
    const NodeRef& v = ir::bin_lhs(*r);
    const NodeRef& c = ir::bin_rhs(*r);
    if (v->kind == Kind::Name && v->def == w->def && c->kind == Kind::IntLit && c->ival >= 1) return true;
  }
  return false;
}

void Gen::context_at(int level) {
  ord_ = "0";
  stop_ord_ = "INT64_MAX";
  in_parallel = false;
  for (auto& L : loops) {
    if (L.level > level) break;
    ord_ = L.ord_in;
    stop_ord_ = L.stop_in;
    in_parallel = L.parallel_in;
  }
}

Val Gen::reduce(const NodeRef& r) {
  std::string key = "red#" + std::to_string(r->id) + "|";
  int lvl = free_level(r, &key);
  if (const std::string* hit = em.find(key)) return Val{*hit, dtype_of(r), em.depth()};
  int target = em.depth();
  // A fused row reduction whose terms the row's loop reads back (gen_rowbuf.cpp) is never
  // speculative work: hoisted before the row, it computes the terms the row would compute
  // itself, under whatever branch reads them (`if j <= i { exp(..) / z[i] }` with run-time
  // extents, where `speculate` cannot count the trips).
  const bool keep = row_reads_.count(r->id) > 0;
  if (lvl < target && !may_fail(r, *unit, 0))
    target = keep || speculate(r, lvl) ? lvl : std::max(lvl, em.innermost_cond());
  if (assume_) target = std::max(target, assume_level_);
  // A loop that never runs (its bounds fold to an empty range) may hold reads proven only
  // vacuously, over that empty range: nothing inside it is computed outside it (fuzz, session
  // 18: a hoisted sum read 2^31 past an array and the process died).
  for (const LoopInfo& L : loops)
    if (L.level <= em.depth() && L.trip && *L.trip <= 0) target = std::max(target, L.level);
  const int memo_at = assume_ ? std::max(lvl, assume_level_) : lvl;
  // A fused row reduction (load_fused) runs once per row: hoisted, or at its first use in the
  // row (memo); computed at every point of the row it would cost a row per point. One whose
  // terms are kept for the row's loop (gen_rowbuf.cpp) must run before that loop: hoisted.
  const bool row = fused_rows_.count(r->id) > 0 && lvl < em.depth();
  if (keep && target >= em.depth()) unsupported("a fused row reduction that cannot run before its row");
  if (!keep && memo_at < target && memo_allowed(r, memo_at, target)) return reduce_memo(r, key, memo_at);
  if (row && target >= em.depth()) unsupported("a fused row reduction computed at every point");
  if (target >= em.depth()) return reduce_here(r, key);
  std::string saved_ord = ord_, saved_stop = stop_ord_;
  bool saved_par = in_parallel, saved_simd = in_simd;
  Val v;
  {
    Emitter::Detour d(em, target);
    context_at(target);
    // Outside the loops it leaves, a vector loop of this scope no longer encloses the code.
    for (const LoopInfo& L : loops)
      if (L.head_level > target) {
        in_simd = L.saved_simd;
        break;
      }
    const uint32_t saved_keep = keeping_;
    keeping_ = keep ? r->id : 0;
    kept_ = 0;
    v = reduce_here(r, key);
    keeping_ = saved_keep;
    if (keep && kept_ == 0) unsupported("a kept row reduction took another form");
  }
  ord_ = saved_ord;
  stop_ord_ = saved_stop;
  in_parallel = saved_par;
  in_simd = saved_simd;
  return v;
}

// A reduction that cannot fail may be computed before a branch that guards it (speculated) when
// it is hoisted out of at least one loop whose static trip count is no smaller than its own
// number of terms: at worst it doubles that loop's work, and the loop is left without the
// reduction's loop and branch inside, so it can vectorise (the adjoint of a row max reads the
// row's argmax under a branch at every point of the row).
bool Gen::speculate(const NodeRef& r, int lvl) const {
  double terms = 1;
  for (const NodeRef& k : ir::lreduce_items(r)) {
    if (k->kind != Kind::LoopVar) continue;
    auto trip = static_trip(cx, *unit, ir::loopvar_lo(*k), ir::loopvar_hi(*k));
    if (!trip) return false;
    terms *= static_cast<double>(*trip);
  }
  for (const LoopInfo& L : loops) {
    if (L.head_level <= lvl || L.level > em.depth()) continue;
    if (L.trip && static_cast<double>(*L.trip) >= terms) return true;
  }
  return false;
}

// A reduction that does not move with a loop it sits in, but may not be hoisted out of it (it
// may fail, or a branch inside the loop guards it: speculating it would cost work the branch
// was meant to save), is computed at its first use in each iteration of the scope where its
// operands exist and reused at later uses: `if (!ok) { r = ...; ok = true; }`. The adjoint of a
// row reduction reads the row's argmax or normaliser at every point of the row; this makes that
// one reduction per row instead of one per point. The first use is where the plain form would
// evaluate it first, so failures (E006 for an empty argmax) happen at the same point. Not across
// a parallel region (the flag would be shared), and not for reductions reading the tensor being
// written (its values change inside the loop). A simd loop in between loses its simd hint
// (dropping it is always valid; a loop holding a reduction loop and branches did not vectorise).
bool Gen::memo_allowed(const NodeRef& r, int memo_at, int use_at) {
  const LoopInfo* first_inside = nullptr;
  for (const LoopInfo& L : loops)
    if (L.head_level > memo_at && !first_inside) first_inside = &L;
  if (!first_inside || first_inside->level > use_at) return false;
  // Emitting into an ancestor scope (an Emitter::Detour hoisting an invariant value) sets the
  // inner scopes aside: loops recorded deeper than the current chain have no header to edit
  // (a reduction inside such a hoisted value crashed here: differential seed 1000197).
  for (const LoopInfo& L : loops)
    if (L.head_level > memo_at && L.level > em.depth()) return false;
  const std::string saved_ord = ord_, saved_stop = stop_ord_;
  const bool saved_par = in_parallel;
  context_at(memo_at);
  const bool same_region = in_parallel == saved_par;
  ord_ = saved_ord;
  stop_ord_ = saved_stop;
  in_parallel = saved_par;
  if (!same_region) return false;
  bool writes = false;
  ir::for_each_node(r, [&](const NodeRef& x) {
    if (x->kind == Kind::Index && ir::index_base(x)->kind == Kind::Name && ir::index_base(x)->def == out_def &&
        !earlier_row_read(x))
      writes = true;
  });
  if (writes) return false;
  if (in_simd && !first_inside->saved_simd) {
    std::vector<LoopInfo*> hinted;
    for (LoopInfo& L : loops)
      if (L.head_level > memo_at && L.simd_hint) hinted.push_back(&L);
    if (hinted.empty()) return false;  // a contraction's own vector loops: leave them alone
    for (LoopInfo* L : hinted) {
      std::string& h = em.header(L->level);
      h.erase(0, h.find('\n') + 1);
      L->simd_hint = false;
    }
    in_simd = false;  // restored when the loop closes
  }
  return true;
}

Val Gen::reduce_memo(const NodeRef& r, const std::string& key, int memo_at) {
  const std::string memo = em.fresh("memo"), ok = memo + "k";
  em.open("if (!" + ok + ") {", true);
  Val v = reduce_here(r, key);
  em.line(memo + " = " + v.c + "; " + ok + " = true;");
  em.close();
  // Declared after the fact: the scope's text so far precedes the scopes nested in it.
  em.line_at(memo_at, std::string(ctype(v.dt)) + " " + memo + " = 0; bool " + ok + " = false;");
  em.remember(em.depth(), key, memo);
  return Val{memo, v.dt, em.depth()};
}

void Gen::red_init(const RedVars& R) {
  std::string T = R.wide ? "double" : ctype(R.dt);
  switch (R.op) {
    case Op::Sum: em.line(T + " " + R.acc + " = 0;"); break;
    case Op::Prod: em.line(T + " " + R.acc + " = 1;"); break;
    case Op::Max:
    case Op::Min: {
      bool mx = R.op == Op::Max;
      if (is_float(R.dt)) em.line(T + " " + R.acc + " = " + (mx ? "-" : "") + (R.dt == DType::F32 ? "__builtin_inff();" : "__builtin_inf();") +
                                  (R.simd_max ? " int " + R.nan + " = 0;" : ""));
      else em.line(T + " " + R.acc + " = " + int_bound(R.dt, !mx) + "; bool " + R.has + " = false;");
      break;
    }
    case Op::All: em.line("bool " + R.acc + " = true;"); break;
    case Op::Any: em.line("bool " + R.acc + " = false;"); break;
    case Op::ArgMax:
    case Op::ArgMin: em.line(std::string(ctype(R.vt)) + " " + R.acc + " = 0; int64_t " + R.arg + " = -1;"); break;
  }
}

void Gen::red_step(const RedVars& R, const std::string& v, const std::string& first) {
  std::string T = ctype(R.dt);
  const std::string& a = R.acc;
  switch (R.op) {
    case Op::Sum:
    case Op::Prod: {
      const char* o = R.op == Op::Sum ? "+" : "*";
      if (is_float(R.dt)) em.line(a + " " + o + "= " + v + ";");
      else if (R.dt == DType::I8) em.line(a + " = (i8)((int)" + a + " " + o + " (int)" + v + ");");
      else em.line(a + " = (" + T + ")((" + uns(R.dt) + ")" + a + " " + o + " (" + uns(R.dt) + ")" + v + ");");
      break;
    }
    case Op::Max:
    case Op::Min:
      if (is_float(R.dt) && R.simd_max)
        em.line(a + " = " + v + (R.op == Op::Max ? " > " : " < ") + a + " ? " + v + " : " + a + "; " + R.nan + " |= (" + v + " != " + v + ");");
      else if (is_float(R.dt)) em.line(std::string(R.op == Op::Max ? "EIN_FMAX_STEP(" : "EIN_FMIN_STEP(") + a + ", " + v + ");");
      else em.line(a + " = " + v + (R.op == Op::Max ? " > " : " < ") + a + " ? " + v + " : " + a + "; " + R.has + " = true;");
      break;
    case Op::All:
      if (R.no_exit) em.line(a + " = " + a + " && " + v + ";");
      else em.line("if (!(" + v + ")) { " + a + " = false; goto " + R.label + "; }");
      break;
    case Op::Any:
      if (R.no_exit) em.line(a + " = " + a + " || " + v + ";");
      else em.line("if (" + v + ") { " + a + " = true; goto " + R.label + "; }");
      break;
    case Op::ArgMax:
    case Op::ArgMin: {
      const char* cmp = R.op == Op::ArgMax ? " > " : " < ";
      if (R.arg_pass == 1) {
        em.line(a + " = " + v + cmp + a + " ? " + v + " : " + a + ";" +
                (is_float(R.vt) ? " " + R.nan + " |= (" + v + " != " + v + ");" : ""));
        break;
      }
      if (R.arg_pass >= 2) {
        std::string hit = is_float(R.vt) ? "(" + R.nan + " ? " + v + " != " + v + " : " + v + " == " + a + ")"
                                         : "(" + v + " == " + a + ")";
        if (R.arg_pass == 2) em.line(R.has + " |= " + hit + ";");
        else em.line(R.arg + " = " + hit + " && " + first + " < " + R.arg + " ? " + first + " : " + R.arg + ";");
        break;
      }
      std::string better = is_float(R.vt) ? "(" + a + " == " + a + " && (" + v + " != " + v + " || " + v + cmp + a + "))"
                                          : "(" + v + cmp + a + ")";
      em.line("if (" + R.arg + " < 0 || " + better + ") { " + a + " = " + v + "; " + R.arg + " = " + first + "; }");
    }
  }
}

Val Gen::red_result(const RedVars& R, const NodeRef& r) {
  if (R.simd_max) em.line("if (" + R.nan + ") " + R.acc + " = " + (R.dt == DType::F32 ? "__builtin_nanf(\"\");" : "__builtin_nan(\"\");"));
  if (is_extremum(R.op) && !is_float(R.dt)) {
    int st = site(r->span, "E006", r->name + " over an empty range of integers");
    em.line("if (!" + R.has + ") ein_fail(A, " + std::to_string(st) + ", EIN_E_EMPTY, " + ord_ + ", 0, 0, 0);");
  }
  if (is_arg(R.op)) {
    int st = site(r->span, "E006", r->name + " over an empty range");
    em.line("if (" + R.arg + " < 0) ein_fail(A, " + std::to_string(st) + ", EIN_E_EMPTY, " + ord_ + ", 0, 0, 0);");
    return em.define(DType::I32, "i32", "((i32)" + R.arg + ")", em.depth(), Motion::Pinned);
  }
  if (R.wide) return em.define(R.dt, ctype(R.dt), "((float)" + R.acc + ")", em.depth(), Motion::Pinned);
  return Val{R.acc, R.dt, em.depth()};
}

Gen::RedVars Gen::red_vars(const NodeRef& r) {
  RedVars R;
  R.op = op_of(r->name);
  R.dt = dtype_of(r);
  R.vt = is_arg(R.op) ? dtype_of(ir::lreduce_body(r)) : R.dt;
  if (!kernel_dtype(R.dt) || !kernel_dtype(R.vt)) unsupported("an f16/bf16 reduction");
  if (ir::is_logical_reduce(R.op) && R.dt != DType::Bool) unsupported("all/any of non-bool");
  R.wide = R.op == Op::Sum && R.dt == DType::F32;
  R.acc = em.fresh("r");
  R.has = R.acc + "h";
  R.arg = R.acc + "g";
  R.label = R.acc + "_done";
  R.nan = R.acc + "n";
  return R;
}

// Guards (and where-bindings) over a float sum/max/min whose body cannot fail and calls
// nothing (a guard may be there to skip an expensive call): evaluated at every point and
// combined as a select, so the loop vectorises. Masked row means of 4096 x 1024 f32: 0.86 ->
// 0.42 x NumPy (probes.py).
bool Gen::select_guards(const NodeRef& r, const NodeRef& body, const RedVars& R) const {
  if (!innermost(r) || (body->kind != Kind::LGuard && body->kind != Kind::LLetIn)) return false;
  if ((R.op != Op::Sum && !is_extremum(R.op)) || !is_float(R.dt) || in_simd || may_fail(body, *unit, 0)) return false;
  // Calls only of cheap math (exp, sqrt, abs: what a masked softmax's row sum computes, and what
  // the emitter computes before the guard's branch anyway): a libm call or a user function at
  // every skipped point would cost what the guard saves.
  return cheap_calls(body, *unit, 0);
}

// The body of one point: lets, guards (skip the point), then the accumulation.
void Gen::red_point(const RedVars& R, const NodeRef& body, const std::string& first) {
  size_t m = mark();
  int opened = 0;
  NodeRef cur = body;
  if (R.select) {
    // Every guard is evaluated, then the value or the identity is taken: the same result, since
    // a sum never holds -0 (adding +0 changes nothing) and max/min ignore -inf/+inf. A kept row
    // term (gen_rowbuf.cpp) is stored at every point: where a guard fails, the consumer reads
    // no term (only under `if`s on the guards) and overwrites the position.
    std::string cond;
    while (cur->kind == Kind::LLetIn || cur->kind == Kind::LGuard) {
      if (cur->kind == Kind::LLetIn) {
        bind(cur->def, value(ir::lletin_value(cur)));
        cur = ir::lletin_body(cur);
      } else {
        Val c = value(ir::lguard_cond(cur));
        cond = cond.empty() ? c.c : "(" + cond + " && " + c.c + ")";
        cur = ir::lguard_value(cur);
      }
    }
    Val raw = value(cur);
    if (keeping_) keep_row_term(raw, first);
    Val v = convert(raw, R.vt);
    const char* inf = R.vt == DType::F32 ? "__builtin_inff()" : "__builtin_inf()";
    const std::string id = R.op == Op::Sum ? "0" : R.op == Op::Max ? std::string("(-") + inf + ")" : std::string(inf);
    red_step(R, cond.empty() ? v.c : "(" + cond + " ? " + v.c + " : (" + ctype(R.vt) + ")" + id + ")", first);
    unbind_to(m);
    return;
  }
  while (true) {
    if (cur->kind == Kind::LLetIn) {
      bind(cur->def, value(ir::lletin_value(cur)));
      cur = ir::lletin_body(cur);
    } else if (cur->kind == Kind::LGuard) {
      Val c = value(ir::lguard_cond(cur));
      em.open("if (" + c.c + ") {", true);
      ++opened;
      cur = ir::lguard_value(cur);
    } else {
      break;
    }
  }
  Val raw = value(cur);
  if (keeping_) keep_row_term(raw, first);  // inside the guards: kept where they hold
  Val v = convert(raw, R.vt);
  red_step(R, v.c, first);
  while (opened-- > 0) em.close();
  unbind_to(m);
}

// The loop over the j-th variable of a reduction; innermost when it and the loops inside it are
// small enough to unroll or vectorise.
Gen::LoopSpec Gen::red_loop(const NodeRef& r, const std::vector<NodeRef>& vars, size_t j) {
  LoopSpec sp;
  sp.lo = ir::loopvar_lo(*vars[j]);
  sp.hi = ir::loopvar_hi(*vars[j]);
  sp.def = vars[j]->def;
  sp.loop = vars[j];
  sp.innermost = innermost(r);
  for (size_t l = j + 1; l < vars.size() && sp.innermost; ++l) sp.innermost = loop_fact(vars[l]).unrolled;
  return sp;
}

Val Gen::reduce_here(const NodeRef& r, const std::string& key) {
  std::vector<NodeRef> vars;
  for (const NodeRef& k : ir::lreduce_items(r)) {
    if (k->kind == Kind::LoopVar) vars.push_back(k);
    else if (k->kind == Kind::LCheck) stmt(k);
  }
  if (Val v = reduce_interchanged(r, key); !v.c.empty()) return v;
  // Guards that only bound a variable (`where j <= i`) become its loop's bounds; `fits`: when
  // that holds only for ranges within i32, the guarded loops are the other version.
  std::vector<std::string> lo_c, hi_c;
  std::string fits;
  const NodeRef body = bound_guards(r, vars, lo_c, hi_c, fits);
  const NodeRef& guarded = ir::lreduce_body(r);
  // Short rows known before the run (a class axis of 10) take the one-pass loop: the two
  // vectorised passes and their block bookkeeping cost more than they save below ~32 values.
  auto short_row = [&](const NodeRef& v) {
    auto trip = static_trip(cx, *unit, ir::loopvar_lo(*v), ir::loopvar_hi(*v));
    return trip && *trip <= 32;
  };
  auto plain = [&](const NodeRef& b) { return innermost(r) && b->kind != Kind::LGuard && b->kind != Kind::LLetIn; };
  if (fits.empty() && plain(body) && vars.size() == 1 && is_arg(op_of(r->name)) && !may_fail(body, *unit, 0) &&
      !in_simd && !short_row(vars[0]))
    return arg_reduce_simd(r, vars[0], key, body, lo_c.empty() ? "" : lo_c[0], hi_c.empty() ? "" : hi_c[0]);
  RedVars R = red_vars(r);
  auto vector = [&](const NodeRef& b, bool select) {
    return (plain(b) || select) && !is_arg(R.op) && !ir::is_logical_reduce(R.op) && is_float(R.dt) &&
           !may_fail(b, *unit, 0) && !in_simd;
  };
  const bool sel = select_guards(r, body, R), sel_guarded = !fits.empty() && select_guards(r, guarded, R);
  // (a max/min's NaN flag form is the same result in a scalar loop, so one form serves both)
  R.simd_max = is_extremum(R.op) && (vector(body, sel) || (!fits.empty() && vector(guarded, sel_guarded)));
  red_init(R);
  auto version = [&](const NodeRef& b, bool select, bool bounded) {
    R.select = select;
    const bool simd = vector(b, select);
    std::string first;
    for (size_t j = 0; j < vars.size(); ++j) {
      LoopSpec sp = red_loop(r, vars, j);
      if (bounded && !lo_c.empty() && !lo_c[j].empty()) {
        // Within the variable's own range: its magnitude bound stays.
        sp.bits = std::max(index(sp.lo).bits, index(sp.hi).bits);
        sp.lo_c = lo_c[j];
        sp.hi_c = hi_c[j];
      }
      sp.simd = sp.innermost && simd;
      if (sp.simd && is_additive(R.op)) sp.simd_clause = std::string("reduction(") + (R.op == Op::Sum ? "+" : "*") + ":" + R.acc + ")";
      if (sp.simd && R.simd_max)
        sp.simd_clause = std::string("reduction(") + (R.op == Op::Max ? "max" : "min") + ":" + R.acc + ") reduction(|:" + R.nan + ")";
      std::string v = open_loop(sp);
      if (j == 0) first = v;
    }
    red_point(R, b, vars.empty() ? "0" : first);
    for (size_t j = 0; j < vars.size(); ++j) close_loop();
  };
  if (fits.empty()) {
    version(body, sel, true);
  } else {
    em.open("if (" + fits + ") {", true);
    version(body, sel, true);
    em.close();
    em.open("else {", true);
    version(guarded, sel_guarded, false);
    em.close();
  }
  if (ir::is_logical_reduce(R.op)) em.line(R.label + ":;");
  Val out = red_result(R, r);
  em.remember(em.depth(), key, out.c);
  return out;
}

// A one-branch compare-and-keep loop does not vectorise. Instead, one pass in vector lanes:
// lane l of each block of W points keeps the best value it has seen and the block where it
// first saw it, by the one-pass loop's own rule (a NaN, or a strictly better value, replaces
// the lane's best; a NaN stays), and the lanes are combined after the row: the first NaN if
// a lane holds one, else the largest (argmin: smallest) value at its smallest index. A lane's
// index is the first of its own best value, so the combined index is the row's first one —
// the one-pass loop's index, NaN rule and E006 for an empty range, reading the row once (the
// earlier form found the extremum, then searched for its first index: two passes). Lanes
// start at -inf (+inf, the integer bound), which no value beats, so a row of nothing but that
// value leaves every lane empty: its first index, as the loop's "the first element is taken"
// says. Bodies that cannot fail only (each point is evaluated once, as in the loop).
Val Gen::arg_reduce_simd(const NodeRef& r, const NodeRef& var, const std::string& key, const NodeRef& body,
                         const std::string& lo_c, const std::string& hi_c) {
  RedVars R = red_vars(r);
  const bool mx = R.op == Op::ArgMax, flt = is_float(R.vt);
  const std::string T = ctype(R.vt), cmp = mx ? " > " : " < ";
  // Two 512-bit vectors of values per block: two independent compare/select chains.
  const std::string W = dtype_storage_bytes(R.vt) >= 8 ? "16" : "32";
  const std::string init = flt ? std::string(mx ? "-" : "") + (R.vt == DType::F32 ? "__builtin_inff()" : "__builtin_inf()")
                               : int_bound(R.vt, !mx);
  Val lo = index(ir::loopvar_lo(*var)), hi = index(ir::loopvar_hi(*var));
  const int bits = std::max(lo.bits, hi.bits);
  if (!lo_c.empty()) {  // bounds from the guards (reduce_bounds.cpp), within the variable's range
    lo.c = lo_c;
    hi.c = hi_c;
  }
  const std::string n = R.acc + "c", nb = R.acc + "b", bv = R.acc + "v", bk = R.acc + "k", blk = R.acc + "q";
  em.line(T + " " + R.acc + " = 0; int64_t " + R.arg + " = -1;");
  em.line("const int64_t " + n + " = ein_isub(" + hi.c + ", " + lo.c + ");");
  const bool saved_simd = in_simd;
  // One point of lane `l` in block `b` (b = the block count for the tail).
  auto point = [&](const std::string& j, const std::string& l, const std::string& b) {
    size_t m = mark();
    Val x{j, DType::I64, em.depth(), true};
    x.bits = bits;
    bind(var->def, x);
    Val v = convert(value(body), R.vt);
    const std::string cur = bv + "[" + l + "]", t = em.fresh("bt");
    em.line("const bool " + t + " = " +
            (flt ? "(" + cur + " == " + cur + ") & ((" + v.c + " != " + v.c + ") | (" + v.c + cmp + cur + "))"
                 : "(" + v.c + cmp + cur + ")") + ";");
    em.line(cur + " = " + t + " ? " + v.c + " : " + cur + "; " + bk + "[" + l + "] = " + t + " ? " + b + " : " + bk + "[" +
            l + "];");
    unbind_to(m);
  };
  // Block numbers are int32 (a lane's index vector as wide as its values): rows below 2^35.
  // Values of 4 or 8 bytes run the blocks in two 64-byte vectors of the compiler's vector
  // extension (vec below); others (and the tail) in the lane arrays.
  const int bytes = dtype_storage_bytes(R.vt);
  const bool vec = bytes == 4 || bytes == 8;
  const std::string K = vec && bytes == 8 ? "int64_t" : "int32_t";
  em.open("if (" + n + " > 0 && " + n + " < (1LL << 35)) {", true);
  em.line(T + " " + bv + "[" + W + "]; " + K + " " + bk + "[" + W + "];");
  em.line("for (int l = 0; l < " + W + "; ++l) { " + bv + "[l] = " + init + "; " + bk + "[l] = -1; }");
  em.line("const int32_t " + nb + " = (int32_t)(" + n + " / " + W + ");");
  const std::string j0 = em.fresh("j0"), l = em.fresh("l"), j = em.fresh("j");
  // The vector form: the omp simd loop computes the block's W values into an array (any body),
  // then each 64-byte half is compared with its lanes' best in one vector compare and select
  // (lane arrays updated in place did not stay in registers: the loop ran at a third of the
  // memory bandwidth). Strictly better only: a NaN never replaces, so a row holding one is
  // flagged (`nan`) and takes the one-pass loop below, the body evaluated again (bodies that
  // cannot fail only, so that is the same value).
  const std::string VT = R.acc + "VT", VI = R.acc + "VI", vv0 = R.acc + "V0", vv1 = R.acc + "V1", vk0 = R.acc + "K0",
                    vk1 = R.acc + "K1", vn = R.acc + "N", bt = R.acc + "t", done = R.acc + "d";
  const std::string half = std::to_string(64 / std::max(bytes, 1));
  if (vec) {
    em.line("typedef " + T + " " + VT + " __attribute__((vector_size(64))); typedef " + K + " " + VI +
            " __attribute__((vector_size(64)));");
    em.line(VT + " " + vv0 + ", " + vv1 + "; " + VI + " " + vk0 + ", " + vk1 + ", " + vn + " = {};");
    em.line("__builtin_memcpy(&" + vv0 + ", " + bv + ", 64); __builtin_memcpy(&" + vv1 + ", " + bv + " + " + half + ", 64); __builtin_memcpy(&" +
            vk0 + ", " + bk + ", 64); __builtin_memcpy(&" + vk1 + ", " + bk + " + " + half + ", 64);");
  }
  em.open("for (int32_t " + blk + " = 0; " + blk + " < " + nb + "; ++" + blk + ") {", false);
  em.line("if ((" + blk + " & 4095) == 0 && ein_stop(A, " + stop_ord_ + ")) break;");
  em.line("const int64_t " + j0 + " = " + lo.c + " + (int64_t)" + blk + " * " + W + ";");
  if (vec) em.line(T + " " + bt + "[" + W + "];");
  em.open("#pragma omp simd\nfor (int " + l + " = 0; " + l + " < " + W + "; ++" + l + ") {", false);
  in_simd = true;
  em.line("const int64_t " + j + " = " + j0 + " + " + l + ";");
  if (vec) {
    size_t m = mark();
    Val x{j, DType::I64, em.depth(), true};
    x.bits = bits;
    bind(var->def, x);
    Val v = convert(value(body), R.vt);
    em.line(bt + "[" + l + "] = " + v.c + ";");
    unbind_to(m);
  } else {
    point(j, l, blk);
  }
  em.close();
  if (vec) {
    const std::string t0v = R.acc + "u0", t1v = R.acc + "u1", m0 = R.acc + "m0", m1 = R.acc + "m1";
    em.line(VT + " " + t0v + ", " + t1v + "; __builtin_memcpy(&" + t0v + ", " + bt + ", 64); __builtin_memcpy(&" + t1v + ", " + bt + " + " +
            half + ", 64);");
    em.line("const " + VI + " " + m0 + " = " + t0v + cmp + vv0 + ", " + m1 + " = " + t1v + cmp + vv1 + ";");
    if (flt) em.line(vn + " |= (" + t0v + " != " + t0v + ") | (" + t1v + " != " + t1v + ");");
    em.line(vv0 + " = " + m0 + " ? " + t0v + " : " + vv0 + "; " + vk0 + " = " + m0 + " ? " + VI + "{} + " + blk + " : " + vk0 +
            "; " + vv1 + " = " + m1 + " ? " + t1v + " : " + vv1 + "; " + vk1 + " = " + m1 + " ? " + VI + "{} + " + blk + " : " +
            vk1 + ";");
  }
  em.close();
  em.line("bool " + done + " = true;");
  if (vec) {
    em.line("__builtin_memcpy(" + bv + ", &" + vv0 + ", 64); __builtin_memcpy(" + bv + " + " + half + ", &" + vv1 + ", 64); __builtin_memcpy(" +
            bk + ", &" + vk0 + ", 64); __builtin_memcpy(" + bk + " + " + half + ", &" + vk1 + ", 64);");
    if (flt) em.line("for (int l = 0; l < " + half + "; ++l) " + done + " = " + done + " && " + vn + "[l] == 0;");
  }
  em.open("if (" + done + ") {", true);
  const std::string t0 = em.fresh("j0"), tj = em.fresh("j");
  em.line("const int64_t " + t0 + " = " + lo.c + " + (int64_t)" + nb + " * " + W + ";");
  em.open("for (int64_t " + tj + " = " + t0 + "; " + tj + " < " + hi.c + "; ++" + tj + ") {", false);
  point(tj, "(" + tj + " - " + t0 + ")", nb);
  em.close();
  in_simd = saved_simd;
  // The lanes in any order: the key is (NaN first, then the better value, then the smaller index).
  em.open("for (int l = 0; l < " + W + "; ++l) {", false);
  em.line("if (" + bk + "[l] < 0) continue;");
  em.line("const " + T + " v = " + bv + "[l]; const int64_t i = " + lo.c + " + (int64_t)" + bk + "[l] * " + W + " + l;");
  const std::string& a = R.acc;
  std::string better = flt ? "(" + a + " == " + a + " ? (v != v || v" + cmp + a + " || (v == " + a + " && i < " + R.arg +
                                 ")) : (v != v && i < " + R.arg + "))"
                           : "(v" + cmp + a + " || (v == " + a + " && i < " + R.arg + "))";
  em.line("if (" + R.arg + " < 0 || " + better + ") { " + a + " = v; " + R.arg + " = i; }");
  em.close();
  em.line("if (" + R.arg + " < 0) " + R.arg + " = " + lo.c + ";");
  em.close();
  em.close();
  // Longer rows (or none), and rows the vector form saw a NaN in: the one-pass loop.
  em.open("if (" + R.arg + " < 0 && " + n + " > 0) {", true);
  LoopSpec sp = red_loop(r, {var}, 0);
  sp.simd = false;
  sp.lo_c = lo.c;
  sp.hi_c = hi.c;
  sp.bits = bits;
  std::string v = open_loop(sp);
  R.arg_pass = 0;
  red_point(R, body, v);
  close_loop();
  em.close();
  Val out = red_result(R, r);
  em.remember(em.depth(), key, out.c);
  return out;
}

Val Gen::reduce_parallel(const NodeRef& r) {
  Op op = op_of(r->name);
  std::vector<NodeRef> vars;
  for (const NodeRef& k : ir::lreduce_items(r))
    if (k->kind == Kind::LoopVar) vars.push_back(k);
  // all/any stop at the first decisive point; in parallel every point is evaluated, which is
  // only the same when no point can fail.
  bool logical = op == Op::All || op == Op::Any;
  if (vars.empty() || !allow_parallel || (logical && may_fail(r, *unit, 0))) return reduce(r);
  for (const NodeRef& k : ir::lreduce_items(r))
    if (k->kind == Kind::LCheck) stmt(k);
  // Guards that only bound a variable (`where i < n`, `where i >= 10`) become its loop's
  // bounds here too (reduce_bounds.cpp), before the team opens: every thread's share of the
  // static schedule is then a share of the points the guard keeps. Where that holds only for
  // ranges within i32 (run-time extents: `fits`), the guarded loops stay, as one version.
  std::vector<std::string> lo_c, hi_c;
  std::string fits;
  NodeRef body = bound_guards(r, vars, lo_c, hi_c, fits);
  if (!fits.empty()) {
    body = ir::lreduce_body(r);
    lo_c.clear();
    hi_c.clear();
    k.plan.erase(std::remove_if(k.plan.begin(), k.plan.end(),
                                [](const std::string& l) { return l.rfind("guards as bounds:", 0) == 0; }),
                 k.plan.end());
  }
  RedVars R = red_vars(r);
  R.no_exit = logical;
  std::string P = R.acc + "p", N = R.acc + "n";
  em.line(std::string(R.wide ? "double" : ctype(R.vt)) + " " + P + "[EIN_MAX_THREADS]; bool " + P + "h[EIN_MAX_THREADS]; int64_t " + P +
          "g[EIN_MAX_THREADS]; int " + N + " = 1;");
  char work[64];
  std::snprintf(work, sizeof work, "%.0f", std::min(loop_work(r), 1e15));
  em.open("#pragma omp parallel num_threads(ein_threads()) if(" + std::string(work) + "LL >= " +
              std::to_string(parallel_threshold) + "LL)\n{",
          false);
  em.line("const int tid = omp_get_thread_num();");
  em.line("#pragma omp single\n" + N + " = omp_get_num_threads();");
  red_init(R);
  // The innermost loop of each thread's share vectorises as in reduce_here (float sums and
  // products; max/min keep their scalar NaN rule here): without it a whole-array `sum[i, j]`
  // was one scalar chain of dependent f64 adds, 4096² f32 squares in 44 ms against NumPy's 10.
  R.select = R.op == Op::Sum && select_guards(r, body, R);
  const bool simple = (innermost(r) && body->kind != Kind::LGuard && body->kind != Kind::LLetIn) || R.select;
  const bool simd = simple && is_additive(R.op) && is_float(R.dt) && !may_fail(body, *unit, 0) && !in_simd;
  std::string first;
  for (size_t j = 0; j < vars.size(); ++j) {
    LoopSpec sp = red_loop(r, vars, j);
    if (!lo_c.empty() && !lo_c[j].empty()) {  // (within the variable's own range, as in reduce_here)
      sp.bits = std::max(index(sp.lo).bits, index(sp.hi).bits);
      sp.lo_c = lo_c[j];
      sp.hi_c = hi_c[j];
    }
    sp.omp_for = j == 0;
    sp.simd = sp.innermost && simd;
    if (sp.simd) sp.simd_clause = std::string("reduction(") + (R.op == Op::Sum ? "+" : "*") + ":" + R.acc + ")";
    std::string v = open_loop(sp);
    if (j == 0) first = v;
  }
  red_point(R, body, first);
  for (size_t j = 0; j < vars.size(); ++j) close_loop();
  em.line(P + "[tid] = " + R.acc + "; " + P + "h[tid] = " + (is_extremum(R.op) && !is_float(R.dt) ? R.has : "true") +
          "; " + P + "g[tid] = " + (is_arg(R.op) ? R.arg : "0") + ";");
  em.close();
  // Combine in thread order: thread t ran the t-th chunk of the static schedule.
  RedVars C = R;
  C.acc = em.fresh("r");
  C.has = C.acc + "h";
  C.arg = C.acc + "g";
  red_init(C);
  em.open("for (int t = 0; t < " + N + "; ++t) {", false);
  if (is_extremum(R.op)) {
    if (is_float(R.dt)) red_step(C, P + "[t]", "0");
    else em.line("if (" + P + "h[t]) { " + C.acc + " = " + P + "[t]" + (R.op == Op::Max ? " > " : " < ") + C.acc + " ? " + P +
                 "[t] : " + C.acc + "; " + C.has + " = true; }");
  } else if (is_arg(R.op)) {
    em.line("if (" + P + "g[t] >= 0) {");
    red_step(C, P + "[t]", P + "g[t]");
    em.line("}");
  } else {
    red_step(C, P + "[t]", "0");
  }
  em.close();
  return red_result(C, r);
}

}  // namespace ein::codegen
