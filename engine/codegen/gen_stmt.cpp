// Loops, stores and the other lowered statements. Loop shapes:
//  - the first kParallel loop outside a parallel region becomes `omp parallel for`, with an
//    `if()` so that small iteration spaces do not pay for a thread team (its work counted by
//    run-time trips, and a batch of one opening the team on the next loop: team_split.cpp);
//  - innermost loops are strip-mined (EIN_STRIP iterations) so the interrupt flag is polled
//    often without a test per element, and carry `omp simd` when iterations are independent;
//  - other loops poll once per iteration; kSequential (recurrence) loops run in order.
#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"

#include <functional>

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

// A reduction inside the point loop that walks the contiguous (last) axis of what it reads: a
// row sum, a row max, an exp-sum over a class axis. Vectorising the point loop around it
// (outer-loop simd) would gather with a run-time stride, which GCC refuses, and leaves the
// reduction's own loop scalar too; without the outer `omp simd` the reduction vectorises along
// the row. Column reductions (the point variable contiguous) keep the outer simd. So do short
// rows (every variable of the reduction at most 16 iterations, known before the run: a class
// axis of 10): a vector of 16 floats has no room to spare for a row of 10, and a vectorised
// reduction's horizontal combine costs more than its terms, so the point loop goes in the lanes
// and the row loop is unrolled inside (open_loop). Row max over 20000 x 10 f32: 0.30 -> 0.07 ms,
// an exp-sum 0.59 -> 0.19 ms (one thread); each lane also adds its terms in the row's order.
bool mentions_def(const NodeRef& n, ir::DefId d) { return ir::mentions(n, d); }

bool has_row_reduction(const NodeRef& body, ir::DefId point, const std::function<bool(const NodeRef&)>& short_row) {
  bool found = false;
  ir::for_each_node(body, [&](const NodeRef& r) {
    // (One that does not move with the point loop is computed outside it.)
    if (found || r->kind != Kind::LReduce || !mentions_def(r, point) || (short_row && short_row(r))) return;
    std::vector<ir::DefId> vars;
    for (const NodeRef& k : ir::lreduce_items(r))
      if (k->kind == Kind::LoopVar) vars.push_back(k->def);
    ir::for_each_node(ir::lreduce_body(r), [&](const NodeRef& x) {
      if (found || x->kind != Kind::Index || x->kids.size() < 2) return;
      const NodeRef& last = x->kids.back();
      // A window that slides with the point (`x[i + k - 3]`, a convolution or moving average)
      // reads contiguous memory across points too, and a read that does not move with the
      // point (the filter `w[k]`) is the same in every lane: the outer simd keeps each point's
      // terms in order in its own lane, where the reduction's own loop has only a few terms.
      if (mentions_def(last, point) || !mentions_def(x, point)) return;
      ir::for_each_node(last, [&](const NodeRef& n) {
        if (n->kind == Kind::Name)
          for (ir::DefId d : vars) found = found || n->def == d;
      });
    });
  });
  return found;
}

void Gen::emit_check(const NodeRef& s) {
  Val c = value(ir::lcheck_cond(s));
  const NodeRef& help = ir::lcheck_help(s);
  int st = site(s->span, s->name, s->aux, help ? help->name : "");
  em.line("if (!(" + c.c + ")) ein_fail(A, " + std::to_string(st) + ", EIN_E_CHECK, " + ord_ + ", 0, 0, 0);");
}

std::string Gen::stop_check() const {
  return std::string("if (ein_stop(A, ") + stop_ord_ + ")) " + (loop_is_omp_for ? "continue;" : "break;");
}

void Gen::emit_progress(const std::string& done, bool parallel) {
  // A parallel loop's static schedule gives thread 0 the first block: its share, scaled.
  if (parallel) em.line("if (omp_get_thread_num() == 0) ein_progress(A, ein_imul(" + done + ", omp_get_num_threads()));");
  else em.line("ein_progress(A, " + done + ");");
}

