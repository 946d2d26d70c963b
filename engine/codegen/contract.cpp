// Planned contractions (lang/passes/contraction_plan.h): before a loop nest runs, its
// contractions are computed for all points — one BLAS call per batch point, or a register-tiled
// loop nest — into the clause's tensor or into scratch, and the nest then reads them back at
// the point (or does not run at all when the store value was α·R). The plan decides; this file
// prints it. The nest keeps its plain version behind a run-time test (sizes BLAS cannot take,
// empty ranges), so every plan is only a faster way to the same values.
#include <algorithm>
#include <cstring>
#include <map>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/passes/contraction_plan.h"

namespace ein::codegen {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

std::string join(const std::vector<std::string>& xs, const std::string& sep) {
  std::string out;
  for (auto& x : xs) out += (out.empty() ? "" : sep) + x;
  return out;
}

std::string prod(const std::vector<std::string>& xs) {
  std::string out = "1LL";
  for (auto& x : xs) out = out == "1LL" ? x : "ein_smul(" + out + ", " + x + ")";
  return out;
}

// a and b the same expression once every variable of b that `ren` maps is read as its image
// (the two sides of a Gram matrix: `X[s, f] - mu[f]` and `X[s, g] - mu[g]` with g -> f). The
// fields of structurally_equal, with a renamed variable's name and slot left out.
bool same_renamed(const NodeRef& a, const NodeRef& b, const std::map<DefId, DefId>& ren) {
  if (a == b) return true;
  if (!a || !b) return false;
  auto it = b->def.valid() ? ren.find(b->def) : ren.end();
  const bool renamed = it != ren.end();
  if (a->kind != b->kind || a->def != (renamed ? it->second : b->def) || a->aux != b->aux || a->path != b->path ||
      a->ival != b->ival || a->flags != b->flags || a->dt != b->dt || a->kids.size() != b->kids.size() ||
      (!renamed && (a->name != b->name || a->slot != b->slot)) || std::memcmp(&a->fval, &b->fval, sizeof(double)) != 0)
    return false;
  for (size_t i = 0; i < a->kids.size(); ++i)
    if (!same_renamed(a->kids[i], b->kids[i], ren)) return false;
  return true;
}

}  // namespace

std::vector<const ContractionPlan*> Gen::plans_at(const NodeRef& loop) {
  std::vector<const ContractionPlan*> out;
  if (nest_busy_.count(loop->id)) return out;
  for (auto& [id, p] : unit->contractions)
    if (p->nest_root == loop->id && usable(*p)) out.push_back(p.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->c.reduce->id < b->c.reduce->id; });
  return out;
}

bool Gen::usable(const ContractionPlan& p) {
  for (auto& o : p.c.operands) {
    // A computed operand's reads are plain: each must be proven in bounds, and none may be a
    // fused producer or a windowed row.
    if (o.value)
      for (const NodeRef& x : operand_reads(o))
        if ((!is_proven(*unit, x) && !assumed(x)) || fusion.producers.count(ir::index_base(x)->def) ||
            buf_alias.count(def_key(ir::index_base(x)->def)) || x->has(ir::kWindowed))
          return false;
    const NodeRef& r = o.read;
    // A read the range analysis could not prove (explicit ranges in a generic function:
    // `C[i in 0..len(A), j in 0..len(B[0])] = sum[k in 0..len(B)](A[i, k] * B[k, j])`) is fine
    // when each axis is a plain variable: prepare() then checks at run time that every axis
    // holds its variable's range, and the checked loops run (and report E005) when one does not.
    if (!is_proven(*unit, r) && !assumed(r) && !o.gathered)
      for (DefId d : o.axes)
        if (!d.valid()) return false;
    if (fusion.producers.count(ir::index_base(r)->def) || buf_alias.count(def_key(ir::index_base(r)->def))) return false;
    // A windowed tensor keeps rows mod W: only a fixed row can be addressed as a block.
    if (r->has(ir::kWindowed) && o.axes[0].valid()) return false;
  }
  bool fails = false;
  ir::for_each_node(ir::lreduce_body(p.c.reduce), [&](const NodeRef& x) {
    if (x->kind != Kind::Binary || x->dt < 0 || !is_int(static_cast<DType>(x->dt))) return;
    auto op = static_cast<ir::BinOp>(x->ival);
    if (op == ir::BinOp::Div || op == ir::BinOp::Mod || op == ir::BinOp::Pow) fails = true;
  });
  if (fails || p.c.reduce->dt < 0 || !kernel_dtype(static_cast<DType>(p.c.reduce->dt))) return false;
  return true;
}

