#include "lang/passes/storage_window.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "lang/ir/kid_families.h"
#include "lang/ir/layout.h"
#include "lang/ir/visitor.h"
#include "lang/passes/box_cover.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

// The extent of axis 0 of an allocation shape (where windows are), or null for a scalar.
NodeRef first_extent(const NodeRef& shape) {
  ir::Kids ext = ir::lshape_extents(shape);
  return ext.empty() ? nullptr : ext.front();
}

struct Candidate {
  NodeRef tensor;   // the LTensor
  int64_t lookback;
  NodeRef extent;   // axis-0 extent expression
  bool reverse;     // the time loop runs from high rows to low (an adjoint's sweep)
};

// The lookback of a recurrence fused over axis 0 (recurrence_order's fact), if constant, and
// whether its time loop runs backwards.
std::optional<std::pair<int64_t, bool>> lookback_of(const Unit& u, const NodeRef& t) {
  for (const NodeRef& k : ir::ltensor_stmts(t)) {
    if (k->kind != Kind::LFor) continue;
    auto it = u.recurrences.find(k->id);
    if (it != u.recurrences.end() && it->second.axis == 0 && it->second.lookback)
      return std::pair{*it->second.lookback, k->has(ir::kReverse)};
  }
  return std::nullopt;
}

class WindowPass {
 public:
  WindowPass(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}
  bool whole_rows(const NodeRef& st, DefId def, const std::vector<int64_t>& ext) {
    std::vector<cover::Box> all, nonzero;
    if (ext.empty() || !stores_of(st, def, ext, all, nonzero) || all.empty()) return false;
    cover::Box full;
    for (size_t a = 1; a < ext.size(); ++a) full.push_back({cover::constant(0), cover::constant(ext[a])});
    return full.empty() || cover::uncovered(full, all).empty();
  }
  std::optional<int64_t> backward_rows(const NodeRef& t) {
    const NodeRef& shape = ir::ltensor_shape(*t);
    return rows_down_to(t, t->def, first_extent(shape));
  }

