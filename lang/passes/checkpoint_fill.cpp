// Which tensors need no zero fill (lang/passes/checkpoint.h, kFilledLater). A reused block of
// the allocator keeps its old bytes, and zeroing it costs as much as a pass of the kernel that
// fills it (the 10^6-step recurrence's gradient: 0.56 primals of memset for `h` and `d_h`, 8 MB
// each). The interpreter's own test (engine/interp/writes_whole.cpp `writes_every_point`) sees
// the clauses of one statement; here every statement writing the tensor counts: its base rows, its
// recurrence, and the later (resumed) statements of a checkpointed or blocked sweep, whose row
// ranges tile the rows over the segment loop. When the union of their points is the whole
// tensor the tensor is marked; when a few boxes are left (an adjoint's rows no step reaches,
// zero by construction, SPEC §5.4), explicit zero stores for them are added first and the
// tensor is marked too: one row zeroed instead of 8 MB.
#include <functional>

#include "lang/ir/visitor.h"
#include "lang/passes/box_cover.h"
#include "lang/passes/checkpoint_impl.h"
#include "lang/passes/int_fold.h"
#include "lang/passes/ir_build.h"

namespace ein::ckpt {
namespace {

struct Span1 {
  int64_t lo, hi;  // [lo, hi) of every value the variable takes
};

class Fill {
 public:
  Fill(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void run() {
    auto st = u_.lowered->kids;
    bool changed = false;
    for (size_t i = 0; i < st.size(); ++i) {
      const NodeRef& X = st[i];
      if (!X || X->kind != Kind::LTensor || X->has(ir::kResume) || X->has(ir::kHasElem) ||
          X->has(ir::kWindowed) || X->has(ir::kFilledLater))
        continue;
      if (NodeRef m = plan(st, i)) st[i] = m, changed = true;
    }
    if (changed) u_.lowered = ir::with_kids(u_.lowered, std::move(st));
  }

 private:
  // X with its missing points stored as zeros and kFilledLater, or null.
  NodeRef plan(const std::vector<NodeRef>& st, size_t i) {
    const NodeRef& X = st[i];
    const auto dt = static_cast<DType>(X->ival);
    if (!is_float(dt) && !is_int(dt)) return nullptr;
    std::vector<int64_t> ext;
    for (auto& e : ir::lshape_extents(*ir::ltensor_shape(*X))) {
      auto x = fold_int(cx_, u_, e);
      if (!x || *x <= 0) return nullptr;
      ext.push_back(*x);
    }
    // Below 64 KiB the fill costs less than a kernel's entry; the IR stays as written.
    double bytes = dtype_storage_bytes(dt);
    for (int64_t e : ext) bytes *= static_cast<double>(e);
    if (ext.empty() || bytes < 65536.0) return nullptr;
    x_ = X->def;
    rank_ = ext.size();
    boxes_.clear();
    ok_ = true;
    vars_.clear();
    for (const NodeRef& k : ir::ltensor_stmts(*X)) walk(k);
    for (size_t j = i + 1; j < st.size() && ok_; ++j) {
      if (st[j] && st[j]->kind == Kind::LTensor && st[j]->def == x_ && !st[j]->has(ir::kResume))
        break;  // defined again: what follows writes the new one
      vars_.clear();
      walk(st[j]);
    }
    if (!ok_) return nullptr;
    cover::Box full;
    for (int64_t e : ext) full.push_back({cover::constant(0), cover::constant(e)});
    std::vector<cover::Leaf> left = cover::uncovered(full, boxes_);
    // Zero stores for what is left, when that is a few boxes of known extent (else the fill).
    if (left.size() > 4) return nullptr;
    std::vector<NodeRef> zeros;
    for (auto& leaf : left) {
      std::vector<std::pair<int64_t, int64_t>> b;
      for (auto& iv : leaf.box) {
        if (!iv.lo.constant() || !iv.hi || !iv.hi->constant()) return nullptr;
        b.emplace_back(iv.lo.k, iv.hi->k);
      }
      zeros.push_back(zero_store(*X, dt, b));
    }
    std::vector<NodeRef> kids{ir::ltensor_shape(*X)};
    kids.insert(kids.end(), zeros.begin(), zeros.end());
    for (const NodeRef& k : ir::ltensor_stmts(*X)) kids.push_back(k);
    return ir::edited(ir::with_kids(X, std::move(kids)), [](ir::Node& n) { n.flags |= ir::kFilledLater; });
  }

  NodeRef zero_store(const ir::Node& X, DType dt, const std::vector<std::pair<int64_t, int64_t>>& b) {
    NodeRef zero = is_float(dt) ? ir::make_float(0.0) : ir::make_int(0);
    u_.types[zero->id] = ir::t_scalar(dt);
    std::vector<NodeRef> idx;
    std::vector<std::pair<DefId, size_t>> loops;
    for (size_t a = 0; a < b.size(); ++a) {
      if (b[a].second == b[a].first + 1) {
        idx.push_back(irb::lit(b[a].first));
        continue;
      }
      DefId d = cx_.resolver.new_def("z" + std::to_string(a), DefKind::Index);
      u_.def_types[d] = ir::t_i32();
      NodeRef r = irb::ref("z" + std::to_string(a), d);
      u_.types[r->id] = ir::t_i32();
      idx.push_back(r);
      loops.emplace_back(d, a);
    }
    std::vector<NodeRef> sk{zero};
    sk.insert(sk.end(), idx.begin(), idx.end());
    NodeRef n = ir::make({.kind = Kind::LStore, .span = X.span, .kids = std::move(sk), .name = X.name, .def = X.def});
    for (auto it = loops.rbegin(); it != loops.rend(); ++it)
      n = ir::make({.kind = Kind::LFor,
                    .span = X.span,
                    .kids = {irb::lit(b[it->second].first), irb::lit(b[it->second].second), n},
                    .name = "z" + std::to_string(it->second),
                    .def = it->first,
                    .flags = ir::kParallel});
    return n;
  }

  // The values a loop takes over every iteration of the loops around it: constant bounds, or a
  // tile `[max(c1, s k + o), min(c2, s k + o + k))` of a variable s with known values, whose
  // tiles over s are contiguous (a checkpointed or blocked sweep's segment).
  std::optional<Span1> range_of(const NodeRef& lo_e, const NodeRef& hi_e) {
    auto lo = fold_int(cx_, u_, lo_e), hi = fold_int(cx_, u_, hi_e);
    if (lo && hi) return Span1{*lo, *hi};
    auto clamp = [](const NodeRef& e, Kind k) -> std::pair<std::optional<int64_t>, NodeRef> {
      if (e->kind == k && e->kids.size() == 2) {
        if (auto c = irb::as_lit(e->kids[0])) return {c, e->kids[1]};
        if (auto c = irb::as_lit(e->kids[1])) return {c, e->kids[0]};
      }
      return {std::nullopt, e};
    };
    auto [c1, l] = clamp(lo_e, Kind::IMax);
    auto [c2, h] = clamp(hi_e, Kind::IMin);
    auto la = linear_form(cx_, u_, l), ha = linear_form(cx_, u_, h);
    if (!la || !ha || !la->has_v || !ha->has_v || la->v != ha->v || la->k != ha->k || la->k <= 0 ||
        ha->c - la->c != la->k)
      return std::nullopt;
    auto s = vars_.find(la->v);
    if (s == vars_.end() || s->second.hi <= s->second.lo) return std::nullopt;
    int64_t a = s->second.lo * la->k + la->c, z = (s->second.hi - 1) * la->k + ha->c;
    if (c1) a = std::max(a, *c1);
    if (c2) z = std::min(z, *c2);
    return Span1{a, z};
  }

  // The loop variable a clause variable stands for (`LLet m = t`), else itself.
  DefId root(DefId d) const {
    for (auto it = alias_.find(d); it != alias_.end(); it = alias_.find(d)) d = it->second;
    return d;
  }

  void walk(const NodeRef& n) {
    if (!n || !ok_) return;
    switch (n->kind) {
      case Kind::LFor: {
        if (auto r = range_of(ir::lfor_lo(*n), ir::lfor_hi(*n))) vars_[n->def] = *r;
        loop_of_[n->def] = n.get();
        walk(ir::lfor_body(*n));
        vars_.erase(n->def);
        return;
      }
      case Kind::LLet:
        if (ir::llet_value(*n)->kind == Kind::Name) {
          DefId from = ir::llet_value(*n)->def;
          alias_[n->def] = from;
          if (auto v = vars_.find(from); v != vars_.end()) vars_[n->def] = v->second;
        }
        return;
      case Kind::LSeq:
        for (auto& k : n->kids) walk(k);
        return;
      case Kind::LTensor:
        if (n->def == x_ && n->has(ir::kResume)) {
          for (auto& k : ir::ltensor_stmts(*n)) walk(k);
          return;
        }
        break;
      case Kind::LStore:
        if (n->def == x_) store(n);
        return;
      case Kind::LCheck:
      case Kind::LNop:
        return;
      default: break;
    }
    // Anything else (a guard, an accumulation, another kind of statement) may write part of X.
    ir::for_each_node(n, [&](const NodeRef& m) {
      if ((m->kind == Kind::LStore || m->kind == Kind::LAccum || m->kind == Kind::LTensor) && m->def == x_)
        ok_ = false;
    });
  }

  void store(const NodeRef& n) {
    auto idx = ir::lstore_index(*n);
    if (idx.size() != rank_) return void(ok_ = false);
    cover::Box b;
    for (auto& x : idx) {
      if (x->kind == Kind::Name) {
        auto it = vars_.find(x->def);
        if (it == vars_.end()) return void(ok_ = false);
        if (it->second.hi <= it->second.lo) return;  // no point written
        b.push_back({cover::constant(it->second.lo), cover::constant(it->second.hi)});
      } else if (auto c = fold_int(cx_, u_, x)) {
        b.push_back({cover::constant(*c), cover::constant(*c + 1)});
      } else {
        return void(ok_ = false);
      }
    }
    // The value: no guard or reduction (a contraction kernel adds into its zeroed output), and
    // reads of X only at rows the same sweep wrote before (a recurrence's lookback).
    const NodeRef& row = idx[0];
    const ir::Node* tl = row->kind == Kind::Name ? loop_of_[root(row->def)] : nullptr;
    bool plain = true;
    ir::for_each_node(ir::lstore_value(*n), [&](const NodeRef& m) {
      if (m->kind == Kind::LGuard || m->kind == Kind::LReduce || m->kind == Kind::LStore ||
          m->kind == Kind::LFor || m->kind == Kind::LIf || m->kind == Kind::LAccum)
        plain = false;
    });
    if (!plain) return void(ok_ = false);
    std::function<bool(const NodeRef&)> reads_ok = [&](const NodeRef& m) -> bool {
      if (!m) return true;
      if (m->kind == Kind::Index && ir::index_base(m)->kind == Kind::Name && ir::index_base(m)->def == x_) {
        auto args = ir::index_args(m);
        if (args.empty() || !tl || !tl->has(ir::kSequential)) return false;
        auto a = linear_form(cx_, u_, args[0]);
        if (!a || !a->has_v || a->k != 1 || root(a->v) != root(row->def)) return false;
        if (tl->has(ir::kReverse) ? a->c <= 0 : a->c >= 0) return false;
        for (auto& k : args)
          if (!reads_ok(k)) return false;
        return true;
      }
      if (m->kind == Kind::Name && m->def == x_) return false;
      for (auto& k : m->kids)
        if (!reads_ok(k)) return false;
      return true;
    };
    if (!reads_ok(ir::lstore_value(*n))) return void(ok_ = false);
    boxes_.push_back(std::move(b));
  }

  CompileCtx& cx_;
  Unit& u_;
  DefId x_;
  size_t rank_ = 0;
  bool ok_ = true;
  std::vector<cover::Box> boxes_;
  std::unordered_map<DefId, Span1> vars_;
  std::unordered_map<DefId, DefId> alias_;
  std::unordered_map<DefId, const ir::Node*> loop_of_;
};

}  // namespace

void mark_filled(CompileCtx& cx, Unit& u) {
  if (u.lowered) Fill(cx, u).run();
}

}  // namespace ein::ckpt