// Extent of a variable of the nest or of the contraction (its loop's upper bound; lower bounds
// are 0 in every plan).
Val Gen::extent_of(const ContractionPlan& p, const NodeRef& root, DefId d) {
  for (NodeRef cur = root; cur && cur->kind == Kind::LFor; cur = ir::lfor_body(cur))
    if (cur->def == d) {
      // Known before the run: the tile shape may depend on it (contract_tiled.cpp).
      Val v = index(ir::lfor_hi(cur));
      if (auto n = static_int(cx, *unit, ir::lfor_hi(cur))) {
        v.is_const = true;
        v.ival = *n;
      }
      return v;
    }
  for (const NodeRef& v : ir::lreduce_items(p.c.reduce))
    if (v->kind == Kind::LoopVar && v->def == d) return index(ir::loopvar_hi(v));
  unsupported("a contraction variable without a loop");
}

bool Gen::contracted_nest(const NodeRef& loop) {
  auto plans = plans_at(loop);
  if (plans.empty()) return false;
  // Run-time conditions of the fast version; sizes are evaluated here, before the nest.
  std::vector<std::string> conds;
  std::vector<Contract> cs;
  std::vector<const ContractionPlan*> ok;
  for (auto* p : plans) {
    Contract c = prepare(*p, loop);
    if (!c.ok) continue;
    for (auto& g : c.guards) conds.push_back(g);
    cs.push_back(std::move(c));
    ok.push_back(p);
  }
  plans = ok;
  if (plans.empty()) {
    nest_busy_.insert(loop->id);
    stmt(loop);
    nest_busy_.erase(loop->id);
    return true;
  }
  nest_busy_.insert(loop->id);
  std::string g = em.fresh("cg");
  em.line("const bool " + g + " = " + (conds.empty() ? "true" : join(conds, " && ")) + ";");
  em.open("if (" + g + ") {", true);
  bool all_whole = true;
  for (size_t i = 0; i < plans.size(); ++i) {
    // One tiled contraction whose nest only stores a value of it: the tiles store that value.
    tile_epilogue_ = plans.size() == 1 ? tile_epilogue(*plans[i], loop) : nullptr;
    emit_contraction(*plans[i], cs[i], loop);
    // A tiled contraction applies no factors itself: the loops evaluate the store exactly.
    all_whole = all_whole && (tile_epilogue_ || (plans[i]->whole && (plans[i]->kernel != ContractionKernel::Tiled ||
                                                                      (plans[i]->alpha.empty() && !plans[i]->divisor))));
    tile_epilogue_ = nullptr;
  }
  if (!all_whole || plans.size() != 1) stmt(loop);
  for (auto* p : plans) precomputed_.erase(p->c.reduce->id);
  em.close();
  bool saved = counting_;
  counting_ = false;
  em.open("if (!" + g + ") {", true);
  stmt(loop);
  em.close();
  counting_ = saved;
  nest_busy_.erase(loop->id);
  return true;
}

