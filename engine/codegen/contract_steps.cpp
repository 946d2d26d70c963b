// Factorised contractions planned by the contraction_plan pass (ContractionKernel::Factorised):
// a sum of a product of three or more operands anywhere in a store value (`0.5 * sum[k, l](A[i,
// k] B[k, l] C[l, j]) + e[j]`, a chain ending in a vector, a basis change inside a function) is
// computed before the nest as the plan's pairwise steps, into the plan's destination; the nest
// then reads it back like any planned contraction. Each step is a GEMM when its operands are
// matrices in disguise (Gen::gemm_step, shared with einsum.cpp), with a loop nest behind the
// run-time test; intermediates are scratch allocated once at kernel entry.
// Partial reductions (ContractionKernel::Partial) are computed here too: once per point of the
// nest variables they use, into scratch, before the nest.
#include <algorithm>

#include "engine/codegen/gen.h"
#include "lang/passes/contraction_plan.h"

namespace ein::codegen {

using ir::DefId;

namespace {

// Index keys double as C names (e_<key>), as in einsum.cpp.
std::string ckey(DefId d) { return index_key(d); }

}  // namespace

void Gen::emit_factorised(const ContractionPlan& p, const Contract& c) {
  const DType dt = c.dt;
  const std::string T = ctype(dt);
  std::map<std::string, std::string> n;  // key -> extent (C)
  for (DefId d : p.c.free) n[ckey(d)] = c.ext.at(def_key(d)).c;
  for (DefId d : p.c.summed) n[ckey(d)] = c.ext.at(def_key(d)).c;
  auto keys = [](const std::vector<DefId>& v) {
    std::vector<std::string> out;
    for (DefId d : v) out.push_back(ckey(d));
    return out;
  };
  std::vector<EinsumTerm> pool;
  for (size_t i = 0; i < p.c.operands.size(); ++i) {
    const ContractionOperand& o = p.c.operands[i];
    EinsumTerm t;
    t.buf = c.bufs[i];
    for (DefId d : o.axes)
      if (d.valid()) t.idx.push_back(ckey(d));
      else t.axis0 += 1;  // leading fixed subscripts (the plan allows no others)
    if (t.axis0) t.off = block_offset(o, t.buf, {});
    pool.push_back(t);
  }
  std::vector<std::vector<std::string>> strides(pool.size());  // explicit strides (destination)
  Val alpha = alpha_of(p, dt, p.whole);
  const std::string one = dt == DType::F32 ? "1.0f" : "1.0";
  auto addr = [&](size_t ti) {
    const EinsumTerm& t = pool[ti];
    std::string f;
    for (size_t a = 0; a < t.idx.size(); ++a) {
      std::string s;
      if (!strides[ti].empty()) s = strides[ti][a] == "1LL" ? "" : strides[ti][a];
      else if (t.buf >= 0) s = a + 1 == t.idx.size() ? "" : stride(t.buf, static_cast<int>(a) + t.axis0);
      else
        for (size_t b = a + 1; b < t.idx.size(); ++b) s += (s.empty() ? "" : " * ") + n[t.idx[b]];
      f += (f.empty() ? "" : " + ") + (s.empty() ? "e_" + t.idx[a] : "e_" + t.idx[a] + " * " + s);
    }
    std::string base = t.buf >= 0 ? "b" + std::to_string(t.buf) : t.tmp;
    if (!t.off.empty()) base = "(" + base + " + " + t.off + ")";
    return base + "[" + (f.empty() ? "0" : f) + "]";
  };
  int gemms = 0;
  for (size_t si = 0; si < p.path.size(); ++si) {
    const PairStep& s = p.path[si];
    const bool last = si + 1 == p.path.size();
    EinsumTerm result;
    if (last) {
      result.idx = keys(c.dest.axes);
      result.tmp = c.dest.base;
      if (p.in_place)
        for (size_t a = 0; a < c.dest.axes.size(); ++a) result.ext.push_back(extent(out_buf, static_cast<int>(a)));
      else
        for (auto& k : result.idx) result.ext.push_back(n[k]);
    } else {
      result.idx = keys(s.keep);
      std::string count = "1LL";
      for (auto& k : result.idx) count = "ein_smul(" + count + ", " + n[k] + ")";
      result.tmp = scratch_once("fstep|" + std::to_string(p.c.reduce->id) + "|" + std::to_string(si), "fs", dt, count,
                                p.c.reduce->span);
    }
    const size_t a = static_cast<size_t>(s.a), b = static_cast<size_t>(s.b);
    // A GEMM may reorder an intermediate's axes ([m.., n..]); the loops then follow it.
    bool blas = gemm_step(s, pool[a], pool[b], result, last, n, last ? alpha.c : one, dt, true);
    gemms += blas ? 1 : 0;
    pool.push_back(result);
    strides.push_back(last ? c.dest.strides : std::vector<std::string>{});
    const size_t r = pool.size() - 1;
    // The loops: zero the result, then accumulate with the last kept index innermost.
    std::vector<std::string> order = result.idx;
    std::string inner = order.empty() ? "" : order.back();
    if (!order.empty()) order.pop_back();
    auto open = [&](const std::vector<std::string>& vars, bool simd_last) {
      for (size_t d = 0; d < vars.size(); ++d) {
        const std::string& x = vars[d];
        std::string head = "for (int64_t e_" + x + " = 0; e_" + x + " < " + n[x] + "; ++e_" + x + ") {";
        if (d == 0 && vars.size() >= 2 && !in_parallel) {
          std::string work = "1LL";
          for (auto& v : vars) work = "ein_smul(" + work + ", " + n[v] + ")";
          head = "#pragma omp parallel for schedule(static) if(" + work + " >= " + std::to_string(parallel_threshold) +
                 "LL)\n" + head;
        }
        if (simd_last && d + 1 == vars.size()) head = "#pragma omp simd\n" + head;
        em.open(head, false);
        // (A one-loop nest is an `omp simd` loop, which may not break: the check after the
        // step covers it.)
        if (d == 0 && vars.size() >= 2)
          em.line("if (ein_stop(A, INT64_MAX)) " + std::string(!in_parallel ? "continue;" : "break;"));
      }
    };
    open(result.idx, true);
    em.line(addr(r) + " = 0;");
    for (size_t d = 0; d < result.idx.size(); ++d) em.close();
    const std::string rhs = (last ? alpha.c + " * " : std::string()) + addr(a) + " * " + addr(b);
    if (!dot_step(pool[a].idx, pool[b].idx, result.idx, keys(s.sum), n, addr(r), rhs, dt)) {
      std::vector<std::string> loops = order;
      for (DefId d : s.sum) loops.push_back(ckey(d));
      if (!inner.empty()) loops.push_back(inner);
      open(loops, !inner.empty());
      em.line(addr(r) + " += " + rhs + ";");
      for (size_t d = 0; d < loops.size(); ++d) em.close();
    }
    if (blas) em.close();
    em.line("if (ein_stop(A, INT64_MAX)) return A->err->code;");
  }
  k.accesses += static_cast<int>(p.c.operands.size());
  if (contraction_strategy_.empty()) contraction_strategy_ = "einsum";
  k.plan.push_back(describe_path(p) +
                   (gemms ? ", " + std::to_string(gemms) + " of them BLAS calls (gemm, or gemv for a vector) when the extents " +
                                "are the arrays' own"
                          : std::string()) +
                   (p.in_place ? ", into the tensor" : ", into scratch") + (p.whole ? "" : ", then the loops read it"));
}

// Columns: blocks of up to 512 consecutive points of the innermost free variable j — and, when
// j is shorter than that, of several consecutive values of the free variable before it (a row
// group), so that a leading-axis sum `sum[b](x[b, i, j])` over 64-wide rows still reads long
// contiguous runs (each summed step reads the group's rows one after the other, not 256 bytes
// per 16 KiB). For each block the summed variables run outside (in order) and the block inside,
// vectorised along j, each point combining its terms one after the other exactly as the
// interpreter does.
void Gen::emit_partial_columns(const ContractionPlan& p, const Contract& c) {
  size_t m0 = mark();
  const bool saved_par = in_parallel, saved_simd = in_simd;
  const DType dt = c.dt;
  auto ext = [&](DefId d) { return c.ext.at(def_key(d)).c; };
  const size_t na = c.dest.axes.size();
  const DefId j = c.dest.axes.back();
  const std::string Nj = ext(j), nb = "((" + Nj + " + 511LL) / 512LL)";
  // Row group: the axis before j runs in groups of `rg` values (1 when j fills a block, or
  // when there is no such axis); at least one group per thread stays for the parallel loop.
  const bool grouped = na >= 2;
  const DefId gi = grouped ? c.dest.axes[na - 2] : j;
  std::string rg = em.fresh("crg"), ng = em.fresh("cng");
  if (grouped) {
    const std::string Ng = ext(gi);
    em.line("int64_t " + rg + " = " + Nj + " >= 512LL || " + Nj + " <= 0 ? 1LL : 2048LL / " + Nj + ";");
    em.line("{ const int64_t cap = " + Ng + " / omp_get_max_threads(); if (" + rg + " > cap) " + rg +
            " = cap; if (" + rg + " < 1) " + rg + " = 1; }");
    em.line("const int64_t " + ng + " = (" + Ng + " + " + rg + " - 1) / " + rg + ";");
  }
  std::string total = "ein_imul(" + nb + ", " + (grouped ? ng : "1LL") + ")", work = "1LL";
  for (size_t a = 0; a + 2 < na; ++a) total = "ein_imul(" + total + ", " + ext(c.dest.axes[a]) + ")";
  for (DefId d : c.dest.axes) work = "ein_smul(" + work + ", " + ext(d) + ")";
  for (DefId d : p.c.summed) work = "ein_smul(" + work + ", " + ext(d) + ")";
  const bool par = !in_parallel;
  std::string tt = em.fresh("ct");
  std::string head = "for (int64_t " + tt + " = 0; " + tt + " < " + total + "; ++" + tt + ") {";
  if (par) head = "#pragma omp parallel for schedule(static) if(" + work + " >= " + std::to_string(parallel_threshold) + "LL)\n" + head;
  em.open(head, false);
  em.line(std::string("if (ein_stop(A, INT64_MAX)) ") + (par ? "continue;" : "break;"));
  in_parallel = true;
  std::string rest = em.fresh("cr"), jb = em.fresh("cj");
  em.line("int64_t " + rest + " = " + tt + ";");
  em.line("const int64_t " + jb + " = (" + rest + " % " + nb + ") * 512LL; " + rest + " /= " + nb + ";");
  std::string off = c.dest.base, g0 = em.fresh("cg"), gn = em.fresh("cgn");
  if (grouped) {
    const std::string Ng = ext(gi);
    em.line("const int64_t " + g0 + " = (" + rest + " % " + ng + ") * " + rg + "; " + rest + " /= " + ng + ";");
    em.line("const int64_t " + gn + " = " + Ng + " - " + g0 + " < " + rg + " ? " + Ng + " - " + g0 + " : " + rg + ";");
    off += " + ein_imul(" + g0 + ", " + c.dest.strides[na - 2] + ")";
  }
  for (size_t a = grouped ? na - 2 : na - 1; a-- > 0;) {
    std::string v = em.fresh("co");
    const std::string e = ext(c.dest.axes[a]);
    em.line("const int64_t " + v + " = " + rest + " % " + e + "; " + rest + " /= " + e + ";");
    Val x{v, DType::I64, em.depth(), true};
    x.bits = kExtentBits;
    bind(c.dest.axes[a], x);
    off += " + ein_imul(" + v + ", " + c.dest.strides[a] + ")";
  }
  // f32 sums accumulate in f64 and round once, as the interpreter's do (RedVars::wide).
  const bool wide = p.c.op == ir::ReduceOp::Sum && dt == DType::F32;
  const DType at = wide ? DType::F64 : dt;
  std::string jn = em.fresh("cn"), row = em.fresh("crow"), acc = em.fresh("cacc");
  const std::string rows = grouped ? gn : "1LL", rstride = grouped ? c.dest.strides[na - 2] : "0LL";
  em.line("const int64_t " + jn + " = " + Nj + " - " + jb + " < 512LL ? " + Nj + " - " + jb + " : 512LL;");
  em.line(std::string(ctype(dt)) + "* " + row + " = " + off + " + " + jb + ";");
  em.line(std::string(ctype(at)) + " " + acc + "[2048];");
  em.line("for (int64_t jj = 0; jj < ein_imul(" + rows + ", " + jn + "); ++jj) " + acc + "[jj] = " + identity(p.c.op, at) + ";");
  for (DefId d : p.c.summed) open_bound_loop(d, ext(d), "ck");
  std::string ii = em.fresh("cii");
  em.open("for (int64_t " + ii + " = 0; " + ii + " < " + rows + "; ++" + ii + ") {", false);
  if (grouped) {
    Val gv = em.define(DType::I64, "int64_t", g0 + " + " + ii, em.depth(), Motion::Cheap);
    gv.index = true;
    gv.bits = kExtentBits;
    bind(gi, gv);
  }
  std::string jj = em.fresh("cjj"), ab = em.fresh("cab");
  em.line(std::string(ctype(at)) + "* " + ab + " = " + acc + " + " + ii + " * " + jn + ";");
  em.open("#pragma omp simd\nfor (int64_t " + jj + " = 0; " + jj + " < " + jn + "; ++" + jj + ") {", false);
  in_simd = true;
  Val jv = em.define(DType::I64, "int64_t", jb + " + " + jj, em.depth(), Motion::Cheap);
  jv.index = true;
  jv.bits = kExtentBits;
  bind(j, jv);
  Val v = convert(value(ir::lreduce_body(p.c.reduce)), dt);
  em.line(ab + "[" + jj + "] = " + combine(p.c.op, at, ab + "[" + jj + "]", wide ? "(double)" + v.c : v.c) + ";");
  em.close();
  em.close();
  for (size_t i = 0; i < p.c.summed.size(); ++i) em.close();
  em.line("for (int64_t ii = 0; ii < " + rows + "; ++ii) for (int64_t jj = 0; jj < " + jn + "; ++jj) " + row +
          "[ein_imul(ii, " + rstride + ") + jj] = (" + ctype(dt) + ")" + acc + "[ii * " + jn + " + jj];");
  em.close();
  in_parallel = saved_par;
  in_simd = saved_simd;
  unbind_to(m0);
  k.plan.push_back(std::string("partial: a ") + ir::reduce_op_name(p.c.op) + " over " +
                   std::to_string(p.c.summed.size()) +
                   " index(es) computed with the summed variables outside and blocks of up to 512 points of its innermost "
                   "variable" + (grouped ? " (times a group of rows of the one before, up to 2048 points)" : "") +
                   " inside (contiguous reads), into scratch, then the loops read it");
}

void Gen::emit_partial(const ContractionPlan& p, const Contract& c) {
  if (p.columns) return emit_partial_columns(p, c);
  size_t m0 = mark();
  const bool saved_par = in_parallel;
  std::string idx, work = "1LL";
  for (DefId d : c.dest.axes) work = "ein_smul(" + work + ", " + c.ext.at(def_key(d)).c + ")";
  const bool par = !in_parallel;
  for (size_t a = 0; a < c.dest.axes.size(); ++a) {
    DefId d = c.dest.axes[a];
    // Each point's reduction is a whole inner loop: threads from a few thousand points on.
    std::string v = open_bound_loop(d, c.ext.at(def_key(d)).c, "pv",
                                    a == 0 && par ? "#pragma omp parallel for schedule(static) if(" + work + " >= 4096LL)\n" : "");
    if (a == 0) {
      em.line(std::string("if (ein_stop(A, INT64_MAX)) ") + (par ? "continue;" : "break;"));
      in_parallel = true;
    }
    idx += (idx.empty() ? "" : " + ") + (c.dest.strides[a] == "1LL" ? v : "ein_imul(" + v + ", " + c.dest.strides[a] + ")");
  }
  Val r = convert(value(p.c.reduce), c.dt);
  em.line(c.dest.base + "[" + (idx.empty() ? "0" : idx) + "] = " + r.c + ";");
  for (size_t a = 0; a < c.dest.axes.size(); ++a) em.close();
  in_parallel = saved_par;
  unbind_to(m0);
  k.plan.push_back(std::string("partial: a ") + ir::reduce_op_name(p.c.op) + " over " +
                   std::to_string(p.c.summed.size()) + " index(es) computed once per point of its " +
                   std::to_string(c.dest.axes.size()) + " nest variable(s), into scratch, then the loops read it");
}

}  // namespace ein::codegen