  void run() {
    std::vector<Candidate> cands;
    ir::for_each_node(u_.lowered, [&](const NodeRef& n) {
      if (n->kind != Kind::LTensor || n->has(ir::kHasElem)) return;
      auto lb = lookback_of(u_, n);
      if (!lb) return;
      cands.push_back(Candidate{n, lb->first, first_extent(ir::ltensor_shape(n)), lb->second});
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
    // Backwards: the rows observed, which must be the last rows written (the lowest).
    int64_t head_lo = INT64_MAX, head_hi = INT64_MIN;
    bool ok = true;
    bool inside = false;
    // Observations: every reference to `def` outside its own LTensor.
    std::function<void(const NodeRef&)> scan = [&](const NodeRef& n) {
      if (!n || !ok) return;
      if (n == c.tensor) return;  // self-reads are the lookback
      if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && ir::index_base(n)->def == def) {
        ir::Kids idx = ir::index_args(n);
        if (idx.empty()) {  // the whole tensor, observed through an access over no axis
          ok = false;
          return;
        }
        const NodeRef& row = idx.front();  // windows are on axis 0
        if (c.reverse) {
          auto r = fold_int(cx_, u_, row);
          if (!r || *r < 0) ok = false;
          else head_lo = std::min(head_lo, *r), head_hi = std::max(head_hi, *r);
        } else {
          auto k = distance_from_end(row, c.extent);
          if (!k || *k < 1) ok = false;
          else tail = std::max(tail, *k);
        }
        for (const NodeRef& i : idx) scan(i);
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
    // A lambda inside the recurrence that reads it (`h[t] = G(|u| u * h[t - 1], x)`) is
    // lowered as a unit of its own, which this pass does not rewrite: its reads would index
    // the circular buffer with logical rows (E005 past the window). Such a tensor is kept whole.
    ir::for_each_node(c.tensor, [&](const NodeRef& m) {
      if (m->kind != Kind::Lambda) return;
      ir::for_each_node(m, [&](const NodeRef& x) {
        if ((x->kind == Kind::Name || x->kind == Kind::Path) && x->def == def) ok = false;
      });
    });
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
    if (c.reverse) {
      auto lowest = rows_down_to(c.tensor, def, c.extent);
      if (!lowest || (head_hi >= head_lo && head_lo < *lowest)) return;
      if (head_hi >= head_lo) tail = head_hi - *lowest + 1;
    } else if (!rows_in_order(c.tensor, def)) {
      return;
    }
    int64_t w = std::max<int64_t>(c.lookback + 1, tail);
    if (auto e = fold_int(cx_, u_, c.extent); e && w >= *e) return;
    windows_[def] = w;
  }

  // A circular buffer holds the last W rows *written*, so it equals the last W rows of the
  // tensor only if rows are written in increasing order: a base clause scheduled before the
  // recurrence but lying after its start (`h[0] = a; h[5] = 7.0; h[t in 1..5] = 2 h[t - 1]`)
  // would be overwritten by the row W below it (h[5] read back as h[3]: a silent wrong answer
  // until 2026-11-24). Each statement of the tensor must write rows at or above everything the
  // statements before it wrote; anything not provably so keeps the whole tensor.
  bool rows_in_order(const NodeRef& tensor, DefId def) {
    int64_t done = INT64_MIN;  // one past the highest row written so far
    for (const NodeRef& st : ir::ltensor_stmts(*tensor)) {
      auto rows = rows_written(st, def);
      if (!rows) return false;
      if (rows->first >= rows->second) continue;  // writes nothing
      if (rows->first < done) return false;
      done = rows->second;
    }
    return true;
  }

  // A recurrence swept from its last row down (an adjoint) is windowed only if its statements
  // write every row from the extent down to some row r, in decreasing order and without gaps,
  // and every row rewrites each point an earlier row of the sweep wrote a value other than a
  // literal zero at. Why: an adjoint leaves the points nothing differentiated reaches unwritten
  // (zero), and in a circular buffer an unwritten point would still hold the row W above it;
  // a point no row writes (or only with 0.0) is zero in every slot. Returns r, or nothing.
  std::optional<int64_t> rows_down_to(const NodeRef& tensor, DefId def, const NodeRef& extent) {
    auto top = extent ? fold_int(cx_, u_, extent) : std::nullopt;
    if (!top) return std::nullopt;
    std::vector<int64_t> ext;
    for (auto& e : ir::lshape_extents(*ir::ltensor_shape(*tensor))) {
      auto x = fold_int(cx_, u_, e);
      if (!x) return std::nullopt;
      ext.push_back(*x);
    }
    if (ext.empty()) return std::nullopt;
    int64_t next = *top;                          // one past the lowest row written so far
    std::optional<std::pair<int64_t, int64_t>> last;  // rows of the previous statement
    std::vector<cover::Box> dirty;                // points some earlier row wrote non-zero at
    std::vector<cover::Box> row_all, row_nonzero;  // the current row group's stores
    auto close_group = [&]() {
      for (auto& d : dirty)
        if (!cover::uncovered(d, row_all).empty()) return false;
      dirty.insert(dirty.end(), row_nonzero.begin(), row_nonzero.end());
      row_all.clear();
      row_nonzero.clear();
      return true;
    };
    for (const NodeRef& st : ir::ltensor_stmts(*tensor)) {
      auto rows = rows_written(st, def, true);
      if (!rows) return std::nullopt;
      if (rows->first >= rows->second) continue;
      // Several statements writing one constant row (an adjoint's first row, split per column
      // piece) are one row of the sweep; a loop's rows are written by it alone.
      bool same_row = last && *last == *rows && rows->second == rows->first + 1;
      if (!same_row) {
        if (!close_group() || rows->second != next) return std::nullopt;
        next = rows->first;
      }
      last = rows;
      if (!stores_of(st, def, ext, row_all, row_nonzero)) return std::nullopt;
    }
    if (!close_group()) return std::nullopt;
    return next;
  }

  static bool literal_zero(const NodeRef& v) {
    if (v->kind == Kind::Cast) return literal_zero(ir::cast_expr(v));
    if (v->kind == Kind::FloatLit) return v->fval == 0.0 && !std::signbit(v->fval);
    return v->kind == Kind::IntLit && v->ival == 0;
  }

  // The boxes (over axes 1..) the stores of `st` into `def` write, and those of them that write
  // something other than a literal zero. False when a store is guarded (it may skip points of
  // its row) or an index is neither constant nor a loop variable with constant bounds.
  bool stores_of(const NodeRef& st, DefId def, const std::vector<int64_t>& ext, std::vector<cover::Box>& all,
                 std::vector<cover::Box>& nonzero) {
    std::unordered_map<DefId, std::pair<int64_t, int64_t>> bounds;  // enclosing loops' ranges
    bool ok = true;
    std::function<void(const NodeRef&)> walk = [&](const NodeRef& n) {
      if (!n || !ok) return;
      switch (n->kind) {
        case Kind::LIf: ok = false; return;
        case Kind::LFor: {
          auto lo = fold_int(cx_, u_, ir::lfor_lo(*n)), hi = fold_int(cx_, u_, ir::lfor_hi(*n));
          if (lo && hi) bounds[n->def] = {*lo, *hi};
          walk(ir::lfor_body(*n));
          return;
        }
        case Kind::LStore: {
          if (n->def != def) return;
          auto idx = ir::lstore_index(*n);
          if (idx.size() != ext.size()) {
            ok = false;
            return;
          }
          cover::Box b;
          for (size_t a = 1; a < idx.size(); ++a) {
            const NodeRef& x = idx[a];
            auto it = x->kind == Kind::Name ? bounds.find(x->def) : bounds.end();
            if (it != bounds.end()) {
              b.push_back({cover::constant(it->second.first), cover::constant(it->second.second)});
            } else if (auto k = fold_int(cx_, u_, x)) {
              b.push_back({cover::constant(*k), cover::constant(*k + 1)});
            } else {
              ok = false;
              return;
            }
          }
          if (!literal_zero(ir::lstore_value(*n))) nonzero.push_back(b);
          all.push_back(std::move(b));
          return;
        }
        case Kind::LSeq:
        case Kind::LLet:
          for (auto& k : n->kids) walk(k);
          return;
        default: return;  // checks, nops: no stores
      }
    };
    walk(st);
    return ok;
  }

  // The axis-0 rows [lo, hi) a statement of the tensor stores, {0, 0} if none; nullopt when
  // they are not known at compile time, not written in the expected order (increasing, or with
  // `backwards` decreasing: a loop running the other way), or written at more than one kind of
  // row (a constant row and a loop's row).
  std::optional<std::pair<int64_t, int64_t>> rows_written(const NodeRef& st, DefId def, bool backwards = false) {
    std::unordered_map<DefId, const ir::Node*> loop_of;  // loop variable (or a let of it) -> LFor
    std::optional<int64_t> row;                           // all stores at this constant row
    const ir::Node* loop = nullptr;                       // all stores at this loop's row
    // Constant rows stored inside a loop (a point clause run at its step, `if t == 1000`): they
    // must lie within that loop's rows.
    std::vector<std::pair<int64_t, const ir::Node*>> inner_points;
    bool known = true, any = false;
    std::function<void(const NodeRef&, const ir::Node*)> walk = [&](const NodeRef& n, const ir::Node* outer) {
      if (!n || !known) return;
      if (n->kind == Kind::LFor) {
        loop_of[n->def] = n.get();
        if (!outer) outer = n.get();
      }
      if (n->kind == Kind::LLet && ir::llet_value(*n)->kind == Kind::Name)
        if (auto it = loop_of.find(ir::llet_value(*n)->def); it != loop_of.end()) loop_of[n->def] = it->second;
      if (n->kind == Kind::LStore && n->def == def) {
        any = true;
        const NodeRef& ix = ir::lstore_index(*n)[0];
        auto r = fold_int(cx_, u_, ix);
        auto it = ix->kind == Kind::Name ? loop_of.find(ix->def) : loop_of.end();
        if (r && outer) inner_points.emplace_back(*r, outer);
        else if (r && !loop && (!row || *row == *r)) row = r;
        else if (!r && it != loop_of.end() && !row && (!loop || loop == it->second)) loop = it->second;
        else known = false;
      }
      for (auto& k : n->kids) walk(k, outer);
    };
    walk(st, nullptr);
    if (!any) return std::pair<int64_t, int64_t>{0, 0};
    if (!known) return std::nullopt;
    if (!loop) {  // only constant rows (loops over other axes around them): one row
      for (auto& [r, in] : inner_points)
        if (row && *row != r) return std::nullopt;
        else row = r;
      return std::pair<int64_t, int64_t>{*row, *row + 1};
    }
    if (row || loop->has(ir::kReverse) != backwards) return std::nullopt;
    auto lo = fold_int(cx_, u_, ir::lfor_lo(*loop)), hi = fold_int(cx_, u_, ir::lfor_hi(*loop));
    if (!lo || !hi) return std::nullopt;
    for (auto& [r, in] : inner_points)
      if (in != loop || r < *lo || r >= *hi) return std::nullopt;
    return std::pair<int64_t, int64_t>{*lo, std::max(*lo, *hi)};
  }

  // For an index expression `e` and the axis extent `ext`, k such that e == ext - k.
  std::optional<int64_t> distance_from_end(const NodeRef& e, const NodeRef& ext) {
    if (!ext) return std::nullopt;
    auto ce = fold_int(cx_, u_, e), cext = fold_int(cx_, u_, ext);
    if (ce && cext) return *cext - *ce;
    if (e->kind == Kind::Binary && static_cast<ir::BinOp>(e->ival) == ir::BinOp::Sub) {
      auto k = fold_int(cx_, u_, ir::bin_rhs(e));
      if (k && same_extent(ir::bin_lhs(e), ext)) return *k;
    }
    return std::nullopt;
  }

  bool same_extent(const NodeRef& a, const NodeRef& ext) {
    if (ir::structurally_equal(a, ext)) return true;
    // The extent is usually max(0, hi): compare with hi.
    if (ext->kind == Kind::IMax && irb::as_lit(ir::imax_a(ext)) == 0)
      return same_extent(a, ir::imax_b(ext));
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
      return ir::with_window(m, w);
    }
    if (m->kind == Kind::LStore && hit(m->def))
      return ir::edited(m, [](ir::Node& x) { x.flags |= ir::kWindowed; });
    if (m->kind == Kind::Index && ir::index_base(m)->kind == Kind::Name && hit(ir::index_base(m)->def))
      return ir::edited(m, [](ir::Node& x) { x.flags |= ir::kWindowed; });
    return m;
  }

  CompileCtx& cx_;
  Unit& u_;
  std::unordered_map<DefId, int64_t> windows_;
};

}  // namespace

std::optional<int64_t> backward_rows_down_to(CompileCtx& cx, Unit& u, const ir::NodeRef& tensor) {
  return WindowPass(cx, u).backward_rows(tensor);
}

bool writes_whole_rows(CompileCtx& cx, Unit& u, const ir::NodeRef& stmt, ir::DefId def, const std::vector<int64_t>& ext) {
  return WindowPass(cx, u).whole_rows(stmt, def, ext);
}

void storage_window(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->lowered) continue;
    WindowPass w(cx, *u);
    w.run();
  }
}

}  // namespace ein