// Sizes, destination and run-time conditions of one contraction.
Gen::Contract Gen::prepare(const ContractionPlan& p, const NodeRef& root) {
  Contract c;
  DType dt = static_cast<DType>(p.c.reduce->dt);
  c.dt = dt;
  int level = 0;  // where every size exists
  for (DefId d : p.c.free) c.ext[def_key(d)] = extent_of(p, root, d);
  for (DefId d : p.c.summed) {
    c.ext[def_key(d)] = extent_of(p, root, d);
    if (int64_t lo = p.c.lo_of(d)) {
      c.ext[def_key(d)].c = "(" + c.ext[def_key(d)].c + " - " + std::to_string(lo) + "LL)";
      c.ext[def_key(d)].is_const = false;
      c.lo[def_key(d)] = lo;
      c.guards.push_back("(" + c.ext[def_key(d)].c + " > 0)");  // an empty or reversed sum: the loops
    }
  }
  for (auto& [key, v] : c.ext) level = std::max(level, v.level);
  c.sizes_at_entry = level == 0;
  for (auto& o : p.c.operands) {
    c.bufs.push_back(buffer_of(ir::index_base(o.read)));
    note_read(c.bufs.back(), o.read);  // block offsets address a windowed operand modulo its window
  }
  auto ext = [&](DefId d) { return c.ext[def_key(d)].c; };
  // Gathered operands: a packed copy over their variables, allocated once at entry when it pays:
  // each value it holds takes part in 16 or more multiply-adds (else the pointer stays null and
  // the plain nest runs).
  c.packs.resize(p.c.operands.size());
  std::vector<std::string> all;
  for (auto& [key, v] : c.ext) all.push_back(v.c);
  for (size_t i = 0; i < p.c.operands.size(); ++i) {
    const ContractionOperand& o = p.c.operands[i];
    if (!o.gathered || p.kernel == ContractionKernel::Partial) continue;  // columns read it in place
    if (!c.sizes_at_entry) {
      c.ok = false;
      return c;
    }
    Dest& pk = c.packs[i];
    pk.axes = o.axes;
    std::vector<std::string> exts;
    for (DefId d : o.axes) exts.push_back(ext(d));
    for (size_t a = 0; a < exts.size(); ++a)
      pk.strides.push_back(prod(std::vector<std::string>(exts.begin() + static_cast<long>(a) + 1, exts.end())));
    // The same values as an earlier operand's copy, axis for axis (a Gram matrix `Xcᵀ Xc` of a
    // computed operand): one copy serves both sides, and emit_blas can call syrk.
    for (size_t j = 0; j < i && pk.same_as < 0; ++j) {
      const ContractionOperand& q = p.c.operands[j];
      const Dest& qk = c.packs[j];
      if (qk.base.empty() || qk.same_as >= 0 || q.axes.size() != o.axes.size() || !q.value != !o.value) continue;
      std::map<DefId, DefId> ren;
      bool fits = true;
      for (size_t a = 0; a < o.axes.size() && fits; ++a) {
        const std::string ka = def_key(o.axes[a]), kb = def_key(q.axes[a]);
        fits = c.ext.at(ka).c == c.ext.at(kb).c && c.lo.count(ka) == c.lo.count(kb) &&
               (!c.lo.count(ka) || c.lo.at(ka) == c.lo.at(kb));
        if (o.axes[a] != q.axes[a]) ren[o.axes[a]] = q.axes[a];
      }
      if (fits && same_renamed(q.value ? q.value : q.read, o.value ? o.value : o.read, ren)) {
        pk.base = qk.base;
        pk.strides = qk.strides;
        pk.same_as = static_cast<int>(j);
      }
    }
    if (pk.same_as >= 0) continue;
    std::string key = "gather|" + std::to_string(p.c.reduce->id) + "|" + std::to_string(i);
    auto hit = scratch_.find(key);
    if (hit != scratch_.end()) {
      pk.base = hit->second;
    } else {
      pk.base = em.fresh("gp");
      scratch_[key] = pk.base;
      Emitter::Detour d(em, 0);
      std::string worth = em.fresh("gw");
      em.line("const bool " + worth + " = " + prod(all) + " >= ein_imul(16LL, " + prod(exts) + ");");
      std::string T = ctype(dt);
      std::string bytes = "ein_smul(" + prod(exts) + ", " + std::to_string(dtype_storage_bytes(dt)) + "LL)";
      em.line(T + "* " + pk.base + " = " + worth + " ? (" + T + "*)A->rt->alloc(A->rt_ctx, " + bytes + ") : nullptr;");
      em.line("if (" + worth + " && !" + pk.base + ") { ein_fail(A, " + std::to_string(site(p.c.reduce->span)) +
              ", EIN_E_NOMEM, 0, " + bytes + ", 0, 0); return A->err->code; }");
    }
  }
  // The steps' intermediates are allocated once, at entry.
  if ((p.kernel == ContractionKernel::Factorised || p.kernel == ContractionKernel::Partial) && !c.sizes_at_entry) {
    c.ok = false;
    return c;
  }
  // Under a branch the contraction also runs at points the branch skips, whose reads the range
  // analysis may not have checked, and a read it could not prove may be out of bounds: every
  // such operand axis must hold its variable's whole range.
  for (size_t i = 0; i < p.c.operands.size(); ++i) {
    const ContractionOperand& o = p.c.operands[i];
    if (!p.guarded && (is_proven(*unit, o.read) || assumed(o.read))) continue;
    if (o.value) {  // (usable() wants each of its reads proven; under a branch it is not safe)
      c.ok = false;
      return c;
    }
    if (o.gathered) {
      gathered_bounds(o, c, static_cast<int>(i));
      continue;
    }
    for (size_t a = 0; a < o.axes.size(); ++a) {
      if (!o.axes[a].valid()) {
        c.ok = false;
        return c;
      }
      c.guards.push_back("(" + ext(o.axes[a]) + " <= " + extent(c.bufs[i], static_cast<int>(a)) + ")");
    }
  }
  // Destination: the clause's tensor (store order), or scratch over the free variables.
  c.dest.axes = p.dest;
  if (p.in_place) {
    c.dest.base = "b" + std::to_string(out_buf);
    for (size_t a = 0; a < p.dest.size(); ++a)
      c.dest.strides.push_back(a + 1 == p.dest.size() ? "1LL" : stride(out_buf, static_cast<int>(a)));
    // The nest's loops write [0, hi) of every axis: they fit the allocation by construction.
    for (size_t a = 0; a < p.dest.size(); ++a)
      c.guards.push_back("(" + ext(p.dest[a]) + " <= " + extent(out_buf, static_cast<int>(a)) + ")");
  } else {
    std::vector<std::string> exts;
    for (DefId d : p.dest) exts.push_back(ext(d));
    if (!c.sizes_at_entry) {  // scratch is allocated once, at entry
      c.ok = false;
      return c;
    }
    c.dest.base = scratch_once("dest|" + std::to_string(p.c.reduce->id), "sc", dt, prod(exts), p.c.reduce->span);
    for (size_t a = 0; a < exts.size(); ++a) {
      std::vector<std::string> rest(exts.begin() + static_cast<long>(a) + 1, exts.end());
      c.dest.strides.push_back(prod(rest));
    }
  }
  if (p.kernel == ContractionKernel::Blas) {
    const GemmShape& g = p.gemm;
    std::vector<std::string> ms, ns, ks;
    for (DefId d : g.m) ms.push_back(ext(d));
    for (DefId d : g.n) ns.push_back(ext(d));
    for (DefId d : g.k) ks.push_back(ext(d));
    c.M = prod(ms);
    c.N = prod(ns);
    c.K = prod(ks);
    // Groups of several axes are one matrix dimension only when the inner axes are whole.
    auto whole_groups = [&](const std::vector<DefId>& axes, int buf, const std::vector<std::vector<DefId>*>& groups) {
      for (auto* grp : groups)
        for (size_t i = 1; i < grp->size(); ++i)
          for (size_t a = 0; a < axes.size(); ++a)
            if (axes[a] == (*grp)[i])
              c.guards.push_back("(" + ext((*grp)[i]) + " == " +
                                 (buf >= 0 ? extent(buf, static_cast<int>(a)) : ext((*grp)[i])) + ")");
    };
    std::vector<DefId> gm = g.m, gn = g.n, gk = g.k;
    // (A packed copy has exactly the variables' extents.)
    auto buf_or_pack = [&](int i) {
      return c.packs[static_cast<size_t>(i)].base.empty() ? c.bufs[static_cast<size_t>(i)] : -1;
    };
    whole_groups(p.c.operands[static_cast<size_t>(g.a)].axes, buf_or_pack(g.a), {&gm, &gk});
    whole_groups(p.c.operands[static_cast<size_t>(g.b)].axes, buf_or_pack(g.b), {&gk, &gn});
    if (p.in_place) whole_groups(p.dest, out_buf, {&gm, &gn});
    c.guards.push_back("(" + c.M + " > 0) && (" + c.N + " > 0) && (" + c.K + " > 0)");
    // Below a few thousand multiply-adds a BLAS call costs more than the loops.
    c.guards.push_back("(ein_imul(ein_imul(" + c.M + ", " + c.N + "), " + c.K + ") >= 4096LL)");
    for (auto& pk : c.packs)
      if (!pk.base.empty() && pk.same_as < 0) c.guards.push_back("(" + pk.base + " != 0)");
  } else {
    std::vector<std::string> ks;
    for (DefId d : p.c.summed) ks.push_back(ext(d));
    c.K = prod(ks);
    // An integer max/min over an empty range is E006: the plain loops report it.
    if (is_int(dt) && p.c.op != ir::ReduceOp::Sum) c.guards.push_back("(" + c.K + " > 0)");
  }
  return c;
}

