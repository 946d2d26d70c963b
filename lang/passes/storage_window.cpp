#include "lang/passes/storage_window.h"

#include <algorithm>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

struct Candidate {
  NodeRef tensor;   // the LTensor
  int64_t lookback;
  NodeRef extent;   // axis-0 extent expression
};

// The lookback of a recurrence fused over axis 0 (recurrence_order's fact), if constant.
std::optional<int64_t> lookback_of(const Unit& u, const NodeRef& t) {
  for (auto& k : t->kids) {
    if (k->kind != Kind::LFor) continue;
    auto it = u.recurrences.find(k->id);
    if (it != u.recurrences.end() && it->second.axis == 0) return it->second.lookback;
  }
  return std::nullopt;
}

class WindowPass {
 public:
  WindowPass(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void run() {
    std::vector<Candidate> cands;
    ir::for_each_node(u_.lowered, [&](const NodeRef& n) {
      if (n->kind != Kind::LTensor || n->has(ir::kHasElem)) return;
      auto lb = lookback_of(u_, n);
      if (!lb) return;
      cands.push_back(Candidate{n, *lb, n->kids[0]->kids.empty() ? nullptr : n->kids[0]->kids[0]});
    });
    for (auto& c : cands) consider(c);
    if (!windows_.empty()) u_.lowered = apply(u_.lowered);
  }

 private:
  void consider(const Candidate& c) {
    DefId def = c.tensor->def;
    DefKind kind = cx_.resolver.info(def).kind;
    if (kind == DefKind::Global && !cx_.opt.whole_program) return;
    int64_t tail = 1;
    bool ok = true;
    bool inside = false;
    // Observations: every reference to `def` outside its own LTensor.
    std::function<void(const NodeRef&)> scan = [&](const NodeRef& n) {
      if (!n || !ok) return;
      if (n == c.tensor) return;  // self-reads are the lookback
      if (n->kind == Kind::Index && n->kids[0]->kind == Kind::Name && n->kids[0]->def == def) {
        auto k = distance_from_end(n->kids[1], c.extent);
        if (!k || *k < 1) ok = false;
        else tail = std::max(tail, *k);
        for (size_t i = 1; i < n->kids.size(); ++i) scan(n->kids[i]);
        return;
      }
      if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == def) ok = false;
      if (n->kind == Kind::Lambda) {
        // A closure may observe the tensor later, whole.
        ir::for_each_node(n, [&](const NodeRef& m) {
          if (m->kind == Kind::Name && m->def == def) ok = false;
        });
        return;
      }
      for (auto& k : n->kids) scan(k);
    };
    (void)inside;
    scan(u_.lowered);
    if (kind == DefKind::Global) {
      for (auto& other : cx_.units)
        if (other.get() != &u_ && other->lowered)
          ir::for_each_node(other->lowered, [&](const NodeRef& m) {
            if ((m->kind == Kind::Name || m->kind == Kind::Path) && m->def == def) ok = false;
          });
      // The cell's value (a trailing expression) is an observation too; scan covered it.
    }
    if (!ok) return;
    int64_t w = std::max<int64_t>(c.lookback + 1, tail);
    if (auto e = fold_int(cx_, u_, c.extent); e && w >= *e) return;
    windows_[def] = w;
  }

  // For an index expression `e` and the axis extent `ext`, k such that e == ext - k.
  std::optional<int64_t> distance_from_end(const NodeRef& e, const NodeRef& ext) {
    if (!ext) return std::nullopt;
    auto ce = fold_int(cx_, u_, e), cext = fold_int(cx_, u_, ext);
    if (ce && cext) return *cext - *ce;
    if (e->kind == Kind::Binary && static_cast<ir::BinOp>(e->ival) == ir::BinOp::Sub) {
      auto k = fold_int(cx_, u_, e->kids[1]);
      if (k && same_extent(e->kids[0], ext)) return *k;
    }
    return std::nullopt;
  }

  bool same_extent(const NodeRef& a, const NodeRef& ext) {
    if (ir::structurally_equal(a, ext)) return true;
    // The extent is usually max(0, hi): compare with hi.
    if (ext->kind == Kind::IMax && irb::as_lit(ext->kids[0]) == 0)
      return same_extent(a, ext->kids[1]);
    if (a->kind == Kind::Name && ext->kind == Kind::Name) return a->def == ext->def;
    return false;
  }

  NodeRef apply(const NodeRef& n) {
    if (!n) return n;
    std::vector<NodeRef> kids;
    kids.reserve(n->kids.size());
    for (auto& k : n->kids) kids.push_back(apply(k));
    NodeRef m = ir::with_kids(n, std::move(kids));
    auto hit = [&](DefId d) { return windows_.count(d) > 0; };
    if (m->kind == Kind::LTensor && hit(m->def)) {
      int64_t w = windows_[m->def];
      return ir::edited(m, [&](ir::Node& x) {
        x.flags |= ir::kWindowed;
        x.kids[0] = ir::edited(x.kids[0], [&](ir::Node& s) { s.ival = w; });
      });
    }
    if (m->kind == Kind::LStore && hit(m->def))
      return ir::edited(m, [](ir::Node& x) { x.flags |= ir::kWindowed; });
    if (m->kind == Kind::Index && m->kids[0]->kind == Kind::Name && hit(m->kids[0]->def))
      return ir::edited(m, [](ir::Node& x) { x.flags |= ir::kWindowed; });
    return m;
  }

  CompileCtx& cx_;
  Unit& u_;
  std::unordered_map<DefId, int64_t> windows_;
};

}  // namespace

void infer_storage_windows(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->lowered) continue;
    WindowPass w(cx, *u);
    w.run();
  }
}

}  // namespace ein