std::string Gen::open_loop(const LoopSpec& sp) {
  auto given = [&](const std::string& c) {
    Val v{c, DType::I64, em.depth(), true};
    v.bits = sp.bits;
    return v;
  };
  Val lo = sp.lo_c.empty() ? index(sp.lo) : given(sp.lo_c), hi = sp.hi_c.empty() ? index(sp.hi) : given(sp.hi_c);
  auto trip = sp.loop ? loop_fact(sp.loop).trip : sp.lo_c.empty() ? static_trip(cx, *unit, sp.lo, sp.hi) : std::nullopt;
  bool small = trip && *trip <= 256, tiny = trip && *trip <= 16;
  LoopInfo L;
  L.var = em.fresh("ix");
  L.lo = lo.c;
  L.hi = hi.c;
  L.strip = sp.innermost && !small;
  L.trip = trip;
  L.saved_ord = ord_;
  L.saved_stop = stop_ord_;
  L.saved_parallel = in_parallel;
  L.saved_omp_for = loop_is_omp_for;
  L.saved_simd = in_simd;
  bool simd = sp.simd && !in_simd;
  L.env_mark = mark();
  bool omp_for = (sp.parallel && !in_parallel) || sp.omp_for;
  std::string pragma;
  if (sp.omp_for) {
    pragma = "#pragma omp for schedule(static)\n";
  } else if (omp_for) {
    // (iterations x work per iteration, in double: no wrap-around; team_split.cpp)
    std::string cond = "(double)ein_isub(" + L.hi + ", " + L.lo + ") * " + runtime_work(sp.loop, sp.inner_work) +
                       " >= " + std::to_string(parallel_threshold) + ".0";
    pragma = "#pragma omp parallel for schedule(static) if(" + cond + ")\n";
    if (!loops.empty() && twin_ok_) {
      L.twin_pragma = pragma;
      L.twin_cond = cond;
    }
  }
  // The kernel's outermost loop reports its progress: the total before it, then the
  // iterations done at each poll of the interrupt flag.
  const bool report = reports_progress();
  if (report) em.line("ein_progress_total(A, ein_isub(" + L.hi + ", " + L.lo + "));");
  auto progress = [&](const std::string& at, bool parallel) {
    emit_progress(sp.reverse ? "ein_isub(" + L.hi + ", " + at + ")" : "ein_isub(" + at + ", " + L.lo + ")", parallel);
  };
  L.head_level = em.depth() + 1;
  const std::string v = L.var;
  auto enter_parallel = [&](const std::string& order_var) {
    in_parallel = true;
    ord_ = order_var;
    stop_ord_ = order_var;
  };
  if (L.strip) {
    std::string s = em.fresh("s"), e = s + "e";
    // Reverse (adjoint) sweeps walk the strips downwards: strip s covers [e, s).
    if (sp.reverse)
      em.open(pragma + "for (int64_t " + s + " = " + L.hi + "; " + s + " > " + L.lo + "; " + s +
                  " -= EIN_STRIP) {",
              false);
    else
      em.open(pragma + "for (int64_t " + s + " = " + L.lo + "; " + s + " < " + L.hi + "; " + s +
                  " += EIN_STRIP) {",
              false);
    if (omp_for) enter_parallel(s);
    loop_is_omp_for = omp_for;
    em.line(stop_check());
    if (report) progress(s, omp_for);
    std::string pr = simd ? "#pragma omp simd " + sp.simd_clause + "\n" : "";
    if (sp.reverse) {
      em.line("const int64_t " + e + " = ((uint64_t)" + s + " - (uint64_t)" + L.lo + " > EIN_STRIP) ? " + s +
              " - EIN_STRIP : " + L.lo + ";");
      em.open(pr + "for (int64_t " + v + " = " + s + " - 1; " + v + " >= " + e + "; --" + v + ") {", false);
    } else {
      em.line("const int64_t " + e + " = ((uint64_t)" + L.hi + " - (uint64_t)" + s + " > EIN_STRIP) ? " + s +
              " + EIN_STRIP : " + L.hi + ";");
      em.open(pr + "for (int64_t " + v + " = " + s + "; " + v + " < " + e + "; ++" + v + ") {", false);
    }
    in_simd = in_simd || simd;
    L.simd_hint = simd;
    loop_is_omp_for = false;
  } else {
    std::string head = sp.reverse
        ? "for (int64_t " + v + " = ein_isub(" + L.hi + ", 1); " + v + " >= " + L.lo + "; --" + v + ") {"
        : "for (int64_t " + v + " = " + L.lo + "; " + v + " < " + L.hi + "; ++" + v + ") {";
    bool use_simd = simd && !omp_for && sp.innermost;
    std::string pr = use_simd ? "#pragma omp simd " + sp.simd_clause + "\n" : "";
    // A short loop inside a vectorised one (a short row's reduction, see has_row_reduction):
    // GCC vectorises the outer loop only once this one is unrolled away.
    if (!use_simd && in_simd && tiny) pr = "_Pragma(\"GCC unroll 16\")\n";
    em.open(pragma + pr + head, false);
    in_simd = in_simd || use_simd;
    L.simd_hint = use_simd && pragma.empty();
    if (omp_for) enter_parallel(v);
    loop_is_omp_for = omp_for;
    if (!sp.innermost || !small) em.line(stop_check());
    if (report && !(sp.innermost && small)) progress(sp.reverse ? "ein_iadd(" + v + ", 1)" : v, omp_for);
  }
  if (sp.order_by_var) {
    ord_ = v;
    stop_ord_ = v;
  }
  L.level = em.depth();
  L.ord_in = ord_;
  L.stop_in = stop_ord_;
  L.parallel_in = in_parallel;
  Val var{v, DType::I64, L.level, true};
  var.bits = std::max(lo.bits, hi.bits);  // the variable stays within its bounds
  if (sp.def.valid()) bind(sp.def, var);
  loops.push_back(std::move(L));
  return v;
}