void Gen::alloc_scratch(const std::string& name, DType dt, const std::string& count, Span span) {
  std::string T = ctype(dt);
  std::string bytes = "ein_smul(" + count + ", " + std::to_string(dtype_storage_bytes(dt)) + "LL)";
  em.line(T + "* " + name + " = (" + T + "*)A->rt->alloc(A->rt_ctx, " + bytes + ");");
  em.line("if (!" + name + ") { ein_fail(A, " + std::to_string(site(span)) + ", EIN_E_NOMEM, 0, " + bytes +
          ", 0, 0); return A->err->code; }");
}

std::string Gen::scratch_once(const std::string& key, const std::string& hint, DType dt, const std::string& count,
                              Span span) {
  auto hit = scratch_.find(key);
  if (hit != scratch_.end()) return hit->second;
  std::string name = em.fresh(hint.c_str());
  scratch_[key] = name;
  Emitter::Detour d(em, 0);
  alloc_scratch(name, dt, count, span);
  return name;
}

std::string Gen::open_bound_loop(DefId d, const std::string& extent, const std::string& hint, const std::string& pragma) {
  std::string v = em.fresh(hint.c_str());
  em.open(pragma + "for (int64_t " + v + " = 0; " + v + " < " + extent + "; ++" + v + ") {", false);
  Val x{v, DType::I64, em.depth(), true};
  x.bits = kExtentBits;
  bind(d, x);
  return v;
}

