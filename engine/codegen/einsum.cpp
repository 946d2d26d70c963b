// Factorised contractions (Diderot §5 "avoiding blow-up"): a clause whose value is nothing but
//   C[o..] = sum[r..](s * F1 * F2 * ... * Fn)
// over plain-indexed tensor reads costs the product of all extents when evaluated point by point
// — n^8 for the tensor rotation T'[i,j,k,l] = sum[a,b,c,d](g[a,i] g[b,j] g[c,k] g[d,l] T[a,b,c,d]).
// The contraction_plan pass chooses the pairwise steps (ContractionKernel::Factorised, an
// exhaustive cost search shown by %ir); this file prints them for the whole-clause case, each
// step one GEMM/GEMV when its operands are matrices in disguise, else loops over the kept
// indices with the summed ones inside and the last kept index innermost (contiguous, vectorised),
// into runtime scratch counted against the memory limit. The mode-product chain below is a
// guarded fast path in front of the steps. A sum with an epilogue or fixed subscripts goes
// through contract_steps.cpp instead.
#include <algorithm>
#include <map>
#include <set>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/passes/contraction_plan.h"

namespace ein::codegen {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

// A chain of mode products  C[o1..om] = α Σ X[s1..sm] M1[s1,o1] ... Mm[sm,om]  (each factor
// a matrix pairing one summed index of the core X with one output index, in X's axis order; the
// tensor rotation is one) is m GEMMs when each step contracts the leading axis of what is left
// and appends its new index at the end:  Y_k[rest.., o_k] = Y_{k-1}[s_k, rest..] ×  M_k, i.e.
// (R × |o_k|) = (|s_k| × R)ᵀ × (|s_k| × |o_k|). After m steps the layout is [o1..om], the
// output's. Emitted as a guarded fast path (extents as the reshapes assume, none empty) that
// returns; the pairwise loops after it stay as the general fallback. The contraction_plan pass
// recognises the chain (ContractionPlan::chain, shown by %ir); this prints it.
void Gen::mode_product_chain(const ContractionPlan& p, const std::vector<EinsumTerm>& terms,
                             const std::vector<std::string>& out, std::map<std::string, std::string>& n,
                             const std::string& alpha, DType dt, int st) {
  if (p.chain_core < 0) return;  // the plan found no chain
  const size_t m = p.chain.size();
  const EinsumTerm* core = &terms[static_cast<size_t>(p.chain_core)];
  struct Factor {
    const EinsumTerm* t;
    int tb;  // stored [o, s]
  };
  std::vector<Factor> chain;
  for (size_t k = 0; k < m; ++k) {
    const EinsumTerm* t = &terms[static_cast<size_t>(p.chain[k])];
    chain.push_back({t, t->idx[1] == core->idx[k] ? 1 : 0});
  }
  std::string cond;
  auto need = [&](const std::string& c) { cond += (cond.empty() ? "" : " && ") + c; };
  for (size_t a = 0; a < m; ++a) {
    need("(" + n[core->idx[a]] + " == " + extent(core->buf, static_cast<int>(a)) + ")");
    need("(" + n[out[a]] + " == " + extent(0, static_cast<int>(a)) + ")");
    need("(" + n[core->idx[a]] + " > 0) && (" + n[out[a]] + " > 0)");
    const Factor& f = chain[a];
    need("(" + n[f.t->idx[0]] + " == " + extent(f.t->buf, 0) + ") && (" + n[f.t->idx[1]] + " == " +
         extent(f.t->buf, 1) + ")");
  }
  const std::string T = ctype(dt), fn = dt == DType::F32 ? "sgemm" : "dgemm";
  const std::string one = dt == DType::F32 ? "1.0f" : "1.0", esz = dt == DType::F32 ? "4" : "8";
  em.open("if (" + cond + ") {", false);
  std::string prev = "b" + std::to_string(core->buf);
  for (size_t k = 0; k < m; ++k) {
    // Rows of the step: the core axes still to contract, then the outputs made so far.
    std::string R = "1";
    for (size_t j = k + 1; j < m; ++j) R = "ein_smul(" + R + ", " + n[core->idx[j]] + ")";
    for (size_t j = 0; j < k; ++j) R = "ein_smul(" + R + ", " + n[out[j]] + ")";
    const std::string& o = n[out[k]];
    std::string dest = "b0";
    if (k + 1 < m) {
      dest = em.fresh("g");
      em.line(T + "* " + dest + " = (" + T + "*)A->rt->alloc(A->rt_ctx, ein_smul(ein_smul(" + R + ", " + o + "), " +
              esz + "));");
      em.line("if (!" + dest + ") { ein_fail(A, " + std::to_string(st) + ", EIN_E_NOMEM, 0, ein_smul(ein_smul(" + R +
              ", " + o + "), " + esz + "), 0, 0); return A->err->code; }");
    }
    const Factor& f = chain[k];
    em.line("A->rt->" + fn + "(1, " + std::to_string(f.tb) + ", " + R + ", " + o + ", " + n[core->idx[k]] + ", " +
            (k + 1 == m ? alpha : one) + ", " + prev + ", " + R + ", b" + std::to_string(f.t->buf) + ", " +
            extent(f.t->buf, 1) + ", 0, " + dest + ", " + o + ");");
    em.line("if (ein_stop(A, INT64_MAX)) return A->err->code;");
    prev = dest;
  }
  em.line("return A->err->code;");
  em.close();
  k.plan.push_back("BLAS: " + std::to_string(m) + " mode products as " + fn +
                   " calls when the extents are the arrays' own (pairwise loops otherwise)");
}

std::string index_key(DefId d) { return std::to_string(d.crate) + "_" + std::to_string(d.index); }

// One pairwise step as the GEMM or GEMV the plan found (PairStep::gemm, contraction.h's
// step_gemm: the layouts and transpositions), emitted as `if (extents are the arrays' own and
// non-empty) { gemm } else {` with the pairwise loops as the else branch; the caller closes it.
// beta = 1 keeps the loops' `+=` into zeroed storage.
bool Gen::gemm_step(const PairStep& s, const EinsumTerm& x0, const EinsumTerm& y0, EinsumTerm& result, bool last,
                    std::map<std::string, std::string>& n, const std::string& alpha, DType dt, bool overwrite) {
  if (!s.gemm) return false;
  const StepGemm& g = *s.gemm;
  auto keys = [](const std::vector<DefId>& v) {
    std::vector<std::string> out;
    for (DefId d : v) out.push_back(index_key(d));
    return out;
  };
  auto cat = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const EinsumTerm& x = g.swap ? y0 : x0;
  const EinsumTerm& y = g.swap ? x0 : y0;
  const std::vector<std::string> m = keys(g.m), nn = keys(g.n), sx = keys(g.k);
  // The plan read the same layouts; a difference would be a wrong product, so it is refused.
  if (x.idx != (g.x_s_last ? cat(m, sx) : cat(sx, m)) || y.idx != (g.y_s_last ? cat(nn, sx) : cat(sx, nn)) ||
      (last && cat(m, nn) != result.idx))
    unsupported("a GEMM step whose operands are not laid out as planned");
  if (!last) result.idx = cat(m, nn);
  auto prod = [&](const std::vector<std::string>& v) {
    std::string e = "1";
    for (auto& i : v) e = "ein_smul(" + e + ", " + n[i] + ")";
    return e;
  };
  std::string M = prod(m), N = prod(nn), K = prod(sx);
  std::string cond = "(" + M + " > 0) && (" + N + " > 0) && (" + K + " > 0) && (" + M + " <= 2147483647LL) && (" +
                     N + " <= 2147483647LL) && (" + K + " <= 2147483647LL)";
  auto own = [&](const EinsumTerm& t) {
    if (t.buf < 0) return;
    for (size_t a = 0; a < t.idx.size(); ++a)
      cond += " && (" + n[t.idx[a]] + " == " + extent(t.buf, static_cast<int>(a) + t.axis0) + ")";
  };
  own(x);
  own(y);
  if (last)
    for (size_t a = 0; a < result.idx.size(); ++a)
      cond += " && (" + n[result.idx[a]] + " == " +
              (result.ext.empty() ? extent(0, static_cast<int>(a)) : result.ext[a]) + ")";
  auto base = [](const EinsumTerm& t) {
    return t.buf >= 0 ? "b" + std::to_string(t.buf) + (t.off.empty() ? "" : " + " + t.off) : t.tmp;
  };
  const std::string fn = dt == DType::F32 ? "sgemm" : "dgemm", one = dt == DType::F32 ? "1.0f" : "1.0";
  const std::string gv = dt == DType::F32 ? "sgemv" : "dgemv";
  const std::string beta = overwrite ? "0" : one;
  const std::string dst = last && result.tmp.empty() ? std::string("b0") : result.tmp;
  em.open("if (" + cond + ") {", true);
  if (g.gemv()) {
    const bool mat_x = nn.empty();
    const EinsumTerm& mt = mat_x ? x : y;
    const EinsumTerm& vt = mat_x ? y : x;
    // Stored [rows, cols]: the matrix's own layout; transposed when its summed group leads (x)
    // or trails (y).
    const bool s_last = mat_x ? g.x_s_last : g.y_s_last;
    const std::string kept = mat_x ? M : N;
    const bool trans = !s_last;
    const std::string rows = trans ? K : kept, cols = trans ? kept : K;
    em.line("A->rt->" + gv + "(" + (trans ? "1" : "0") + ", " + rows + ", " + cols + ", " + (last ? alpha : one) +
            ", " + base(mt) + ", " + cols + ", " + base(vt) + ", " + beta + ", " + dst + ");");
    em.close();
    em.open("else {", true);
    return true;
  }
  em.line("A->rt->" + fn + "(" + (g.x_s_last ? "0" : "1") + ", " + (g.y_s_last ? "1" : "0") + ", " + M + ", " + N +
          ", " + K + ", " + (last ? alpha : one) + ", " + base(x) + ", " + (g.x_s_last ? K : M) + ", " + base(y) +
          ", " + (g.y_s_last ? K : N) + ", " + (overwrite ? "0" : one) + ", " +
          (last && result.tmp.empty() ? std::string("b0") : result.tmp) + ", " + N + ");");
  em.close();
  em.open("else {", true);
  return true;
}

// A pairwise loop step whose summed indices are the unit-stride (last) axis of both operands
// (a row-wise dot `T[b, j] · Y[b, j]` over j): the kept indices outside, threads over the first
// when the work is big, and per kept point one vectorised dot product into a local sum, added
// to `dst` once. (The general loop order puts the last kept index innermost, which walks such
// operands across their rows: 256 strided passes over 8 MB for a 4000 × 256 row dot.) Returns
// false when the step is not of that shape.
bool Gen::dot_step(const std::vector<std::string>& x, const std::vector<std::string>& y,
                   const std::vector<std::string>& kept, const std::vector<std::string>& sum,
                   std::map<std::string, std::string>& n, const std::string& dst, const std::string& rhs, DType dt) {
  auto in_sum = [&](const std::vector<std::string>& t) {
    return !t.empty() && std::find(sum.begin(), sum.end(), t.back()) != sum.end();
  };
  if (sum.empty() || !in_sum(x) || !in_sum(y)) return false;
  // The summed loops in the order of x's axes, so its unit-stride one is innermost.
  std::vector<std::string> order;
  for (auto& i : x)
    if (std::find(sum.begin(), sum.end(), i) != sum.end()) order.push_back(i);
  if (order.size() != sum.size()) return false;
  std::string work = "1LL";
  for (auto& v : kept) work = "ein_smul(" + work + ", " + n[v] + ")";
  for (auto& v : sum) work = "ein_smul(" + work + ", " + n[v] + ")";
  for (size_t d = 0; d < kept.size(); ++d) {
    const std::string& v = kept[d];
    std::string head = "for (int64_t e_" + v + " = 0; e_" + v + " < " + n[v] + "; ++e_" + v + ") {";
    if (d == 0 && !in_parallel)
      head = "#pragma omp parallel for schedule(static) if(" + work + " >= " + std::to_string(parallel_threshold) + "LL)\n" + head;
    em.open(head, false);
    if (d == 0) em.line("if (ein_stop(A, INT64_MAX)) " + std::string(in_parallel ? "break;" : "continue;"));
  }
  const std::string T = ctype(dt), acc = em.fresh("dacc");
  em.line(T + " " + acc + " = 0;");
  for (size_t d = 0; d < order.size(); ++d) {
    const std::string& v = order[d];
    std::string head = "for (int64_t e_" + v + " = 0; e_" + v + " < " + n[v] + "; ++e_" + v + ") {";
    if (d + 1 == order.size()) head = "#pragma omp simd reduction(+:" + acc + ")\n" + head;
    em.open(head, false);
  }
  em.line(acc + " += " + rhs + ";");
  for (size_t d = 0; d < order.size(); ++d) em.close();
  em.line(dst + " += " + acc + ";");
  for (size_t d = 0; d < kept.size(); ++d) em.close();
  if (kept.empty()) em.line("if (ein_stop(A, INT64_MAX)) return A->err->code;");
  return true;
}

bool Gen::einsum(const NodeRef& tensor, const NodeRef& clause) {
  // Index keys double as C names (e_<key>).
  const auto ekey = index_key;
  DType dt = static_cast<DType>(tensor->ival);
  if (dt != DType::F32 && dt != DType::F64) return false;
  if (tensor->has(ir::kWindowed) || tensor->has(ir::kHasElem)) return false;
  // Output nest: loops from 0 around one store indexed by the loop variables.
  std::vector<NodeRef> loops;
  NodeRef cur = clause;
  while (cur->kind == Kind::LFor) {
    if (ir::lfor_lo(cur)->kind != Kind::IntLit || ir::lfor_lo(cur)->ival != 0 || cur->has(ir::kSequential)) return false;
    loops.push_back(cur);
    cur = ir::lfor_body(cur);
  }
  if (cur->kind != Kind::LStore || loops.empty()) return false;
  const NodeRef& store = cur;
  std::map<std::string, NodeRef> hi;  // index key -> extent expression
  std::vector<std::string> out;
  for (auto& l : loops) hi[ekey(l->def)] = ir::lfor_hi(l);
  for (const NodeRef& ix : ir::lstore_index(store)) {
    if (ix->kind != Kind::Name || !hi.count(ekey(ix->def))) return false;
    out.push_back(ekey(ix->def));
  }
  if (out.size() != loops.size() || out.size() != ir::lshape_extents_count(ir::ltensor_shape(tensor)))
    return false;
  const NodeRef& red = ir::lstore_value(store);
  if (red->kind != Kind::LReduce || ir::reduce_op(*red) != ir::ReduceOp::Sum) return false;
  for (const NodeRef& v : ir::lreduce_items(red)) {
    if (v->kind != Kind::LoopVar || ir::loopvar_lo(v)->kind != Kind::IntLit || ir::loopvar_lo(v)->ival != 0) return false;
    hi[ekey(v->def)] = ir::loopvar_hi(v);
  }
  // The order of the pairwise steps is the contraction_plan pass's (its cost search, shown by
  // %ir); this file only prints it, with the mode-product chain as a guarded fast path.
  auto planned = unit->contractions.find(red->id);
  if (planned == unit->contractions.end()) return false;
  const ContractionPlan& p = *planned->second;
  if (p.kernel != ContractionKernel::Factorised || !p.in_place || !p.whole || !p.alpha.empty() || p.divisor ||
      p.dest.size() != out.size())
    return false;
  for (size_t a = 0; a < out.size(); ++a)
    if (ekey(p.dest[a]) != out[a]) return false;
  std::vector<EinsumTerm> terms;
  for (const ContractionOperand& o : p.c.operands) {
    const NodeRef& t = o.read;
    const NodeRef& base = ir::index_base(t);
    if (o.gathered || base->kind != Kind::Name || base->def == tensor->def || !is_proven(*unit, t)) return false;
    if (fusion.producers.count(base->def) || t->has(ir::kWindowed)) return false;
    EinsumTerm term;
    for (DefId d : o.axes) {
      if (!d.valid() || !hi.count(ekey(d))) return false;  // a fixed subscript: contract_steps.cpp's case
      term.idx.push_back(ekey(d));
    }
    ir::TypeRef ty = type_of_def(base);
    if (!ty || ir::elem_of(ty)->dtype != dt || ir::rank_of(ty) != static_cast<int>(term.idx.size())) return false;
    terms.push_back(term);
  }
  for (auto& s : p.c.scalars) {
    bool invariant = true;
    ir::for_each_node(s, [&](const NodeRef& x) {
      if (x->kind == Kind::Name && hi.count(ekey(x->def))) invariant = false;
      if (x->kind == Kind::Index || x->kind == Kind::LReduce || x->kind == Kind::Call) invariant = false;
    });
    if (!invariant) return false;
  }

  // ---- emission -------------------------------------------------------------------------
  BufArg ob;
  ob.def = tensor->def;
  ob.slot = tensor->slot;
  ob.name = tensor->name;
  ob.dt = dt;
  ob.rank = static_cast<int>(out.size());
  ob.output = true;
  k.bufs.push_back(ob);
  out_buf = 0;
  out_def = tensor->def;
  const std::string T = ctype(dt);
  for (size_t i = 0; i < terms.size(); ++i) terms[i].buf = buffer_of(ir::index_base(p.c.operands[i].read));
  std::map<std::string, std::string> n;  // index key -> extent (C)
  for (auto& [key, h] : hi) n[key] = index(h).c;
  Val alpha = literal(dt == DType::F32 ? "1.0f" : "1.0", dt);
  for (auto& s : p.c.scalars) {
    Val v = value(s);
    if (v.dt != dt) unsupported("a scalar factor of another type");
    alpha = em.define(dt, T, "(" + alpha.c + " * " + v.c + ")", 0, Motion::Cheap);
  }
  int st = site(store->span);
  for (size_t a = 0; a < out.size(); ++a)
    em.line("if (" + n[out[a]] + " > " + extent(0, static_cast<int>(a)) + ") { ein_fail(A, " + std::to_string(st) +
            ", EIN_E_BOUNDS, 0, " + n[out[a]] + ", " + std::to_string(a) + ", " + extent(0, static_cast<int>(a)) +
            "); return A->err->code; }");
  // Addressing of a term: strides of an argument, or of a scratch array in `idx` order.
  auto addr = [&](const EinsumTerm& t) {
    std::string f;
    for (size_t a = 0; a < t.idx.size(); ++a) {
      std::string v = "e_" + t.idx[a];
      std::string stri;
      if (t.buf >= 0) {
        stri = a + 1 == t.idx.size() ? "" : stride(t.buf, static_cast<int>(a));
      } else {
        for (size_t b = a + 1; b < t.idx.size(); ++b) stri += (stri.empty() ? "" : " * ") + n[t.idx[b]];
      }
      f += (f.empty() ? "" : " + ") + (stri.empty() ? v : v + " * " + stri);
    }
    std::string base = t.buf >= 0 ? "b" + std::to_string(t.buf) : t.tmp;
    return base + "[" + (f.empty() ? "0" : f) + "]";
  };
  mode_product_chain(p, terms, out, n, alpha.c, dt, st);
  std::vector<EinsumTerm> pool = terms;  // operands, then each step's result (PairStep numbering)
  int gemm_steps = 0;
  for (size_t si = 0; si < p.path.size(); ++si) {
    const PairStep& s = p.path[si];
    const EinsumTerm& x = pool[static_cast<size_t>(s.a)];
    const EinsumTerm& y = pool[static_cast<size_t>(s.b)];
    std::vector<std::string> sum;
    for (DefId d : s.sum) sum.push_back(ekey(d));
    bool last = si + 1 == p.path.size();
    EinsumTerm result;
    if (last) result.idx = out;
    else
      for (DefId d : s.keep) result.idx.push_back(ekey(d));
    std::string dest;
    if (last) {
      result.buf = 0;
    } else {
      result.tmp = em.fresh("w");
      std::string count = "1";
      for (auto& x : result.idx) count = "ein_smul(" + count + ", " + n[x] + ")";
      em.line(T + "* " + result.tmp + " = (" + T + "*)A->rt->alloc(A->rt_ctx, ein_smul(" + count + ", " + std::to_string(dt == DType::F32 ? 4 : 8) + "));");
      em.line("if (!" + result.tmp + ") { ein_fail(A, " + std::to_string(st) + ", EIN_E_NOMEM, 0, ein_smul(" + count +
              ", " + std::to_string(dt == DType::F32 ? 4 : 8) + "), 0, 0); return A->err->code; }");
    }
    // The last step writes the tensor, whose storage may hold an earlier value's numbers (a
    // reused block is not zeroed: writes_whole.cpp writes_every_point): its GEMM overwrites (beta = 0)
    // and its loops zero the box before they accumulate.
    bool blas = gemm_step(s, x, y, result, last, n, alpha.c, dt, last);
    if (blas) gemm_steps += 1;
    if (last) {
      for (const std::string& v : out)
        em.open("for (int64_t e_" + v + " = 0; e_" + v + " < " + n[v] + "; ++e_" + v + ") {", false);
      em.line(addr(result) + " = 0;");
      for (size_t d = 0; d < out.size(); ++d) em.close();
    }
    std::string rhs = addr(x) + " * " + addr(y);
    if (last) rhs = alpha.c + " * " + rhs;
    if (dot_step(x.idx, y.idx, result.idx, sum, n, addr(result), rhs, dt)) {
      if (blas) em.close();
      pool.push_back(result);
      continue;
    }
    // Loop order: kept indices but the last, the summed ones, the last kept one innermost.
    std::vector<std::string> order(result.idx.begin(), result.idx.end());
    std::string inner = order.empty() ? "" : order.back();
    if (!order.empty()) order.pop_back();
    order.insert(order.end(), sum.begin(), sum.end());
    if (!inner.empty()) order.push_back(inner);
    for (size_t d = 0; d < order.size(); ++d) {
      const std::string& v = order[d];
      std::string head = "for (int64_t e_" + v + " = 0; e_" + v + " < " + n[v] + "; ++e_" + v + ") {";
      // Threads split the outermost kept index; a result with one index has the sums outside.
      // Steps are short (n^5 for n = 16 is a quarter millisecond): threads only for big ones.
      if (d == 0 && result.idx.size() >= 2) {
        std::string work = "1LL";
        for (auto& v : order) work = "ein_smul(" + work + ", " + n[v] + ")";
        head = "#pragma omp parallel for schedule(static) if(" + work + " >= " + std::to_string(8 * parallel_threshold) +
               "LL)\n" + head;
      }
      const bool simd = d + 1 == order.size() && !inner.empty();
      if (simd) head = "#pragma omp simd\n" + head;
      // A step of one loop (an elementwise product of two vectors, `r[n] * q[n]` in
      // `sum[n](X[n, d] * r[n] * q[n])`) is its simd loop, which may not break: the stop check
      // goes before it. (It was inside: GCC rejected the kernel, and the whole cell's batch of
      // kernels ran interpreted.)
      if (d == 0 && simd) em.line("if (ein_stop(A, INT64_MAX)) return A->err->code;");
      em.open(head, false);
      if (d == 0 && !simd) em.line("if (ein_stop(A, " + std::string(result.idx.size() >= 2 ? "e_" + v : "INT64_MAX") + ")) " +
                          (result.idx.size() >= 2 ? "continue;" : "break;"));
    }
    em.line(addr(result) + " += " + rhs + ";");
    for (size_t d = 0; d < order.size(); ++d) em.close();
    if (blas) em.close();
    pool.push_back(result);
  }
  k.strategy = "einsum";
  k.plan.push_back("contraction " + describe_path(p) + " (the plan's order), cost " +
                   std::to_string(static_cast<long long>(p.path_cost)) + " instead of " +
                   std::to_string(static_cast<long long>(p.naive_cost)) +
                   (gemm_steps ? ", " + std::to_string(gemm_steps) + " of them as " +
                                     (dt == DType::F32 ? "sgemm" : "dgemm") + " calls when the extents are the arrays' own"
                               : std::string()));
  k.accesses += static_cast<int>(terms.size());
  return true;
}

}  // namespace ein::codegen