void Gen::close_loop() {
  LoopInfo L = std::move(loops.back());
  loops.pop_back();
  if (L.strip) em.close();
  std::string footer = "}";
  if (!L.guards.empty()) {
    std::string cond, fails;
    for (auto& g : L.guards) cond += (cond.empty() ? "" : " && ") + g;
    for (auto& f : L.on_fail) fails += f + "\n";
    std::string& h = em.header(L.head_level);
    h = "if (EIN_UNLIKELY(!(" + cond + "))) {\n" + fails + "} else {\n" + h;
    footer = "}}";
  }
  if (!L.twin_pragma.empty()) em.close_twin(footer, L.twin_pragma, L.twin_cond);
  else em.close(footer);
  ord_ = L.saved_ord;
  stop_ord_ = L.saved_stop;
  in_parallel = L.saved_parallel;
  loop_is_omp_for = L.saved_omp_for;
  in_simd = L.saved_simd;
  unbind_to(L.env_mark);
}

// A reduction of `loop`'s body that may sit in its vector lanes (has_row_reduction): every
// variable unrolled, an arithmetic combine (sum, prod, max, min: an arg-reduction or a
// short-circuit all/any branches), a body that cannot fail, and no other loop in `loop`'s body
// (a row written point by point, an adjoint's row, vectorises along its own loop instead).
bool Gen::short_row(const NodeRef& loop, const NodeRef& r) const {
  auto op = ir::reduce_op_from_name(r->name);
  if (!op || ir::is_arg_reduce(*op) || ir::is_logical_reduce(*op)) return false;
  bool vars = false, nested = false;
  for (const NodeRef& k : ir::lreduce_items(r)) {
    if (k->kind != Kind::LoopVar) continue;
    if (!loop_fact(k).unrolled) return false;
    vars = true;
  }
  ir::for_each_node(ir::lfor_body(loop), [&](const NodeRef& x) { nested = nested || x->kind == Kind::LFor; });
  return vars && !nested && !may_fail(ir::lreduce_body(r), *unit, 0);
}