// Offset of an operand's block at the current point: batch variables and fixed subscripts.
std::string Gen::block_offset(const ContractionOperand& o, int buf, const std::vector<DefId>& outer) {
  std::vector<std::string> xs;
  for (size_t a = 0; a < o.axes.size(); ++a) {
    DefId d = o.axes[a];
    if (!d.valid()) {
      xs.push_back(index(ir::index_args(o.read)[a]).c);
    } else if (std::find(outer.begin(), outer.end(), d) != outer.end()) {
      const Val* v = lookup(d);
      if (!v) unsupported("an unbound batch variable");
      xs.push_back(v->c);
    } else {
      xs.push_back("0LL");
    }
  }
  return flat(buf, xs, o.read->has(ir::kWindowed));
}

std::string Gen::axis_stride(int buf, int axis) {
  return axis + 1 == k.bufs[static_cast<size_t>(buf)].rank ? "1LL" : stride(buf, axis);
}

void Gen::emit_contraction(const ContractionPlan& p, const Contract& c, const NodeRef& root) {
  if (p.kernel == ContractionKernel::Blas) emit_blas(p, c);
  else if (p.kernel == ContractionKernel::Factorised) emit_factorised(p, c);
  else if (p.kernel == ContractionKernel::Partial) emit_partial(p, c);
  else emit_tiled(p, c);
  precomputed_[p.c.reduce->id] = c.dest;
  (void)root;
}

// The load sits in the scope of the deepest nest variable it is indexed by (inside the nest, so
// after the partial was computed; not above a branch):
// a value read by a reduction hoisted out of the inner loops (a recurrence step's sum of exps
// reading the row max planned as a partial) keeps that reduction hoistable.
Val Gen::load_precomputed(const NodeRef& r, const Dest& d) {
  std::string idx;
  int level = 0;
  for (size_t a = 0; a < d.axes.size(); ++a) {
    const Val* v = lookup(d.axes[a]);
    if (!v) unsupported("a contraction read outside its nest");
    level = std::max(level, v->level);
    idx += (idx.empty() ? "" : " + ") + (d.strides[a] == "1LL" ? v->c : "ein_imul(" + v->c + ", " + d.strides[a] + ")");
  }
  DType dt = static_cast<DType>(r->dt);
  // Without nest variables there is no scope known to follow the partial's computation: here.
  if (d.axes.empty()) level = em.depth();
  if (assume_) level = std::max(level, assume_level_);
  return em.define(dt, ctype(dt), d.base + "[" + (idx.empty() ? "0" : idx) + "]", level, Motion::Costly);
}

Val Gen::alpha_of(const ContractionPlan& p, DType dt, bool with_store_factors) {
  const std::string T = ctype(dt);
  Val a = literal(dt == DType::F32 ? "1.0f" : "1.0", dt);
  auto mul = [&](const NodeRef& f, const char* op) {
    Val v = convert(value(f), dt);
    a = em.define(dt, T, "(" + a.c + " " + op + " " + v.c + ")", std::max(a.level, v.level), Motion::Cheap);
  };
  for (auto& s : p.c.scalars) mul(s, "*");
  if (with_store_factors) {
    for (auto& s : p.alpha) mul(s, "*");
    if (p.divisor) mul(p.divisor, "/");
  }
  return a;
}

