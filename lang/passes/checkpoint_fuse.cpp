// Time loops run together (lang/passes/checkpoint.h): a recurrence Q that reads a primal
// recurrence P only at its current and earlier rows — the forward tangent autodiff writes for a
// scalar parameter (ad_request.cpp `tangent_first`) — runs in the same loop as P, so P keeps a
// window instead of every row.
#include <algorithm>
#include <cstdio>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/checkpoint_impl.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/passes/storage_window.h"

namespace ein::ckpt {

bool Checkpoint::rows_below(const NodeRef& t, const NodeRef& tloop, int64_t b) {
  bool ok = true;
  for (auto& k : ir::ltensor_stmts(*t)) {
    if (k == tloop) continue;
    ir::for_each_node(k, [&](const NodeRef& x) {
      if (x->kind != Kind::LStore || x->def != t->def) return;
      auto r = fold_int(cx_, u_, ir::lstore_index(*x)[0]);
      ok = ok && r && *r >= 0 && *r < b;
    });
  }
  return ok;
}

// Q: a later forward recurrence over the same steps [b, T) reading P only at rows t + c,
// c <= 0, inside its loop (and at base rows before it), nothing defined after P, and not read by
// P. Returns the lowest c (0 when Q's loop reads P at its current row only).
std::optional<int64_t> Checkpoint::beside(size_t ip, size_t iq, int64_t b, int64_t T,
                                          const std::unordered_map<DefId, size_t>& defined_at) {
  const auto& st = u_.lowered->kids;
  const NodeRef &P = st[ip], &Q = st[iq];
  if (!Q || Q->kind != Kind::LTensor || Q->has(ir::kResume) || Q->has(ir::kHasElem) ||
      Q->has(ir::kReverse) || !movable(Q->def) || !names_def(Q, P->def))
    return std::nullopt;
  int64_t Lq = 0;
  NodeRef qloop = time_loop(Q, false, &Lq);
  auto qext = extents(Q);
  if (!qloop || !qext || (*qext)[0] != T || ir::ltensor_stmts(*Q).back() != qloop) return std::nullopt;
  auto lo = fold_int(cx_, u_, ir::lfor_lo(*qloop)), hi = fold_int(cx_, u_, ir::lfor_hi(*qloop));
  if (!lo || !hi || *lo != b || *hi != T || !rows_below(Q, qloop, b)) return std::nullopt;
  int64_t cmin = 0;
  bool ok = true;
  auto vars = time_vars(qloop);
  for (auto& k : ir::ltensor_stmts(*Q))
    ok = ok && scan(k, P->def, [&](const NodeRef& row) {
           if (k != qloop) {  // before the loop: P's base rows only
             auto r = fold_int(cx_, u_, row);
             return r && *r >= 0 && *r < b;
           }
           auto o = offset_of(row, vars);
           if (!o || *o > 0 || b + *o < 0) return false;
           cmin = std::min(cmin, *o);
           return true;
         });
  // Everything Q reads exists where P is: Q's statements move up to it.
  ir::for_each_node(Q, [&](const NodeRef& x) {
    if ((x->kind != Kind::Name && x->kind != Kind::Path) || x->def == P->def || x->def == Q->def)
      return;
    auto it = defined_at.find(x->def);
    ok = ok && (it == defined_at.end() || it->second < ip);
  });
  for (size_t j = ip + 1; j < iq && ok; ++j)
    ok = !(st[j] && st[j]->kind == Kind::LTensor && st[j]->has(ir::kResume));
  if (!ok) return std::nullopt;
  return cmin;
}

std::optional<Checkpoint::Primal> Checkpoint::primal_recurrence(const NodeRef& P) {
  Primal p;
  p.loop = time_loop(P, false, &p.L);
  auto ext = extents(P);
  if (!p.loop || !ext || p.L < 1 || ir::ltensor_stmts(*P).back() != p.loop) return std::nullopt;
  p.ext = *ext;
  p.T = p.ext[0];
  auto b = fold_int(cx_, u_, ir::lfor_lo(*p.loop)), hi = fold_int(cx_, u_, ir::lfor_hi(*p.loop));
  if (!b || !hi || *hi != p.T || *b < p.L || *b >= p.T || p.T > INT32_MAX / 2) return std::nullopt;
  p.b = *b;
  if (!rows_below(P, p.loop, p.b) || !writes_whole_rows(cx_, u_, p.loop, P->def, p.ext))
    return std::nullopt;
  return p;
}

std::unordered_map<DefId, size_t> Checkpoint::definitions() {
  const auto& st = u_.lowered->kids;
  std::unordered_map<DefId, size_t> at;
  for (size_t j = 0; j < st.size(); ++j) {
    if (!st[j]) continue;
    if (st[j]->kind == Kind::LTensor) at[st[j]->def] = j;  // the last: a resumed tensor is written there
    if (st[j]->kind == Kind::Let)
      ir::for_each_node(ir::let_pattern(*st[j]), [&](const NodeRef& p) {
        if (p->kind == Kind::PBind) at[p->def] = j;
      });
  }
  return at;
}

bool Checkpoint::try_fuse(size_t ip) {
  const auto& st = u_.lowered->kids;
  const NodeRef& P = st[ip];
  if (!P || P->kind != Kind::LTensor || P->has(ir::kResume) || P->has(ir::kWindowed) ||
      P->has(ir::kHasElem) || P->has(ir::kReverse) || !movable(P->def))
    return false;
  auto pr = primal_recurrence(P);
  if (!pr) return false;
  const NodeRef& ploop = pr->loop;
  const int64_t T = pr->T, L = pr->L;
  const std::unordered_map<DefId, size_t> defined_at = definitions();
  std::vector<size_t> qs;
  int64_t cmin = 0;
  for (size_t j = ip + 1; j < st.size(); ++j)
    if (auto c = beside(ip, j, pr->b, T, defined_at)) {
      qs.push_back(j);
      cmin = std::min(cmin, *c);
    }
  if (qs.empty()) return false;
  // Every other reader of P reads constant rows (after the loop: its last rows).
  int64_t end_min = T;
  for (size_t j = 0; j < st.size(); ++j) {
    if (j == ip || std::find(qs.begin(), qs.end(), j) != qs.end() || !st[j]) continue;
    if (st[j]->kind == Kind::LTensor && st[j]->def == P->def) return false;
    bool ok = scan(st[j], P->def, [&](const NodeRef& row) {
      auto r = fold_int(cx_, u_, row);
      if (r) end_min = std::min(end_min, *r);
      return r && *r >= 0 && *r < T;
    });
    if (!ok) return false;
  }
  for (auto& other : cx_.units)
    if (other.get() != &u_ && other->lowered && names_def(other->lowered, P->def)) return false;
  // Blocks of B steps (P's rows of a block in kBlockCache), the window a power of two (an index
  // modulo it is a mask).
  double row_p = dtype_storage_bytes(static_cast<DType>(P->ival));
  for (size_t x = 1; x < pr->ext.size(); ++x) row_p *= static_cast<double>(pr->ext[x]);
  const int64_t B0 = std::clamp<int64_t>(static_cast<int64_t>(kBlockCache / row_p), 1, T);
  int64_t W = 1;
  while (W < B0 - cmin) W *= 2;
  const int64_t B = std::max<int64_t>(1, W + cmin);
  W = std::max({W, L + 1, T - end_min});
  if (W >= T) return false;
  const int64_t S = (T - pr->b + B - 1) / B;

  span_ = P->span;
  std::vector<NodeRef> out(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(ip));
  auto alloc = [&](const NodeRef& t, const NodeRef& tloop, std::string aux) {
    std::vector<NodeRef> k{ir::ltensor_shape(*t)};
    for (auto& x : ir::ltensor_stmts(*t))
      if (x != tloop) k.push_back(x);
    return ir::edited(ir::with_kids(t, std::move(k)), [&](ir::Node& n) {
      if (!aux.empty()) n.aux = std::move(aux);
    });
  };
  std::string names;
  for (size_t q : qs) names += (names.empty() ? "`" : ", `") + st[q]->name + "`";
  std::string plan = names + " run(s) in the time loop of `" + P->name + "` (blocks of " +
                     std::to_string(B) + " steps): `" + P->name + "` window " + std::to_string(W) +
                     " instead of every step";
  DefId s = new_index("s");
  NodeRef sr = seg_ref(s);
  NodeRef lo = irb::add(irb::lit(pr->b), irb::mul(sr, B));
  NodeRef top = irb::imin(irb::lit(T), irb::add(irb::lit(pr->b + B), irb::mul(sr, B)));
  NodeRef P_alloc = alloc(P, ploop, plan);
  out.push_back(P_alloc);
  std::vector<NodeRef> body{resumed(P_alloc, {loop(ploop->def, ploop->name, lo, top,
                                                   ir::lfor_body(*ploop), ploop->flags)})};
  for (size_t q : qs) {
    const NodeRef& Q = st[q];
    int64_t Lq = 0;
    NodeRef qloop = time_loop(Q, false, &Lq);
    NodeRef Q_alloc = alloc(Q, qloop, "");
    out.push_back(Q_alloc);
    body.push_back(resumed(Q_alloc, {loop(qloop->def, qloop->name, lo, top, ir::lfor_body(*qloop),
                                          qloop->flags)}));
  }
  out.push_back(loop(s, "s", irb::lit(0), irb::lit(S), ir::make({.kind = Kind::LSeq, .kids = body}),
                     ir::kSequential));
  for (size_t j = ip + 1; j < st.size(); ++j)
    if (std::find(qs.begin(), qs.end(), j) == qs.end()) out.push_back(st[j]);
  windows_.clear();
  windows_[P->def] = W;
  u_.lowered = apply_windows(ir::with_kids(u_.lowered, std::move(out)));
  return true;
}

}  // namespace ein::ckpt
