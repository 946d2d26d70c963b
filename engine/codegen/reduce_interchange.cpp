// An outer reduction over c whose term is an inner reduction over k that reads a tensor at c:
// `argmin[c](sum[k]((X[i, k] - C[c, k]) ** 2))` (k-means assignment), `max[c](sum[k](..))`,
// `sum[c](prod[k](..))`. One point at a time, the inner reduction is a short vectorised loop over
// k per c followed by a horizontal sum: at 32 terms the horizontal part dominates. Interchanged,
// a block of c values is computed at once with c innermost (one vector lane per c) and k
// outside it; the operands read at c are packed once at kernel entry as [c block][k][c lane], so
// the lanes load consecutive values. Each lane combines its own terms in k order, the order the
// interpreter uses, so the inner values are bit for bit those of the point-at-a-time loop (an f32
// sum still accumulates in f64, docs/jit.md "Reductions"); the outer reduction then steps over
// the block's values in c order (first index, first NaN, empty-range errors unchanged).
#include "engine/codegen/gen.h"

namespace ein::codegen {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;
using Op = ir::ReduceOp;

namespace {

Op op_named(const std::string& s) {
  if (auto op = ir::reduce_op_from_name(s)) return *op;
  unsupported("reduction `" + s + "`");
}

// a * v with the interpreter's rules (wrapping integers); combine() has the other combiners.
std::string product(DType dt, const std::string& a, const std::string& v) {
  if (is_float(dt)) return "(" + a + " * " + v + ")";
  std::string U = dt == DType::I32 ? "uint32_t" : "uint64_t";
  return "((" + std::string(ctype(dt)) + ")((" + U + ")" + a + " * (" + U + ")" + v + "))";
}

using ir::mentions;

}  // namespace

Val Gen::reduce_interchanged(const NodeRef& r, const std::string& key) {
  const auto items = ir::lreduce_items(r);
  if (items.size() != 1 || items[0]->kind != Kind::LoopVar || in_simd) return {};
  const NodeRef& cv = items[0];
  const Op outer = op_named(r->name);
  if (ir::is_logical_reduce(outer)) return {};
  const NodeRef& s = ir::lreduce_body(r);
  if (s->kind != Kind::LReduce || precomputed_.count(s->id)) return {};
  const Op inner = op_named(s->name);
  const DType sdt = dtype_of(s);
  // Sums and products of any type; max/min of floats (an integer max/min over an empty range is
  // an error the lanes would have to order).
  if (!(inner == Op::Sum || inner == Op::Prod || (is_float(sdt) && (inner == Op::Max || inner == Op::Min)))) return {};
  if (!kernel_dtype(sdt) || (!is_float(sdt) && sdt != DType::I32 && sdt != DType::I64)) return {};
  std::vector<NodeRef> ks;
  for (const NodeRef& k : ir::lreduce_items(s)) {
    if (k->kind != Kind::LoopVar) return {};
    if (mentions(ir::loopvar_lo(*k), cv->def) || mentions(ir::loopvar_hi(*k), cv->def)) return {};
    ks.push_back(k);
  }
  const NodeRef& body = ir::lreduce_body(s);
  if (ks.empty() || body->kind == Kind::LGuard || body->kind == Kind::LLetIn || may_fail(body, *unit, 0)) return {};
  if (!mentions(body, cv->def)) return {};  // the inner value does not move with c: hoisted instead
  // The reads at c: every subscript a plain c or k variable, c once, a tensor this kernel does
  // not write. Anything else at c (a computed subscript, a nested reduction) keeps the plain loop.
  auto is_k = [&](DefId d) {
    for (const NodeRef& k : ks)
      if (k->def == d) return true;
    return false;
  };
  std::vector<NodeRef> packs;
  bool ok = true;
  ir::for_each_node(body, [&](const NodeRef& x) {
    if (!ok) return;
    if (x->kind == Kind::LReduce || x->kind == Kind::Block) ok = false;
    if (x->kind != Kind::Index || !mentions(x, cv->def)) return;
    const NodeRef& base = ir::index_base(x);
    if (base->kind != Kind::Name || base->def == out_def || fusion.producers.count(base->def) || !is_proven(*unit, x)) {
      ok = false;
      return;
    }
    int at_c = 0;
    for (size_t a = 0; a < ir::index_args_count(x); ++a) {
      const NodeRef& arg = ir::index_args(x)[a];
      if (arg->kind != Kind::Name || (arg->def != cv->def && !is_k(arg->def))) ok = false;
      else at_c += arg->def == cv->def;
    }
    if (at_c != 1) ok = false;
    for (const NodeRef& p : packs) if (ir::structurally_equal(p, x)) return;
    packs.push_back(x);
  });
  if (!ok || packs.empty()) return {};
  for (const NodeRef& x : packs)
    if (!kernel_dtype(dtype_of(x)) || dtype_of(x) == DType::Bool) return {};
  // The ranges must be known at kernel entry, where the packs are made.
  Val clo = index(ir::loopvar_lo(*cv)), chi = index(ir::loopvar_hi(*cv));
  std::vector<Val> klo, khi;
  for (const NodeRef& k : ks) {
    klo.push_back(index(ir::loopvar_lo(*k)));
    khi.push_back(index(ir::loopvar_hi(*k)));
    if (klo.back().level > 0 || khi.back().level > 0) return {};
  }
  if (clo.level > 0 || chi.level > 0) return {};

  const bool wide = inner == Op::Sum && sdt == DType::F32;
  const DType lt = wide ? DType::F64 : sdt;  // lane type
  const std::string LT = ctype(lt);
  // One 512-bit vector of the terms' type per block: an f32 sum then keeps two f64 vectors of
  // lanes, and each k step is one f32 subtract/multiply over 16 lanes plus two widenings. With
  // one f64 vector (8 lanes) the compiler used 256-bit halves and k-means' kernel was bound by
  // the conversions: one thread, 20000 × 16 × 32, 1.80 -> 1.54 ms (docs/performance.md).
  const int CB = 64 / std::max(1, dtype_storage_bytes(sdt));
  const std::string cb_s = std::to_string(CB) + "LL";
  auto trip = [](const Val& lo, const Val& hi) { return "(" + hi.c + " > " + lo.c + " ? " + hi.c + " - " + lo.c + " : 0LL)"; };
  auto index_val = [&](const std::string& c, int bits) {
    Val v{c, DType::I64, em.depth(), true};
    v.bits = bits;
    return v;
  };
  const int cbits = std::max(clo.bits, chi.bits);
  std::string nk = "1LL";
  for (size_t a = 0; a < ks.size(); ++a) nk = "ein_smul(" + nk + ", " + trip(klo[a], khi[a]) + ")";
  const std::string nc = trip(clo, chi);
  const std::string ncb = "((" + nc + " + " + std::to_string(CB - 1) + "LL) / " + cb_s + ")";
  // Opens the k loops (variables bound to their values) with a flat counter `kf`.
  auto open_ks = [&](const std::string& kf) {
    em.line("int64_t " + kf + " = 0;");
    for (size_t a = 0; a < ks.size(); ++a) {
      std::string v = em.fresh("kv");
      em.open("for (int64_t " + v + " = " + klo[a].c + "; " + v + " < " + khi[a].c + "; ++" + v + ") {", false);
      bind(ks[a]->def, index_val(v, std::max(klo[a].bits, khi[a].bits)));
    }
  };
  auto close_ks = [&](const std::string& kf) {
    em.line("++" + kf + ";");
    for (size_t a = 0; a < ks.size(); ++a) em.close();
  };
  size_t m0 = mark();
  // ---- packs, once at kernel entry ----
  std::vector<std::string> packed;
  for (const NodeRef& x : packs) {
    std::string name = "xp|" + std::to_string(x->id) + "|" + std::to_string(r->id);
    bool fresh = !scratch_.count(name);
    const DType pdt = dtype_of(x);
    std::string yp = scratch_once(name, "xp", pdt, "ein_smul(ein_smul(" + ncb + ", " + cb_s + "), " + nk + ")", r->span);
    packed.push_back(yp);
    if (!fresh) continue;
    Emitter::Detour d(em, 0);
    std::string saved_ord = ord_, saved_stop = stop_ord_;
    bool saved_par = in_parallel;
    context_at(0);
    size_t m1 = mark();
    em.open("if (" + nc + " > 0) {", true);
    std::string cb = em.fresh("cb");
    em.open("for (int64_t " + cb + " = 0; " + cb + " < " + ncb + "; ++" + cb + ") {", false);
    std::string kf = em.fresh("kf");
    open_ks(kf);
    std::string cc = em.fresh("cc");
    em.open("for (int64_t " + cc + " = 0; " + cc + " < " + cb_s + "; ++" + cc + ") {", false);
    // Lanes past the end repeat the last c (read, never used).
    std::string c = em.fresh("c");
    em.line("const int64_t " + c + " = " + clo.c + " + " + cb + " * " + cb_s + " + " + cc + " < " + chi.c + " ? " + clo.c +
            " + " + cb + " * " + cb_s + " + " + cc + " : " + chi.c + " - 1;");
    bind(cv->def, index_val(c, cbits));
    Val v = value(x);
    em.line(yp + "[(" + cb + " * " + nk + " + " + kf + ") * " + cb_s + " + " + cc + "] = " + v.c + ";");
    em.close();
    close_ks(kf);
    em.close();
    em.close();
    unbind_to(m1);
    ord_ = saved_ord;
    stop_ord_ = saved_stop;
    in_parallel = saved_par;
  }
  // ---- the outer reduction, one block of c values at a time ----
  RedVars R = red_vars(r);
  red_init(R);
  std::string cb = em.fresh("cb");
  em.open("for (int64_t " + cb + " = 0; " + cb + " < " + ncb + "; ++" + cb + ") {", false);
  em.line("if (ein_stop(A, " + stop_ord_ + ")) break;");
  std::string lanes = em.fresh("lane");
  em.line(LT + " " + lanes + "[" + std::to_string(CB) + "];");
  em.line("for (int cc = 0; cc < " + std::to_string(CB) + "; ++cc) " + lanes + "[cc] = " + (inner == Op::Prod ? "1" : identity(inner, lt)) + ";");
  std::string kf = em.fresh("kf");
  open_ks(kf);
  std::string cc = em.fresh("cc");
  em.open("#pragma omp simd\nfor (int64_t " + cc + " = 0; " + cc + " < " + cb_s + "; ++" + cc + ") {", false);
  bool saved_simd = in_simd;
  in_simd = true;
  std::string c = em.fresh("c");
  em.line("const int64_t " + c + " = " + clo.c + " + " + cb + " * " + cb_s + " + " + cc + " < " + chi.c + " ? " + clo.c +
          " + " + cb + " * " + cb_s + " + " + cc + " : " + chi.c + " - 1;");
  bind(cv->def, index_val(c, cbits));
  for (size_t p = 0; p < packs.size(); ++p) {
    std::string t = em.fresh("y");
    DType pdt = dtype_of(packs[p]);
    em.line("const " + std::string(ctype(pdt)) + " " + t + " = " + packed[p] + "[(" + cb + " * " + nk + " + " + kf + ") * " +
            cb_s + " + " + cc + "];");
    Val y{t, pdt, em.depth()};
    ir::for_each_node(body, [&](const NodeRef& x) {
      if (x->kind == Kind::Index && ir::structurally_equal(x, packs[p])) read_subst_[x->id] = y;
    });
  }
  Val term = convert(value(body), lt);
  const std::string lane = lanes + "[" + cc + "]";
  em.line(lane + " = " + (inner == Op::Prod ? product(lt, lane, term.c) : combine(inner, lt, lane, term.c)) + ";");
  read_subst_.clear();
  in_simd = saved_simd;
  em.close();
  close_ks(kf);
  // The block's values in c order.
  std::string n = em.fresh("nb");
  em.line("const int64_t " + n + " = " + nc + " - " + cb + " * " + cb_s + " < " + cb_s + " ? " + nc + " - " + cb + " * " +
          cb_s + " : " + cb_s + ";");
  std::string j = em.fresh("cc");
  em.open("for (int64_t " + j + " = 0; " + j + " < " + n + "; ++" + j + ") {", false);
  std::string first = em.fresh("c");
  em.line("const int64_t " + first + " = " + clo.c + " + " + cb + " * " + cb_s + " + " + j + ";");
  Val sv = convert(Val{lanes + "[" + j + "]", lt, em.depth()}, sdt);
  red_step(R, convert(sv, R.vt).c, first);
  em.close();
  em.close();
  unbind_to(m0);
  Val out = red_result(R, r);
  em.remember(em.depth(), key, out.c);
  k.plan.push_back("interchanged: " + r->name + " over " + cv->name + " of " + s->name + " over " + std::to_string(ks.size()) +
                   " index(es), " + std::to_string(CB) + " lanes of " + cv->name + ", " + std::to_string(packs.size()) +
                   " operand(s) packed at entry");
  return out;
}

}  // namespace ein::codegen