void Gen::emit_blas(const ContractionPlan& p, const Contract& c) {
  const GemmShape& g = p.gemm;
  const ContractionOperand& A = p.c.operands[static_cast<size_t>(g.a)];
  const ContractionOperand& B = p.c.operands[static_cast<size_t>(g.b)];
  int ba = c.bufs[static_cast<size_t>(g.a)], bb = c.bufs[static_cast<size_t>(g.b)];
  const std::string f = c.dt == DType::F32 ? "s" : "d";
  for (size_t i = 0; i < p.c.operands.size(); ++i)
    if (!c.packs[i].base.empty() && c.packs[i].same_as < 0) emit_gather(p.c.operands[i], c, c.packs[i]);
  Val alpha = alpha_of(p, c.dt, p.whole);
  k.accesses += 2;
  // Batch points: one flat loop over all of them, split into the batch variables. Small calls
  // (OpenBLAS's own threading costs more than it gains below ~128³ multiply-adds) or many of
  // them run in parallel over the batch, one BLAS thread per call; each writes its own block
  // of the destination.
  size_t m0 = mark();
  std::string bpar, bcond, bprev;
  if (!g.batch.empty()) {
    std::string nb = "1LL";
    for (DefId d : g.batch) nb = "ein_imul(" + nb + ", " + c.ext.at(def_key(d)).c + ")";
    std::string bn = em.fresh("nb");
    em.line("const int64_t " + bn + " = " + nb + ";");
    bool par = !in_parallel;
    if (par) {
      bcond = em.fresh("bp");
      em.line("const bool " + bcond + " = " + bn + " >= 2LL && (" + bn + " >= 16LL || ein_imul(ein_imul(" + c.M +
              ", " + c.N + "), " + c.K + ") < 2097152LL);");
      bprev = em.fresh("bth");
      em.line("const int " + bprev + " = " + bcond + " ? A->rt->blas_threads(1) : 0;");
      bpar = "#pragma omp parallel for schedule(dynamic, 1) if(" + bcond + ")\n";
    }
    std::string bt = em.fresh("bt");
    em.open(bpar + "for (int64_t " + bt + " = 0; " + bt + " < " + bn + "; ++" + bt + ") {", false);
    em.line(std::string("if (ein_stop(A, INT64_MAX)) ") + (par ? "continue;" : "break;"));
    std::string rest = em.fresh("br");
    em.line("int64_t " + rest + " = " + bt + ";");
    for (size_t i = g.batch.size(); i-- > 0;) {
      std::string v = em.fresh("bv");
      const std::string& e = c.ext.at(def_key(g.batch[i])).c;
      em.line("const int64_t " + v + " = " + rest + " % " + e + "; " + rest + " /= " + e + ";");
      Val x{v, DType::I64, em.depth(), true};
      x.bits = kExtentBits;
      bind(g.batch[i], x);
    }
  }
  const Dest& packA = c.packs[static_cast<size_t>(g.a)];
  const Dest& packB = c.packs[static_cast<size_t>(g.b)];
  // A packed copy's block at the batch point, and its axis strides.
  auto pack_offset = [&](const Dest& pk) {
    std::string off;
    for (size_t a = 0; a < pk.axes.size(); ++a)
      if (std::find(g.batch.begin(), g.batch.end(), pk.axes[a]) != g.batch.end())
        off += " + ein_imul(" + lookup(pk.axes[a])->c + ", " + pk.strides[a] + ")";
    return off;
  };
  std::string pa = packA.base.empty() ? "b" + std::to_string(ba) + " + " + block_offset(A, ba, g.batch)
                                      : packA.base + pack_offset(packA);
  std::string pb = packB.base.empty() ? "b" + std::to_string(bb) + " + " + block_offset(B, bb, g.batch)
                                      : packB.base + pack_offset(packB);
  auto sa = [&](int axis) {
    return packA.base.empty() ? axis_stride(ba, axis) : packA.strides[static_cast<size_t>(axis)];
  };
  auto sb = [&](int axis) {
    return packB.base.empty() ? axis_stride(bb, axis) : packB.strides[static_cast<size_t>(axis)];
  };
  std::string off;
  for (size_t a = 0; a < c.dest.axes.size(); ++a)
    if (std::find(g.batch.begin(), g.batch.end(), c.dest.axes[a]) != g.batch.end())
      off += " + ein_imul(" + lookup(c.dest.axes[a])->c + ", " + c.dest.strides[a] + ")";
  std::string pc = c.dest.base + off;
  auto pos = [](const ContractionOperand& o, const std::vector<DefId>& grp) { return o.axis_of(grp.back()); };
  auto dest_ld = [&](const std::vector<DefId>& grp) {
    for (size_t a = 0; a < c.dest.axes.size(); ++a)
      if (c.dest.axes[a] == grp.back()) return c.dest.strides[a];
    return std::string("1LL");
  };
  std::string call, what;
  if (!g.m.empty() && !g.n.empty()) {
    std::string lda = g.ta ? sa(pos(A, g.k)) : sa(pos(A, g.m));
    std::string ldb = g.tb ? sb(pos(B, g.n)) : sb(pos(B, g.k));
    call = "A->rt->" + f + "gemm(" + std::to_string(g.ta) + ", " + std::to_string(g.tb) + ", " + c.M + ", " + c.N + ", " + c.K +
           ", " + alpha.c + ", " + pa + ", " + lda + ", " + pb + ", " + ldb + ", 0, " + pc + ", " + dest_ld(g.m) + ")";
    what = f + "gemm";
    // One matrix against its own transpose (`sum[s](X[s, f] * X[s, g])`): a Gram matrix, half
    // the work as syrk. Decided at run time: the same block, leading dimension and size.
    // A shared packed copy (prepare) is such a matrix too.
    if (g.ta != g.tb && ((ba == bb && packA.base.empty() && packB.base.empty()) ||
                         (!packA.base.empty() && packA.base == packB.base))) {
      call = "(" + pa + " == " + pb + " && " + lda + " == " + ldb + " && " + c.M + " == " + c.N + ") ? A->rt->" + f +
             "syrk(" + std::to_string(g.ta) + ", " + c.M + ", " + c.K + ", " + alpha.c + ", " + pa + ", " + lda + ", " +
             pc + ", " + dest_ld(g.m) + ") : " + call;
      what += " (syrk when both sides are the same block)";
    }
  } else if (g.n.empty()) {  // y[m] = A(m, k) x(k)
    std::string lda = g.ta ? sa(pos(A, g.k)) : sa(pos(A, g.m));
    std::string rows = g.ta ? c.K : c.M, cols = g.ta ? c.M : c.K;
    call = "A->rt->" + f + "gemv(" + std::to_string(g.ta) + ", " + rows + ", " + cols + ", " + alpha.c + ", " + pa + ", " + lda +
           ", " + pb + ", 0, " + pc + ")";
    what = f + "gemv";
  } else {  // y[n] = x(k) B(k, n) = Bᵀ x
    std::string ldb = g.tb ? sb(pos(B, g.n)) : sb(pos(B, g.k));
    std::string rows = g.tb ? c.N : c.K, cols = g.tb ? c.K : c.N;
    call = "A->rt->" + f + "gemv(" + std::to_string(g.tb ? 0 : 1) + ", " + rows + ", " + cols + ", " + alpha.c + ", " + pb +
           ", " + ldb + ", " + pa + ", 0, " + pc + ")";
    what = f + "gemv";
  }
  em.line(call + ";");
  if (!g.batch.empty()) em.close();
  if (!bcond.empty()) em.line("if (" + bcond + ") A->rt->blas_threads(" + bprev + ");");
  unbind_to(m0);
  std::string kind = g.batch.empty() ? (g.m.empty() || g.n.empty() ? "gemv" : "gemm") : "batched-gemm";
  if (contraction_strategy_.empty()) contraction_strategy_ = kind;
  for (size_t i = 0; i < p.c.operands.size(); ++i)
    if (!c.packs[i].base.empty())
      k.plan.push_back(c.packs[i].same_as >= 0
                           ? "gather: operand " + std::to_string(i + 1) + " (" + ir::index_base(p.c.operands[i].read)->name +
                                 ") reads the packed copy of operand " + std::to_string(c.packs[i].same_as + 1) +
                                 " (the same values)"
                           : "gather: " + ir::index_base(p.c.operands[i].read)->name + " packed into " +
                                 std::to_string(c.packs[i].axes.size()) + "-axis scratch before the BLAS call");
  k.plan.push_back("BLAS: " + what + "(" + ir::index_base(A.read)->name + (g.ta ? "ᵀ" : "") + ", " + ir::index_base(B.read)->name +
                   (g.tb ? "ᵀ" : "") + ")" + (g.batch.empty() ? "" : " per batch point (in parallel, one BLAS thread each, when small or many)") +
                   (p.in_place ? " into the tensor" : " into scratch") +
                   (p.whole ? "" : ", then the loops read it") + " (loops when M·N·K < 4096)");
}