Gen::LoopSpec Gen::loop_spec(const NodeRef& s) {
  LoopSpec sp;
  sp.lo = ir::lfor_lo(s);
  sp.hi = ir::lfor_hi(s);
  sp.def = s->def;
  sp.reverse = s->has(ir::kReverse);
  sp.loop = s;
  sp.innermost = innermost(s) || innermost_after_hoisting(s);
  sp.parallel = s->has(ir::kParallel) && allow_parallel && !serial_loops_.count(s->id);
  // (A reduction a BLAS call has already computed, read back from its destination in the loops
  // after the call, is no row walked here: a GEMV's sigmoid epilogue vectorises.)
  sp.simd = sp.innermost && s->has(ir::kParallel) && !s->has(ir::kSequential) &&
            !has_row_reduction(ir::lfor_body(s), s->def,
                               [&](const NodeRef& r) { return precomputed_.count(r->id) > 0 || short_row(s, r); });
  sp.inner_work = loop_work(s);
  if (s->flags & ~(ir::kParallel | ir::kSequential | ir::kReverse)) unsupported("a loop with unknown flags");
  return sp;
}

void Gen::stmt(const NodeRef& s) {
  if (!s) return;
  switch (s->kind) {
    case Kind::LFor: {
      if (contracted_nest(s)) return;
      if (unswitch(s)) return;
      if (split_on_branch(s)) return;
      if (blocked_nest(s)) return;
      if (unit_stride(s)) return;
      if (reduce_lanes(s)) return;
      if (team_inside(s)) return;
      const NodeRef& body = ir::lfor_body(s);
      LoopSpec sp = loop_spec(s);
      Carry saved = std::move(carry_);
      carry_ = Carry{};
      if (s->has(ir::kSequential) && !sp.parallel) setup_carry(s, index(sp.lo).c, index(sp.hi).c, sp.reverse);
      open_loop(sp);
      stmt(body);
      close_loop();
      carry_ = std::move(saved);
      return;
    }
    case Kind::LStore:
    case Kind::LAccum: store(s); return;
    case Kind::LIf: {
      if (auto f = forced_if_.find(s->id); f != forced_if_.end()) {  // unswitch.cpp
        if (f->second) stmt(ir::lif_then(s));
        else if (ir::lif_else(s)) stmt(ir::lif_else(s));
        return;
      }
      Val c = value(ir::lif_cond(s));
      em.open("if (" + c.c + ") {", true);
      stmt(ir::lif_then(s));
      em.close();
      if (ir::lif_else(s)) {
        // Not `else`: values hoisted out of the branch land between the two scopes.
        em.open("if (!" + c.c + ") {", true);
        stmt(ir::lif_else(s));
        em.close();
      }
      return;
    }
    case Kind::LSeq: {
      size_t m = mark();
      for (auto& k2 : s->kids) stmt(k2);
      unbind_to(m);
      return;
    }
    case Kind::LLet: {
      // `t = tf` (recurrence order binds each clause's time variable to the fused loop's):
      // keep the loop index itself, so stores see the loop and its range checks.
      const NodeRef& v = ir::llet_value(s);
      if (v->kind == Kind::Name)
        if (const Val* x = lookup(v->def); x && x->index) {
          bind(s->def, *x);
          return;
        }
      bind(s->def, value(v));
      return;
    }
    case Kind::LCheck: emit_check(s); return;
    case Kind::LNop: return;
    default: unsupported(std::string("a `") + ir::kind_name(s->kind) + "` statement in a kernel");
  }
}

