// The rewrite of the checkpoint pass (lang/passes/checkpoint.h): segmented or blocked reverse
// sweeps, built from what checkpoint.cpp found.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lang/ir/kid_families.h"
#include "lang/ir/reduce_op.h"
#include "lang/ir/visitor.h"
#include "lang/passes/checkpoint_impl.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/passes/storage_window.h"

namespace ein::ckpt {

NodeRef Checkpoint::seg_ref(DefId s) {
  NodeRef r = irb::ref("s", s);
  u_.types[r->id] = ir::t_i32();
  return r;
}

DefId Checkpoint::new_index(const std::string& name) {
  DefId d = cx_.resolver.new_def(name, DefKind::Index);
  u_.def_types[d] = ir::t_i32();
  return d;
}

NodeRef Checkpoint::new_tensor(const std::string& name, DefId d, DType dt,
                               std::vector<int64_t> shape, std::vector<NodeRef> stmts,
                               std::string aux) {
  std::vector<NodeRef> ex;
  for (auto x : shape) ex.push_back(irb::lit(x));
  std::vector<NodeRef> kids{ir::make({.kind = Kind::LShape, .kids = std::move(ex)})};
  for (auto& s : stmts) kids.push_back(s);
  NodeRef t = ir::make({.kind = Kind::LTensor,
                        .kids = std::move(kids),
                        .name = name,
                        .aux = std::move(aux),
                        .def = d,
                        .ival = static_cast<int64_t>(dt)});
  u_.types[t->id] = ir::t_array(ir::t_scalar(dt), static_cast<int>(shape.size()));
  u_.def_types[d] = u_.types[t->id];
  return t;
}

NodeRef Checkpoint::resumed(const NodeRef& t, std::vector<NodeRef> stmts) {
  std::vector<NodeRef> kids{ir::ltensor_shape(*t)};
  for (auto& s : stmts) kids.push_back(s);
  NodeRef r = ir::make({.kind = Kind::LTensor,
                        .span = t->span,
                        .kids = std::move(kids),
                        .name = t->name,
                        .def = t->def,
                        .ival = t->ival,
                        .flags = t->flags | ir::kResume});
  if (auto ty = type_of(t)) u_.types[r->id] = ty;
  return r;
}

NodeRef Checkpoint::loop(DefId v, const std::string& name, NodeRef lo, NodeRef hi, NodeRef body,
                         uint32_t flags) {
  return ir::make({.kind = Kind::LFor,
                   .span = span_,
                   .kids = {std::move(lo), std::move(hi), std::move(body)},
                   .name = name,
                   .def = v,
                   .flags = flags});
}

NodeRef Checkpoint::typed_index(DefId d, const std::string& name, std::vector<NodeRef> args,
                                DType dt) {
  std::vector<NodeRef> kids{irb::ref(name, d)};
  for (auto& x : args) kids.push_back(x);
  NodeRef n = ir::make({.kind = Kind::Index, .kids = std::move(kids)});
  u_.types[n->id] = ir::t_scalar(dt);
  return n;
}

NodeRef Checkpoint::copy_rows(DefId dst, const std::string& dname, std::vector<NodeRef> dst_pre,
                              DefId src, const std::string& sname, std::vector<NodeRef> src_pre,
                              const std::vector<int64_t>& ext, DType dt, int64_t n,
                              const std::function<NodeRef(const NodeRef&)>& dst_row,
                              const std::function<NodeRef(const NodeRef&)>& src_row) {
  DefId j = new_index("j");
  NodeRef jr = irb::ref("j", j);
  std::vector<DefId> xs;
  std::vector<NodeRef> di = dst_pre, si = src_pre;
  di.push_back(dst_row(jr));
  si.push_back(src_row(jr));
  for (size_t a = 1; a < ext.size(); ++a) {
    xs.push_back(new_index("x" + std::to_string(a)));
    di.push_back(irb::ref("x" + std::to_string(a), xs.back()));
    si.push_back(irb::ref("x" + std::to_string(a), xs.back()));
  }
  std::vector<NodeRef> sk{typed_index(src, sname, si, dt)};
  for (auto& x : di) sk.push_back(x);
  NodeRef body = ir::make({.kind = Kind::LStore, .kids = std::move(sk), .name = dname, .def = dst});
  for (size_t a = ext.size() - 1; a >= 1; --a)
    body = loop(xs[a - 1], "x" + std::to_string(a), irb::lit(0), irb::lit(ext[a]), body,
                ir::kSequential);
  return loop(j, "j", irb::lit(0), irb::lit(n), body, ir::kSequential);
}

NodeRef Checkpoint::renamed(const NodeRef& n, DefId from, DefId to, const std::string& name,
                            bool keep_constant_rows) {
  if (!n) return n;
  if (keep_constant_rows && reads_of(n, from) && ir::index_args(*n).size() >= 1 &&
      fold_int(cx_, u_, ir::index_args(*n)[0]))
    return n;
  std::vector<NodeRef> kids;
  for (auto& k : n->kids) kids.push_back(renamed(k, from, to, name, keep_constant_rows));
  NodeRef m = ir::with_kids(n, std::move(kids));
  if ((m->kind == Kind::Name && m->def == from) || (m->kind == Kind::LStore && m->def == from))
    return ir::edited(m, [&](ir::Node& x) {
      x.def = to;
      x.name = name;
    });
  return m;
}

// The segment length. sqrt(T Lc) makes the checkpoints and the segment buffer equal (least
// memory), but the reverse sweep walks each segment three times (recompute, adjoint steps, the
// reductions' terms): when a segment's rows of the buffer and the adjoint fit in the cache, those
// walks run at cache speed instead of the L3's (the 1000-wide f32 gradient: an 8 MiB segment ran
// its backward sweep at 1.37 s, 1 MiB segments at 0.84 s). So segments are shortened to fit
// kSegmentCache, unless that would make the checkpoints exceed a quarter of the budget.
int64_t Checkpoint::spacing(int64_t T, int64_t Lc, double row_p, double row_a,
                            double fixed_bytes) const {
  const double least_memory =
      std::round(std::sqrt(static_cast<double>(T) * static_cast<double>(Lc)));
  const double in_cache = std::floor((kSegmentCache - fixed_bytes) / (row_p + row_a));
  const double quarter = static_cast<double>(cx_.opt.ad_memory) / 4.0;
  const double fewest =
      std::ceil(static_cast<double>(T) * static_cast<double>(Lc) * row_p / quarter);
  double k = std::max(fewest, std::min(least_memory, in_cache));
  return static_cast<int64_t>(std::clamp(k, 1.0, static_cast<double>(T)));
}

bool Checkpoint::rewrite(size_t ip, size_t ia, const NodeRef& ploop, const NodeRef& aloop,
                         const std::vector<int64_t>& ext, const std::vector<int64_t>& aext,
                         int64_t T, int64_t b, int64_t L, int64_t La, int64_t alo, int64_t ahi,
                         int64_t e0, int64_t e1, const Range& a, int64_t end_min, int64_t low_max,
                         const Range& a_points, bool a_whole, const std::vector<Reduction>& reds) {
  const auto& st = u_.lowered->kids;
  // No P (ip is npos): the primal is not in this unit (try_adjoint), stored whole, sized as A.
  const NodeRef P = ip < ia ? st[ip] : nullptr, &A = st[ia];
  const std::string pname = P ? "`" + P->name + "`" : "its primal (defined outside this cell)";
  span_ = (P ? P : A)->span;
  const DType adt = static_cast<DType>(A->ival), pdt = P ? static_cast<DType>(P->ival) : adt;
  double row_p = dtype_storage_bytes(pdt), row_a = dtype_storage_bytes(adt);
  for (size_t x = 1; x < ext.size(); ++x) row_p *= static_cast<double>(ext[x]);
  for (size_t x = 1; x < aext.size(); ++x) row_a *= static_cast<double>(aext[x]);
  // The rows a segment starts from: the base rows for the first, L (at least) for the others.
  const int64_t Lc = b;
  const double full = static_cast<double>(T) * (row_p + row_a);
  int64_t k = cx_.opt.ad_checkpoint;
  const bool forced = k > 0;
  // Within the budget, storing is still the slower choice once the rows outgrow the cache: every
  // stored row is fresh memory, touched once forward and once back, while a segment recomputes in
  // cache (heat, 2000 steps x 1000 points: 29.6 ms stored, 3.5 ms checkpointed, 43 -> 12 MiB).
  // Then checkpoints are placed only when they save most of the memory (below a quarter): where
  // the adjoint is kept whole anyway (`@last / @u` reads every row) they would save little and
  // recompute a sequential chain (a 10^6-step scalar recurrence: 42 ms stored, 101 ms with).
  const bool over_budget = full > static_cast<double>(cx_.opt.ad_memory);
  if (!forced) {
    if (!over_budget && full <= 4 * kSegmentCache)
      return false;  // storing everything fits the cache
    if (!stored_only_)  // (a stored primal takes blocks below, whatever the spacing)
      k = spacing(T, Lc, row_p, row_a,
                  static_cast<double>((e1 - e0 + Lc)) * row_p + (a.any() ? a.hi : 0) * row_a);
  }
  k = std::clamp<int64_t>(k, 1, T);
  int64_t S = (T + k - 1) / k;
  const int64_t Wp = std::max({L + 1, Lc, T - end_min});
  const int64_t Wb = std::min(T, k + e1 - e0 + Lc);
  auto adjoint_window = [&](int64_t seg) -> int64_t {
    if (a_whole) return 0;
    auto lowest = backward_rows_down_to(cx_, u_, A);
    if (!lowest || (a_points.any() && a_points.lo < *lowest)) return 0;
    int64_t w = std::max({La + 1, seg + (a.any() ? a.hi : 0),
                          a_points.any() ? a_points.hi - *lowest + 1 : int64_t{1}});
    return w >= T ? 0 : w;
  };
  int64_t Wa = adjoint_window(k);
  const double pred = static_cast<double>(S * Lc) * row_p +
                      static_cast<double>(Wp < T ? Wp : T) * row_p +
                      static_cast<double>(Wb) * row_p + static_cast<double>(Wa ? Wa : T) * row_a;
  // Checkpoints that would save little are not placed, but a sweep whose rows outgrow the cache
  // still runs in blocks when reductions read it (`@last / @w` beside `@last / @u`): each block
  // of the adjoint's steps is followed by its terms of the reductions while the block's rows of
  // P and A are in cache, instead of one more pass over all of them from memory afterwards
  // (the 10^6-step scalar recurrence: the `@last / @w` pass was a third of its gradient).
  // A session cell's state stays whole (a later cell may read any row of it): only the blocks.
  bool blocked = false;
  if (stored_only_ || (!forced && (pred >= full || (!over_budget && 4 * pred > full)))) {
    if (reds.empty() || full <= 4 * kSegmentCache) return false;
    blocked = true;
    k = std::clamp<int64_t>(static_cast<int64_t>(kBlockCache / (row_p + row_a)), 1, T);
    S = (T + k - 1) / k;
    Wa = adjoint_window(k);
  } else if (low_max >= std::min(T, k + e1)) {
    return false;  // A's last rows read P rows the buffer no longer has
  }

  auto row_start = [&](const NodeRef& s, int64_t plus) {  // max(b, (s + plus) k + e0)
    return irb::imax(irb::lit(b), irb::add(irb::mul(s, k), irb::lit(plus * k + e0)));
  };
  std::vector<NodeRef> base;
  NodeRef P_alloc;
  if (!blocked) {
    for (auto& x : ir::ltensor_stmts(*P))
      if (x != ploop) base.push_back(x);
    std::vector<NodeRef> pk{ir::ltensor_shape(*P)};
    pk.insert(pk.end(), base.begin(), base.end());
    P_alloc = ir::with_kids(P, pk);
  }
  auto size = [](double bytes) {
    char buf[32];
    if (bytes < 1048576.0)
      std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
    else
      std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    return std::string(buf);
  };
  const std::string mib = size(pred) + " (storing every step: " + size(full) + ")";
  std::string plan =
      blocked
          ? "the reverse sweep of `" + A->name + "` runs in blocks of " + std::to_string(k) +
                " steps (" + std::to_string(S) + "), each followed by its terms of " +
                std::to_string(reds.size()) + " reduction(s) while its rows are in cache; " +
                pname + " stored whole (" +
                (!P ? std::string("nothing to recompute")
                 : stored_only_
                     ? "a later cell may read any row"
                     : "checkpoints would save little: " + size(pred) + " against " + size(full)) +
                ")"
          : "checkpoints of `" + P->name + "` every " + std::to_string(k) + " steps (" +
                std::to_string(S) + " x " + std::to_string(Lc) + " rows" +
                (forced ? ", spacing forced by EIN_AD_CHECKPOINT" : "") +
                "); the reverse sweep of `" + A->name + "` recomputes each segment into `" +
                P->name + "_seg` (window " + std::to_string(Wb) + "), `" + A->name + "` " +
                (Wa ? "window " + std::to_string(Wa) : std::string("whole")) + ", `" + P->name +
                "` " + (Wp < T ? "window " + std::to_string(Wp) : std::string("whole")) +
                "; predicted memory " + mib + ", recomputation " + std::to_string(T - b) + " steps";
  std::vector<NodeRef> out(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(P ? ip : 0));
  DefId ck;
  std::string ck_name;
  if (blocked) {
    if (P) out.push_back(P);
  } else {
    ck = cx_.resolver.new_def(P->name + "_ckpt", DefKind::Local);
    std::vector<int64_t> ckshape{S, Lc};
    ckshape.insert(ckshape.end(), ext.begin() + 1, ext.end());
    // Every segment's capture writes its rows (all of them) before the reverse sweep reads one.
    NodeRef CK = ir::edited(new_tensor(P->name + "_ckpt", ck, pdt, ckshape, {}, plan),
                            [](ir::Node& x) { x.flags |= ir::kFilledLater; });

    // Forward: checkpoint the rows segment s starts from, then run its steps.
    DefId sf = new_index("s");
    NodeRef sfr = seg_ref(sf);
    NodeRef capture = copy_rows(
        ck, CK->name, {sfr}, P->def, P->name, {}, ext, pdt, Lc, [](const NodeRef& j) { return j; },
        [&](const NodeRef& j) { return irb::add(irb::add(row_start(sfr, 0), irb::lit(-Lc)), j); });
    NodeRef fstep =
        loop(ploop->def, ploop->name, row_start(sfr, 0), irb::imin(irb::lit(T), row_start(sfr, 1)),
             ir::lfor_body(*ploop), ploop->flags);
    NodeRef fwd = loop(
        sf, "s", irb::lit(0), irb::lit(S),
        ir::make({.kind = Kind::LSeq, .kids = {resumed(CK, {capture}), resumed(P_alloc, {fstep})}}),
        ir::kSequential);
    out.insert(out.end(), {P_alloc, CK, fwd});
    ck_name = CK->name;
    const int64_t last_start = std::max(b, S * k + e0);
    if (last_start < T)
      out.push_back(resumed(P_alloc, {loop(ploop->def, ploop->name, irb::lit(last_start),
                                           irb::lit(T), ir::lfor_body(*ploop), ploop->flags)}));
  }
  if (P)
    out.insert(out.end(), st.begin() + static_cast<std::ptrdiff_t>(ip) + 1,
               st.begin() + static_cast<std::ptrdiff_t>(ia));
  else
    out.insert(out.end(), st.begin(), st.begin() + static_cast<std::ptrdiff_t>(ia));

  // Backward: per segment from the last, recompute P's rows, run A's steps, add the terms.
  std::vector<NodeRef> ak{ir::ltensor_shape(*A)}, after;
  bool seen = false;
  for (auto& x : ir::ltensor_stmts(*A)) {
    if (x == aloop)
      seen = true;
    else if (seen)
      after.push_back(x);
    else
      ak.push_back(x);
  }
  NodeRef A_alloc = ir::with_kids(A, ak);
  if (blocked) A_alloc = ir::edited(A_alloc, [&](ir::Node& x) { x.aux = plan; });
  // The segment's rows of P: recomputed into P.seg, or P itself when it is stored whole.
  // (Blocked: nothing is renamed.)
  DefId bd = blocked ? DefId{} : cx_.resolver.new_def(P->name + "_seg", DefKind::Local);
  NodeRef B = blocked ? nullptr : new_tensor(P->name + "_seg", bd, pdt, ext, {});
  auto to_seg = [&](const NodeRef& n, bool keep_constant_rows = false) {
    return blocked ? n : renamed(n, P->def, bd, B->name, keep_constant_rows);
  };
  for (auto& x : after) x = to_seg(x);
  DefId sb = new_index("s");
  NodeRef sbr = seg_ref(sb);
  NodeRef seg_lo = irb::mul(sbr, k), seg_hi = irb::add(irb::mul(sbr, k), irb::lit(k));
  NodeRef astep =
      loop(aloop->def, aloop->name, irb::imax(irb::lit(alo), seg_lo),
           irb::imin(irb::lit(ahi), seg_hi), to_seg(ir::lfor_body(*aloop), true), aloop->flags);
  std::vector<NodeRef> seg, allocs{A_alloc};
  if (!blocked) {
    NodeRef preload = copy_rows(
        bd, B->name, {}, ck, ck_name, {sbr}, ext, pdt, Lc,
        [&](const NodeRef& j) { return irb::add(irb::add(row_start(sbr, 0), irb::lit(-Lc)), j); },
        [](const NodeRef& j) { return j; });
    NodeRef recompute = loop(ploop->def, ploop->name, row_start(sbr, 0),
                             irb::imin(irb::lit(T), irb::add(irb::mul(sbr, k), irb::lit(k + e1))),
                             to_seg(ir::lfor_body(*ploop)), ploop->flags);
    seg.push_back(resumed(B, {preload, recompute}));
    allocs.push_back(B);
  }
  seg.push_back(resumed(A_alloc, {astep}));
  std::unordered_map<size_t, NodeRef> finals;
  auto segment_terms = [&](const Reduction& r) {  // its terms of segment s only, reading P.seg
    return ir::edited(to_seg(r.red), [&](ir::Node& x) {
      for (auto& item : x.kids)
        if (item->kind == Kind::LoopVar && item->def == r.t)
          item = ir::edited(item, [&](ir::Node& v) {
            v.kids = {irb::imax(irb::lit(r.lo), seg_lo), irb::imin(irb::lit(r.hi), seg_hi)};
          });
    });
  };
  for (auto& r : reds) {
    auto rt = type_of(r.red);
    if (!rt || !ir::is_scalar(rt) || !is_float(rt->dtype)) return false;
    if (r.clause) {
      // A tensor of sums: allocated (zero) before the sweep; each segment adds its terms.
      const NodeRef& R = st[r.stmt];
      std::vector<NodeRef> rk{ir::ltensor_shape(*R)};
      for (auto& x : ir::ltensor_stmts(*R))
        if (x->kind == Kind::LCheck) rk.push_back(x);
      NodeRef R_alloc = ir::with_kids(R, rk);
      allocs.push_back(R_alloc);
      NodeRef store = innermost(r.clause);
      NodeRef terms = segment_terms(r);
      std::vector<NodeRef> at;
      for (auto& x : ir::lstore_index(*store)) at.push_back(x);
      NodeRef sum = ir::make({.kind = Kind::Binary,
                              .span = r.red->span,
                              .kids = {typed_index(R->def, R->name, at, rt->dtype), terms},
                              .ival = static_cast<int64_t>(ir::BinOp::Add)});
      u_.types[sum->id] = rt;
      std::function<NodeRef(const NodeRef&)> with_sum = [&](const NodeRef& n) -> NodeRef {
        // The clause is loops (summed_clause checked it) down to the store.
        if (n == store) return ir::with_kids(n, ir::kid_list(sum, ir::lstore_index(n)));
        return ir::with_kids(n, {ir::lfor_lo(n), ir::lfor_hi(n), with_sum(ir::lfor_body(n))});
      };
      seg.push_back(resumed(R_alloc, {with_sum(r.clause)}));
      finals[r.stmt] = nullptr;
      continue;
    }
    const NodeRef& let = st[r.stmt];
    const NodeRef& red = r.red;
    std::string name = ir::let_pattern(*let)->name + "_part";
    DefId pd = cx_.resolver.new_def(name, DefKind::Local);
    NodeRef R = new_tensor(name, pd, rt->dtype, {S}, {});
    allocs.push_back(R);
    NodeRef part = segment_terms(r);
    seg.push_back(resumed(
        R, {ir::make({.kind = Kind::LStore, .kids = {part, sbr}, .name = name, .def = pd})}));
    DefId s2 = new_index("s");
    NodeRef total = ir::make({.kind = Kind::LReduce,
                              .span = red->span,
                              .kids = {typed_index(pd, name, {seg_ref(s2)}, rt->dtype),
                                       ir::make({.kind = Kind::LoopVar,
                                                 .kids = {irb::lit(0), irb::lit(S)},
                                                 .name = "s",
                                                 .def = s2})},
                              .name = "sum"});
    u_.types[total->id] = rt;
    finals[r.stmt] = ir::with_kids(let, {ir::let_pattern(let), ir::let_type(let), total});
  }
  out.insert(out.end(), allocs.begin(), allocs.end());
  out.push_back(loop(sb, "s", irb::lit(0), irb::lit(S), ir::make({.kind = Kind::LSeq, .kids = seg}),
                     ir::kSequential | ir::kReverse));
  if (!after.empty()) out.push_back(resumed(A_alloc, after));
  for (size_t j = ia + 1; j < st.size(); ++j) {
    if (!finals.count(j))
      out.push_back(st[j]);
    else if (finals[j])
      out.push_back(finals[j]);  // a tensor of sums was allocated before the sweep
  }

  windows_.clear();
  if (!blocked && Wp < T) windows_[P->def] = Wp;
  if (!blocked) windows_[bd] = Wb;
  if (Wa) windows_[A->def] = Wa;
  u_.lowered = apply_windows(ir::with_kids(u_.lowered, std::move(out)));
  return true;
}

NodeRef Checkpoint::apply_windows(const NodeRef& n) {
  if (!n) return n;
  std::vector<NodeRef> kids;
  for (auto& k : n->kids) kids.push_back(apply_windows(k));
  NodeRef m = ir::with_kids(n, std::move(kids));
  auto w = windows_.end();
  if (m->kind == Kind::LTensor || m->kind == Kind::LStore) w = windows_.find(m->def);
  if (m->kind == Kind::Index && ir::index_base(*m)->kind == Kind::Name)
    w = windows_.find(ir::index_base(*m)->def);
  if (w == windows_.end()) return m;
  int64_t W = w->second;
  if (m->kind == Kind::LTensor) return ir::with_window(m, W);
  return ir::edited(m, [](ir::Node& x) { x.flags |= ir::kWindowed; });
}

}  // namespace ein::ckpt