// The run-time bounds check of a gathered read (`X[n, c, oh * s0 + kh * d0, ..]` with explicit
// ranges or run-time strides): each subscript is affine in the read's variables (contraction.cpp
// affine_vars), so over the box [0, ext) its extremes are its value at 0 plus, per variable,
// the negative or positive part of the change from 0 to ext - 1. Both must be in the axis.
void Gen::gathered_bounds(const ContractionOperand& o, Contract& c, int i) {
  auto ext = [&](DefId d) { return c.ext[def_key(d)].c; };
  auto at = [&](DefId moved, const NodeRef& s) {
    size_t m = mark();
    for (DefId d : o.axes) {
      std::string lo = std::to_string(c.lo.count(def_key(d)) ? c.lo.at(def_key(d)) : 0) + "LL";
      Val v{d == moved ? "(" + ext(d) + " - 1 + " + lo + ")" : lo, DType::I64, 0, true};
      v.bits = kExtentBits;
      bind(d, v);
    }
    std::string out = index(s).c;
    unbind_to(m);
    return out;
  };
  const auto& subs = ir::index_args(o.read);
  for (size_t a = 0; a < subs.size(); ++a) {
    std::string f0 = at(DefId{}, subs[a]), lo = f0, hi = f0;
    for (DefId d : o.axes) {
      std::string delta = "((int64_t)" + at(d, subs[a]) + " - (int64_t)" + f0 + ")";
      lo += " + ein_imin(0, " + delta + ")";
      hi += " + ein_imax(0, " + delta + ")";
    }
    c.guards.push_back("(" + lo + " >= 0)");
    c.guards.push_back("(" + hi + " < " + extent(c.bufs[static_cast<size_t>(i)], static_cast<int>(a)) + ")");
  }
  for (DefId d : o.axes) c.guards.push_back("(" + ext(d) + " > 0)");
}