bool Gen::setup_carry(const NodeRef& loop, const std::string& lo, const std::string& hi, bool reverse) {
  const LoopFact& f = loop_fact(loop);
  if (!f.carry || out_buf < 0) return false;
  const NodeRef& body = ir::lfor_body(loop);
  const NodeRef& st = body->kind == Kind::LSeq ? body->kids.back() : body;
  if (st->def != out_def) return false;  // another tensor's kernel
  const BufArg& B = k.bufs[static_cast<size_t>(out_buf)];
  // Before the loop: the element the first step reads (stored by an earlier clause), when the
  // loop runs at all and it exists. A read not proven in bounds keeps its check at the read
  // (Gen::load): after the first step it always passes, since the previous step's store did.
  const std::string T = ctype(B.dt);
  const std::string first = reverse ? "ein_isub(" + hi + ", 1)" : lo;
  const std::string prev = "(" + first + (reverse ? " + 1LL)" : " - 1LL)");
  // The other subscripts are names bound outside the loop (a 2-D recurrence's row).
  const size_t axis = f.carry->axis;
  std::vector<std::string> at;
  std::string inside = lo + " < " + hi;
  for (size_t a = 0; a < ir::lstore_index_count(st); ++a) {
    at.push_back(a == axis ? prev : index(ir::lstore_index(st)[a]).c);
    inside += " && (uint64_t)" + at.back() + " < (uint64_t)" + extent(out_buf, static_cast<int>(a));
  }
  carry_.name = em.fresh("c");
  carry_.axis = axis;
  em.line(T + " " + carry_.name + " = 0;");
  em.line("if (" + inside + ") " + carry_.name + " = b" + std::to_string(out_buf) + "[" + flat(out_buf, at, B.windowed) + "];");
  carry_.reads = f.carry->reads;
  const std::string note = "the previous step's value is carried in a register (scalar replacement)";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  if (f.carry->fixed_point) {
    carry_.fixed = em.fresh("fx");
    em.line("bool " + carry_.fixed + " = false;");
    const std::string fnote = "a step that returns its input bit for bit ends the computing: the rest is a fill";
    if (std::find(k.plan.begin(), k.plan.end(), fnote) == k.plan.end()) k.plan.push_back(fnote);
  }
  return true;
}

std::string Gen::flat(int b, const std::vector<std::string>& xs, bool windowed) {
  std::string f;
  size_t n = xs.size();
  for (size_t a = 0; a < n; ++a) {
    std::string x = xs[a];
    // Circular buffer: logical row x lives in row x mod W (x >= 0: checked or proven).
    if (a == 0 && windowed) {
      int64_t w = k.bufs[static_cast<size_t>(b)].window;
      x = "(" + x + " % " + (w > 0 ? std::to_string(w) + "LL" : "b" + std::to_string(b) + "_w") + ")";
    }
    std::string term = a + 1 == n ? x : x + " * " + stride(b, static_cast<int>(a));
    f += (f.empty() ? "" : " + ") + term;
  }
  return f.empty() ? "0" : f;
}

