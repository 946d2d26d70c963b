// Register-tiled contractions C[.., i, j] = ⊕_k f(X[.., i, .., k], Y[.., k, .., j]) for any
// combiner ⊕ in {sum, max, min} and any pointwise f (squared distances, max-plus, products of
// integers, ...). A tile of MR rows × NR columns keeps its accumulators in vector registers;
// the k loop broadcasts one X value per row and loads NR consecutive Y values, so the column
// loop vectorises. Y is packed into column panels [j / NR][k][NR] when it does not vary inside
// the nest (once, at kernel entry, when it does not vary at all: a recurrence's weights), else
// read in place along its unit-stride axis. Every point still combines its k values one after
// the other in order; a float sum of products fuses each multiply-add (see the sweep).
#include <algorithm>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/passes/contraction_plan.h"

namespace ein::codegen {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

std::string int_bound(DType dt, bool max);  // gen_reduce.cpp

std::string identity(ir::ReduceOp op, DType dt) {
  std::string inf = dt == DType::F32 ? "__builtin_inff()" : "__builtin_inf()";
  switch (op) {
    case ir::ReduceOp::Max: return is_float(dt) ? "(-" + inf + ")" : int_bound(dt, false);
    case ir::ReduceOp::Min: return is_float(dt) ? inf : int_bound(dt, true);
    default: return "0";
  }
}

// acc ⊕ v with the interpreter's rules (wrapping integer sums, first NaN wins).
std::string combine(ir::ReduceOp op, DType dt, const std::string& a, const std::string& v) {
  if (op == ir::ReduceOp::Sum) {
    if (is_float(dt)) return "(" + a + " + " + v + ")";
    if (dt == DType::I8) return "((i8)((int)" + a + " + (int)" + v + "))";
    std::string U = dt == DType::I32 ? "uint32_t" : "uint64_t";
    return "((" + std::string(ctype(dt)) + ")((" + U + ")" + a + " + (" + U + ")" + v + "))";
  }
  const char* cmp = op == ir::ReduceOp::Max ? " > " : " < ";
  if (is_float(dt)) return "((" + a + " != " + a + ") ? " + a + " : ((" + v + " != " + v + " || " + v + cmp + a + ") ? " + v + " : " + a + "))";
  return "(" + v + cmp + a + " ? " + v + " : " + a + ")";
}

// A nest that is nothing but loops over the tile's variables around one store of a value of
// the contraction — `D[i, j] = sqrt(sum[k](..))`, `K[i, j] = exp(-g * sum[k](..))`, `sum[k](..)
// + B[j]` — is not run after the tiles: each tile evaluates that value from its accumulators
// and stores it, instead of storing the sums and reading them back in a second pass over the
// result. Only values that cannot fail (no error could then come out of sequential order), with
// no other reduction, into a plain (unwindowed) tensor.
NodeRef Gen::tile_epilogue(const ContractionPlan& p, const NodeRef& loop) {
  if (p.kernel != ContractionKernel::Tiled || !p.in_place || !carry_.name.empty()) return nullptr;
  std::vector<DefId> vars;
  NodeRef cur = loop;
  for (; cur && cur->kind == Kind::LFor; cur = ir::lfor_body(cur)) {
    auto lo = static_int(cx, *unit, ir::lfor_lo(cur));
    if (!lo || *lo != 0) return nullptr;
    vars.push_back(cur->def);
  }
  if (!cur || cur->kind != Kind::LStore || cur->def != out_def || cur->has(ir::kWindowed)) return nullptr;
  if (vars.size() != p.dest.size() || ir::lstore_index_count(cur) != p.dest.size()) return nullptr;
  for (size_t a = 0; a < p.dest.size(); ++a) {
    const NodeRef& x = ir::lstore_index(cur)[a];
    if (x->kind != Kind::Name || x->def != p.dest[a]) return nullptr;
    if (std::find(vars.begin(), vars.end(), p.dest[a]) == vars.end()) return nullptr;
  }
  const NodeRef& v = ir::lstore_value(cur);
  int reductions = 0;
  bool other = false;
  ir::for_each_node(v, [&](const NodeRef& x) {
    if (x->kind == Kind::LReduce && x->id == p.c.reduce->id) ++reductions;
    else if (x->kind == Kind::LReduce) other = true;
    if (x->kind == Kind::Block || x->kind == Kind::LLetIn) other = true;
  });
  if (other || reductions == 0 || may_fail(v, *unit, 0)) return nullptr;
  return cur;
}

void Gen::emit_tiled(const ContractionPlan& p, const Contract& c) {
  const ContractionOperand& X = p.c.operands[static_cast<size_t>(p.x)];
  const ContractionOperand& Y = p.c.operands[static_cast<size_t>(p.y)];
  const int by = c.bufs[static_cast<size_t>(p.y)];
  const DType dt = c.dt;
  const std::string T = ctype(dt);
  auto ext = [&](DefId d) { return c.ext.at(def_key(d)).c; };
  const DefId j = p.dest.back();
  DefId r;  // the row variable: the last free variable only X has
  for (size_t a = p.dest.size() - 1; a-- > 0;)
    if (X.uses(p.dest[a]) && !Y.uses(p.dest[a])) {
      r = p.dest[a];
      break;
    }
  std::vector<DefId> outer;
  for (DefId d : p.dest)
    if (d != j && d != r) outer.push_back(d);
  const int vl = 64 / std::max(1, dtype_storage_bytes(dt));  // lanes of a 512-bit vector
  // Eight rows per tile: the accumulators live in stack arrays the column loop reads and writes
  // at every k, so each is a chain load -> op -> store whose latency (store forwarding plus the
  // operation, about 10 cycles) only sixteen independent chains hide; four rows left sqdist at
  // three quarters of the vector units' rate (docs/performance.md, session 14). Row extents known
  // to be at most four (small batched matrices) keep four rows, wasting no clamped rows.
  const Val* rext = r.valid() ? &c.ext.at(def_key(r)) : nullptr;
  const int MR = !rext ? 1 : rext->is_const && rext->ival <= 4 ? 4 : 8, NR = r.valid() ? 2 * vl : 8 * vl;
  const std::string Mi = r.valid() ? ext(r) : "1LL", Nj = ext(j), K = c.K;
  // Y's columns: packed once (Y does not vary with the outer variables), read in place along
  // its unit-stride axis, or packed again at every outer point.
  bool varies = false;
  for (DefId d : outer) varies = varies || Y.uses(d);
  const bool per_outer = varies && Y.axis_of(j) != static_cast<int>(Y.axes.size()) - 1;
  const bool packed = !varies || per_outer;
  // Reads of the body that are X or Y (a read may occur several times).
  std::vector<uint32_t> xs, ys;
  ir::for_each_node(ir::lreduce_body(p.c.reduce), [&](const NodeRef& n) {
    if (n->kind != Kind::Index) return;
    if (ir::structurally_equal(n, X.read)) xs.push_back(n->id);
    else if (ir::structurally_equal(n, Y.read)) ys.push_back(n->id);
  });
  const std::string njb = "((" + Nj + " + " + std::to_string(NR - 1) + "LL) / " + std::to_string(NR) + "LL)";
  const std::string nib = "((" + Mi + " + " + std::to_string(MR - 1) + "LL) / " + std::to_string(MR) + "LL)";
  // The summed variables, as nested loops with a flat counter (Y's packed row).
  auto open_k = [&](const std::string& kf) {
    em.line("int64_t " + kf + " = 0;");
    for (DefId d : p.c.summed) open_bound_loop(d, ext(d), "kv");
  };
  auto close_k = [&](const std::string& kf) {
    em.line("++" + kf + ";");
    for (size_t i = 0; i < p.c.summed.size(); ++i) em.close();
  };
  auto bind_index = [&](DefId d, const std::string& cexpr) {
    Val v = em.define(DType::I64, "int64_t", cexpr, em.depth(), Motion::Cheap);
    v.index = true;
    v.bits = kExtentBits;
    bind(d, v);
  };
  size_t m0 = mark();
  // ---- Y's column panels ----
  std::string yp;
  const DType ydt = k.bufs[static_cast<size_t>(by)].dt;
  const std::string TY = stype(ydt);
  // Emits the packing loops at the current point (outer variables bound when per_outer).
  auto emit_pack = [&]() {
    size_t m1 = mark();
    std::string jb = em.fresh("jb");
    em.open("for (int64_t " + jb + " = 0; " + jb + " < " + njb + "; ++" + jb + ") {", false);
    std::string kf = em.fresh("kf");
    open_k(kf);
    std::string jj = em.fresh("jj");
    em.open("for (int64_t " + jj + " = 0; " + jj + " < " + std::to_string(NR) + "LL; ++" + jj + ") {", false);
    std::string jv = em.fresh("jv");
    em.line("const int64_t " + jv + " = " + jb + " * " + std::to_string(NR) + "LL + " + jj + ";");
    bind_index(j, "(" + jv + " < " + Nj + " ? " + jv + " : " + Nj + " - 1)");
    Val v = value(Y.read);
    em.line(yp + "[(" + jb + " * " + K + " + " + kf + ") * " + std::to_string(NR) + "LL + " + jj + "] = " +
            (ydt == DType::Bool ? "(uint8_t)" : "") + v.c + ";");
    em.close();
    close_k(kf);
    em.close();
    unbind_to(m1);
  };
  if (packed) {
    std::string key = "pack|" + std::to_string(p.c.reduce->id);
    bool at_entry = !per_outer && c.sizes_at_entry && is_proven(*unit, Y.read);
    for (size_t a = 0; a < Y.axes.size() && at_entry; ++a)
      if (!Y.axes[a].valid()) at_entry = index(ir::index_args(Y.read)[a]).level == 0;
    auto it = scratch_.find(key);
    if (it != scratch_.end() && at_entry) {
      yp = it->second;
    } else {
      yp = em.fresh("yp");
      if (!c.sizes_at_entry) unsupported("a packed operand sized inside the loops");
      {
        Emitter::Detour d(em, 0);
        alloc_scratch(yp, ydt, "ein_smul(ein_smul(" + njb + ", " + std::to_string(NR) + "LL), " + K + ")",
                      p.c.reduce->span);
      }
      scratch_[key] = yp;
      if (!per_outer) {
        std::unique_ptr<Emitter::Detour> detour;
        std::string saved_ord = ord_, saved_stop = stop_ord_;
        bool saved_par = in_parallel;
        if (at_entry) {
          detour = std::make_unique<Emitter::Detour>(em, 0);
          context_at(0);
        }
        emit_pack();
        detour.reset();
        ord_ = saved_ord;
        stop_ord_ = saved_stop;
        in_parallel = saved_par;
      }
    }
  }
  // ---- tiles ----
  std::vector<std::string> oext;
  for (DefId d : outer) oext.push_back(ext(d));
  auto decompose_outer = [&](const std::string& rest) {
    for (size_t o = outer.size(); o-- > 0;) {
      std::string v = em.fresh("ov");
      em.line("const int64_t " + v + " = " + rest + " % " + oext[o] + "; " + rest + " /= " + oext[o] + ";");
      Val x{v, DType::I64, em.depth(), true};
      x.bits = kExtentBits;
      bind(outer[o], x);
    }
  };
  std::string ntiles = "ein_imul(" + nib + ", " + njb + ")";
  if (per_outer) {
    // One outer point at a time: pack its Y slice, then its tiles (in parallel).
    std::string npts = "1LL", op = em.fresh("op");
    for (auto& e : oext) npts = "ein_imul(" + npts + ", " + e + ")";
    em.open("for (int64_t " + op + " = 0; " + op + " < " + npts + "; ++" + op + ") {", false);
    em.line("if (ein_stop(A, INT64_MAX)) break;");
    std::string rest = em.fresh("or");
    em.line("int64_t " + rest + " = " + op + ";");
    decompose_outer(rest);
    emit_pack();
  } else {
    for (auto& e : oext) ntiles = "ein_imul(" + ntiles + ", " + e + ")";
  }
  std::string work = "ein_imul(ein_imul(ein_imul(" + ntiles + ", " + std::to_string(MR * NR) + "LL), " + K + "), 1LL)";
  std::string tt = em.fresh("tt");
  std::string pragma = "#pragma omp parallel for schedule(static) if(" + work + " >= " +
                       std::to_string(parallel_threshold) + "LL)\n";
  std::string cond = work + " >= " + std::to_string(parallel_threshold) + "LL";
  em.open(pragma + "for (int64_t " + tt + " = 0; " + tt + " < " + ntiles + "; ++" + tt + ") {", false);
  bool saved_par = in_parallel;
  in_parallel = true;
  em.line("if (ein_stop(A, INT64_MAX)) continue;");
  std::string rest = em.fresh("tr");
  em.line("int64_t " + rest + " = " + tt + ";");
  std::string jb = em.fresh("jb"), ib = em.fresh("ib");
  em.line("const int64_t " + jb + " = " + rest + " % " + njb + "; " + rest + " /= " + njb + ";");
  em.line("const int64_t " + ib + " = " + rest + " % " + nib + "; " + rest + " /= " + nib + ";");
  if (!per_outer) decompose_outer(rest);
  std::string i0 = em.fresh("i0"), j0 = em.fresh("j0"), mr = em.fresh("mr"), nr = em.fresh("nr");
  em.line("const int64_t " + i0 + " = " + ib + " * " + std::to_string(MR) + "LL, " + j0 + " = " + jb + " * " +
          std::to_string(NR) + "LL;");
  em.line("const int64_t " + mr + " = " + Mi + " - " + i0 + " < " + std::to_string(MR) + "LL ? " + Mi + " - " + i0 +
          " : " + std::to_string(MR) + "LL;");
  em.line("const int64_t " + nr + " = " + Nj + " - " + j0 + " < " + std::to_string(NR) + "LL ? " + Nj + " - " + j0 +
          " : " + std::to_string(NR) + "LL;");
  std::vector<std::string> acc;
  for (int ii = 0; ii < MR; ++ii) {
    acc.push_back(em.fresh("acc"));
    em.line(T + " " + acc.back() + "[" + std::to_string(NR) + "];");
  }
  em.open("for (int jj = 0; jj < " + std::to_string(NR) + "; ++jj) {", false);
  for (auto& a : acc) em.line(a + "[jj] = " + identity(p.c.op, dt) + ";");
  em.close();
  // A float sum of products accumulates with one rounding per term (fused multiply-add), as
  // BLAS does for the same contraction: `(p - q) ** 2` or `(p - q) * (p - q)` summed runs as
  // sub + fma instead of sub + mul + add, a third fewer vector operations on the kernel's
  // critical path. This is a rounding decision (docs/jit.md, "Reductions"): the tiled kernels
  // already accumulate in the operand type like NumPy's `@`, unlike the interpreter's f64 sum.
  const NodeRef& body = ir::lreduce_body(p.c.reduce);
  NodeRef fma_lhs, fma_rhs;  // rhs empty: a square of the lhs
  if (p.c.op == ir::ReduceOp::Sum && is_float(dt) && body->kind == Kind::Binary && dtype_of(body) == dt) {
    auto bop = static_cast<ir::BinOp>(body->ival);
    const NodeRef& l = ir::bin_lhs(*body);
    const NodeRef& rr = ir::bin_rhs(*body);
    if (bop == ir::BinOp::Mul && dtype_of(l) == dt && dtype_of(rr) == dt) {
      fma_lhs = l;
      fma_rhs = rr;
    } else if (bop == ir::BinOp::Pow && rr->kind == Kind::IntLit && rr->ival == 2 && dtype_of(l) == dt) {
      fma_lhs = l;
    }
  }
  // One k sweep; `full` reads Y in place without clamping the columns.
  auto sweep = [&](bool full) {
    size_t m1 = mark();
    std::string kf = em.fresh("kf");
    open_k(kf);
    std::vector<Val> xv;
    for (int ii = 0; ii < MR; ++ii) {
      if (r.valid())
        bind_index(r, "(" + i0 + " + " + std::to_string(ii) + "LL < " + Mi + " ? " + i0 + " + " + std::to_string(ii) +
                          "LL : " + Mi + " - 1)");
      Val v = value(X.read);
      xv.push_back(Val{v.c, v.dt, em.depth()});
    }
    std::string jj = em.fresh("jj");
    em.open("#pragma omp simd\nfor (int64_t " + jj + " = 0; " + jj + " < " + std::to_string(NR) + "LL; ++" + jj + ") {",
            false);
    bool saved_simd = in_simd;
    in_simd = true;
    Val yv;
    if (packed) {
      yv = Val{em.fresh("y"), ydt, em.depth()};
      em.line("const " + std::string(ctype(ydt)) + " " + yv.c + " = " + (ydt == DType::Bool ? "(bool)" : "") + yp + "[(" +
              jb + " * " + K + " + " + kf + ") * " + std::to_string(NR) + "LL + " + jj + "];");
    } else {
      std::string jx = full ? j0 + " + " + jj : "(" + j0 + " + " + jj + " < " + Nj + " ? " + j0 + " + " + jj + " : " + Nj + " - 1)";
      bind_index(j, jx);
      Val v = value(Y.read);
      yv = Val{v.c, v.dt, em.depth()};
    }
    for (int ii = 0; ii < MR; ++ii) {
      for (uint32_t id : xs) read_subst_[id] = xv[static_cast<size_t>(ii)];
      for (uint32_t id : ys) read_subst_[id] = yv;
      const std::string a = acc[static_cast<size_t>(ii)] + "[" + jj + "]";
      if (fma_lhs) {
        Val f = value(fma_lhs), g = fma_rhs ? value(fma_rhs) : f;
        em.line(a + " = " + (dt == DType::F32 ? "__builtin_fmaf(" : "__builtin_fma(") + f.c + ", " + g.c + ", " + a + ");");
        continue;
      }
      Val v = convert(value(body), dt);
      em.line(a + " = " + combine(p.c.op, dt, a, v.c) + ";");
    }
    read_subst_.clear();
    in_simd = saved_simd;
    em.close();
    close_k(kf);
    unbind_to(m1);
  };
  if (packed) {
    sweep(true);
  } else {
    em.open("if (" + nr + " == " + std::to_string(NR) + "LL) {", true);
    sweep(true);
    em.close();
    em.open("if (" + nr + " != " + std::to_string(NR) + "LL) {", true);
    sweep(false);
    em.close();
  }
  // Store the tile.
  std::string base = c.dest.base;
  for (size_t a = 0; a < c.dest.axes.size(); ++a) {
    DefId d = c.dest.axes[a];
    if (d == j || d == r) continue;
    base += " + ein_imul(" + lookup(d)->c + ", " + c.dest.strides[a] + ")";
  }
  std::string sj = "1LL", sr = "0LL";
  for (size_t a = 0; a < c.dest.axes.size(); ++a) {
    if (c.dest.axes[a] == j) sj = c.dest.strides[a];
    if (r.valid() && c.dest.axes[a] == r) sr = c.dest.strides[a];
  }
  // Full tiles store with a constant trip count: the compiler then writes the accumulators
  // straight from their vector registers. With `nr` it emitted a generic copy loop through the
  // stack that took a fifth of pairwise_self's kernel (1500 columns: every row of tiles ends
  // in a partial one, so the compiler cannot prove nr constant).
  const NodeRef epi = tile_epilogue_;
  const DType odt = k.bufs[static_cast<size_t>(out_buf)].dt;
  auto store_rows = [&](const std::string& count) {
    for (int ii = 0; ii < MR; ++ii) {
      std::string row = "(" + i0 + " + " + std::to_string(ii) + "LL)";
      em.open("if (" + std::to_string(ii) + "LL < " + mr + ") {", true);
      if (!epi) {
        std::string v = acc[static_cast<size_t>(ii)] + "[jj]";
        em.line("for (int64_t jj = 0; jj < " + count + "; ++jj) (" + base + ")[ein_imul(" + row + ", " + sr +
                ") + ein_imul(" + j0 + " + jj, " + sj + ")] = " + v + ";");
        em.close();
        continue;
      }
      // The store's value at (row, column), the contraction read from the accumulator.
      size_t m1 = mark();
      if (r.valid()) bind_index(r, row);
      std::string jj = em.fresh("jj");
      em.open("#pragma omp simd\nfor (int64_t " + jj + " = 0; " + jj + " < " + count + "; ++" + jj + ") {", false);
      bool saved_simd = in_simd;
      in_simd = true;
      bind_index(j, "(" + j0 + " + " + jj + ")");
      read_subst_[p.c.reduce->id] = Val{acc[static_cast<size_t>(ii)] + "[" + jj + "]", dt, em.depth()};
      Val v = convert(value(ir::lstore_value(epi)), odt);
      read_subst_.clear();
      em.line("(" + base + ")[ein_imul(" + row + ", " + sr + ") + ein_imul(" + j0 + " + " + jj + ", " + sj + ")] = " +
              (odt == DType::Bool ? "(uint8_t)" : "") + v.c + ";");
      in_simd = saved_simd;
      em.close();
      unbind_to(m1);
      em.close();
    }
  };
  em.open("if (" + nr + " == " + std::to_string(NR) + "LL) {", true);
  store_rows(std::to_string(NR) + "LL");
  em.close();
  em.open("if (" + nr + " != " + std::to_string(NR) + "LL) {", true);
  store_rows(nr);
  em.close();
  in_parallel = saved_par;
  em.close_twin("}", pragma, cond);
  if (per_outer) em.close();
  unbind_to(m0);
  k.accesses += 2;
  if (contraction_strategy_.empty()) contraction_strategy_ = "tiled";
  k.plan.push_back(std::string("tiled: ") + ir::reduce_op_name(p.c.op) + " over " + std::to_string(p.c.summed.size()) +
                   " index(es) in " + std::to_string(MR) + "x" + std::to_string(NR) + " register tiles, columns from " +
                   ir::index_base(Y.read)->name + (per_outer ? " (packed per outer point)" : packed ? " (packed)" : " (in place)") +
                   (p.in_place ? " into the tensor" : " into scratch") +
                   (epi ? ", the store's value computed in the tiles" : p.whole ? "" : ", then the loops read it") +
                   (fma_lhs ? ", multiply-adds fused" : ""));
}

}  // namespace ein::codegen