// Fills a gathered operand's packed copy: the read evaluated at every point of its variables
// (the values the nest would read; its bounds are proven or checked at entry like the nest's).
// Every point is its own element of the copy, so the outer loop runs on the thread team when
// the copy is large (a 3x3 convolution's im2col of 16 x 64 x 64 inputs: 590k gathered reads).
void Gen::emit_gather(const ContractionOperand& o, const Contract& c, const Dest& pk) {
  size_t m1 = mark();
  std::string idx;
  std::vector<std::string> exts;
  for (DefId d : pk.axes) exts.push_back(c.ext.at(def_key(d)).c);
  const bool team = !in_parallel && !pk.axes.empty();
  // On the team, a failing value (a checked division in a gathered expression) reports the
  // first outer index that fails, whichever thread meets it first.
  const std::string saved_ord = ord_;
  const bool saved_parallel = in_parallel;
  for (size_t a = 0; a < pk.axes.size(); ++a) {
    std::string v = em.fresh("gv");
    std::string pragma = team && a == 0 ? "#pragma omp parallel for schedule(static) if(" + prod(exts) +
                                              " >= " + std::to_string(parallel_threshold / 16) + "LL)\n"
                                        : "";
    em.open(pragma + "for (int64_t " + v + " = 0; " + v + " < " + c.ext.at(def_key(pk.axes[a])).c + "; ++" + v + ") {", false);
    if (a == 0) em.line(std::string("if (ein_stop(A, INT64_MAX)) ") + (team ? "continue;" : "break;"));
    if (a == 0 && team) {
      in_parallel = true;
      ord_ = v;
    }
    auto lo = c.lo.find(def_key(pk.axes[a]));
    Val x{lo == c.lo.end() ? v : "(" + v + " + " + std::to_string(lo->second) + "LL)", DType::I64, em.depth(), true};
    x.bits = kExtentBits;
    bind(pk.axes[a], x);
    idx += (idx.empty() ? "" : " + ") + (pk.strides[a] == "1LL" ? v : "ein_imul(" + v + ", " + pk.strides[a] + ")");
  }
  Val val = convert(value(o.value ? o.value : o.read), c.dt);
  em.line(pk.base + "[" + (idx.empty() ? "0" : idx) + "] = " + val.c + ";");
  for (size_t a = 0; a < pk.axes.size(); ++a) em.close();
  in_parallel = saved_parallel;
  ord_ = saved_ord;
  unbind_to(m1);
}

}  // namespace ein::codegen