void Gen::store(const NodeRef& s) {
  // A block-local array's store (gen_local.cpp): into this thread's slice of its scratch.
  Local local_copy;  // (a copy: generating the value may fill other block-local arrays)
  const Local* local = nullptr;
  if (const Local* l = local_of(s->def)) local_copy = *l, local = &local_copy;
  if (local && (!local->filling || s->kind != Kind::LStore)) unsupported("a store into a block-local array from outside it");
  if (!local && s->def != out_def) unsupported("a store into another tensor");
  // Copies, not a reference: generating the value may register buffers (k.bufs grows).
  const DType dt = local ? local->dt : k.bufs[static_cast<size_t>(out_buf)].dt;
  const bool windowed = !local && k.bufs[static_cast<size_t>(out_buf)].windowed;
  size_t n = ir::lstore_index_count(s);
  if (static_cast<int>(n) != (local ? static_cast<int>(local->ext.size()) : k.bufs[static_cast<size_t>(out_buf)].rank))
    unsupported("a store of an array element");
  Val v;
  if (!local && !carry_.fixed.empty()) {
    // Computed in a branch, so that nothing of it is hoisted to where it would run anyway (the
    // carried value is defined at the branch's depth); skipped once the step is a fixed point.
    const std::string x = em.fresh("f");
    em.line(std::string(ctype(dt)) + " " + x + " = " + carry_.name + ";");
    em.open("if (!" + carry_.fixed + ") {", true);
    Val y = convert(value(ir::lstore_value(s)), dt);
    em.line(x + " = " + y.c + ";");
    em.line(carry_.fixed + " = __builtin_memcmp(&" + x + ", &" + carry_.name + ", sizeof " + x + ") == 0;");
    em.close();
    v = Val{x, dt, em.depth()};
  } else {
    v = convert(value(ir::lstore_value(s)), dt);
  }
  std::vector<std::string> xs, conds, fails;
  int st = -1;
  for (size_t a = 0; a < n; ++a) {
    Val x = index(ir::lstore_index(s)[a]);
    xs.push_back(x.c);
    std::string ext = local ? local->ext[a] : extent(out_buf, static_cast<int>(a));
    LoopInfo* L = nullptr;
    for (auto it = loops.rbegin(); it != loops.rend(); ++it)
      if (it->var == x.c) L = &*it;
    if (st < 0) st = site(s->span);
    std::string fail_args = std::to_string(a) + ", " + ext + ");";
    if (L) {
      // By construction the allocation covers every clause's range; one test per loop keeps
      // that an invariant instead of an assumption, without a branch per element.
      std::string g = "(" + L->lo + " >= " + L->hi + " || (" + L->lo + " >= 0 && " + L->hi + " <= " + ext + "))";
      if (std::find(L->guards.begin(), L->guards.end(), g) == L->guards.end()) {
        L->guards.push_back(g);
        L->on_fail.push_back("if (!" + g + ") ein_fail(A, " + std::to_string(st) + ", EIN_E_BOUNDS, " +
                             L->saved_ord + ", " + L->lo + " < 0 ? " + L->lo + " : ein_isub(" + L->hi +
                             ", 1), " + fail_args);
      }
    } else {
      conds.push_back("(uint64_t)" + x.c + " < (uint64_t)" + ext);
      fails.push_back("ein_fail(A, " + std::to_string(st) + ", EIN_E_BOUNDS, " + ord_ + ", " + x.c + ", " + fail_args);
    }
  }
  std::string val = dt == DType::Bool ? "(uint8_t)" + v.c : v.c;
  std::string target = local ? local->ptr + "[" + local_flat(*local, xs) + "]"
                             : "b" + std::to_string(out_buf) + "[" + flat(out_buf, xs, windowed) + "]";
  if (s->kind == Kind::LAccum) {
    // A scatter's term (lang/passes/scatter_plan.h); its loops over the domain are sequential.
    // Integers add as unsigned: wrapping, as the interpreter does, without C++'s overflow UB.
    // Max/min keep the larger/smaller with the reductions' rule (the first NaN stays).
    const auto op = static_cast<ir::ReduceOp>(s->ival);
    if (op == ir::ReduceOp::Max || op == ir::ReduceOp::Min) {
      const std::string cmp = op == ir::ReduceOp::Max ? " > " : " < ";
      if (is_float(dt)) val = "((" + target + " != " + target + ") ? " + target + " : ((" + val + " != " + val + " || " + val + cmp + target + ") ? " + val + " : " + target + "))";
      else val = "(" + val + cmp + target + " ? " + val + " : " + target + ")";
    } else if (is_float(dt)) {
      val = target + " + " + val;
    } else {
      const std::string T = ctype(dt);
      const std::string U = dt == DType::I8 ? "uint8_t" : dt == DType::I64 ? "uint64_t" : "uint32_t";
      val = "(" + T + ")((" + U + ")" + target + " + (" + U + ")(" + val + "))";
    }
  }
  if (!local && !carry_.name.empty()) em.line(carry_.name + " = " + val + ";");  // the next step's X[t - 1]
  if (conds.empty()) {
    em.line(target + " = " + val + ";");
    return;
  }
  std::string all;
  for (auto& c : conds) all += (all.empty() ? "" : " && ") + c;
  std::string chain;
  for (size_t i = 0; i < conds.size(); ++i)
    chain += (i ? " else if (!(" : "if (!(") + conds[i] + ")) " + fails[i];
  em.line("if (EIN_LIKELY(" + all + ")) " + target + " = " + val + "; else { " + chain + " }");
}

}  // namespace ein::codegen
