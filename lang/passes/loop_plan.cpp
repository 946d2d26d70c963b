#include "lang/passes/loop_plan.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/contraction_plan.h"
#include "lang/passes/int_fold.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

std::optional<double> static_trip(const CompileCtx& cx, const Unit& u, const NodeRef& lo, const NodeRef& hi) {
  auto a = fold_int(cx, u, lo), b = fold_int(cx, u, hi);
  if (!a || !b) return std::nullopt;
  const __int128 n = static_cast<__int128>(*b) - *a;
  return n > 0 ? static_cast<double>(n) : 0.0;
}

// The most points of lo..hi when its bounds move with outer indices of known ranges (a
// triangle's `j in 0..i + 1`: at most the largest i + 1). A work estimate, not a trip count:
// without it such a loop counted as 16 (or unknown), and a 1024-row causal max stayed
// interpreted under EIN_JIT=auto (55 ms against 1 ms as a kernel).
static std::optional<double> hull_trip(const CompileCtx& cx, const Unit& u, const NodeRef& lo, const NodeRef& hi) {
  auto a = int_hull(cx, u, lo), b = int_hull(cx, u, hi);
  if (!a || !b) return std::nullopt;
  const __int128 n = static_cast<__int128>(b->second) - a->first;
  return n > 0 ? static_cast<double>(n) : 0.0;
}

std::optional<double> static_points(const CompileCtx& cx, const Unit& u, const NodeRef& n,
                                    std::optional<double> unknown_trip,
                                    const std::function<bool(const NodeRef&)>& skip) {
  bool known = true;
  auto trip = [&](const NodeRef& lo, const NodeRef& hi) {
    if (auto t = static_trip(cx, u, lo, hi)) return *t;
    // A segment of a checkpointed or blocked sweep: its length bounds every iteration's work.
    if (auto t = trip_bound(cx, u, lo, hi)) return static_cast<double>(*t);
    if (auto t = hull_trip(cx, u, lo, hi)) return *t;
    if (!unknown_trip) known = false;
    return unknown_trip.value_or(1.0);
  };
  std::function<double(const NodeRef&)> walk = [&](const NodeRef& x) -> double {
    if (!x || (skip && skip(x))) return 1;
    double inner = 1;
    for (auto& kid : x->kids) inner = std::max(inner, walk(kid));
    if (x->kind == Kind::LFor) return trip(ir::lfor_lo(*x), ir::lfor_hi(*x)) * walk(ir::lfor_body(*x));
    if (x->kind == Kind::LReduce) {
      double w = walk(ir::lreduce_body(*x));
      for (auto& item : ir::lreduce_items(*x))
        if (item->kind == Kind::LoopVar) w *= trip(ir::loopvar_lo(*item), ir::loopvar_hi(*item));
      return std::max(inner, w);
    }
    return inner;
  };
  double w = walk(n);
  if (!known) return std::nullopt;
  return w;
}

namespace {

constexpr double kUnknownTrip = 16;  // the work estimate's guess for an extent known only at run time

class Planner {
 public:
  Planner(const CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {
    for (auto& [id, p] : u.contractions) planned_.insert(id);
  }

  void run() { visit(u_.lowered, nullptr, false); }

 private:
  void visit(const NodeRef& n, const NodeRef& tensor, bool in_parallel) {
    if (!n) return;
    const NodeRef& t = n->kind == Kind::LTensor ? n : tensor;
    if (n->kind == Kind::LFor || n->kind == Kind::LoopVar || n->kind == Kind::LReduce) {
      LoopFact& f = u_.loops[n->id] = fact(n, t);
      f.team = n->kind == Kind::LFor && n->has(ir::kParallel) && !in_parallel;
      in_parallel = in_parallel || f.team;
    }
    if (n->kind == Kind::LTensor) in_parallel = false;
    for (auto& k : n->kids) visit(k, t, in_parallel);
  }

  LoopFact fact(const NodeRef& n, const NodeRef& tensor) {
    LoopFact f;
    if (n->kind != Kind::LReduce) {
      f.trip = trip(n);
      f.unrolled = f.trip && *f.trip <= 16;
    }
    if (n->kind == Kind::LoopVar) return f;
    const NodeRef& body = n->kind == Kind::LFor ? ir::lfor_body(n) : ir::lreduce_body(n);
    f.innermost = small(body, false);
    f.innermost_contracted = small(body, true);
    f.work = n->kind == Kind::LFor ? work(body, false) : own_work(n, false);
    f.work_contracted = n->kind == Kind::LFor ? work(body, true) : own_work(n, true);
    for (auto& k : n->kids)
      ir::for_each_node(k, [&](const NodeRef& x) {
        if (x->kind == Kind::LReduce && planned_.count(x->id) &&
            std::find(f.planned.begin(), f.planned.end(), x->id) == f.planned.end())
          f.planned.push_back(x->id);
      });
    if (n->kind == Kind::LFor && n->has(ir::kSequential) && tensor) f.carry = carry(n, tensor);
    return f;
  }

  std::optional<double> trip(const NodeRef& loop) {
    auto it = trips_.find(loop->id);
    if (it != trips_.end()) return it->second;
    return trips_[loop->id] = static_trip(cx_, u_, ir::loop_lo(loop), ir::loop_hi(loop));
  }

  std::optional<double> hull(const NodeRef& loop) { return hull_trip(cx_, u_, ir::loop_lo(loop), ir::loop_hi(loop)); }

  bool skipped(const NodeRef& x, bool contracted) const {
    return contracted && x->kind == Kind::LReduce && planned_.count(x->id) > 0;
  }

  // static_points with unknown extents as 16 and, in the contracted version, the planned
  // contractions as single points (memoised: each subtree is walked once per version).
  double work(const NodeRef& x, bool contracted) {
    if (!x || skipped(x, contracted)) return 1;
    return own_work(x, contracted);
  }

  double own_work(const NodeRef& x, bool contracted) {
    const uint64_t key = uint64_t{x->id} * 2 + contracted;
    if (auto it = work_.find(key); it != work_.end()) return it->second;
    double w = 1;
    if (x->kind == Kind::LFor) {
      w = trip(x).value_or(hull(x).value_or(kUnknownTrip)) * work(ir::lfor_body(x), contracted);
    } else {
      for (auto& kid : x->kids) w = std::max(w, work(kid, contracted));
      if (x->kind == Kind::LReduce) {
        double r = work(ir::lreduce_body(x), contracted);
        for (auto& item : ir::lreduce_items(x))
          if (item->kind == Kind::LoopVar) r *= trip(item).value_or(hull(item).value_or(kUnknownTrip));
        w = std::max(w, r);
      }
    }
    return work_[key] = w;
  }

  // Every loop in x is unrolled.
  bool small(const NodeRef& x, bool contracted) {
    if (!x || skipped(x, contracted)) return true;
    const uint64_t key = uint64_t{x->id} * 2 + contracted;
    if (auto it = small_.find(key); it != small_.end()) return it->second;
    bool s = true;
    if (x->kind == Kind::LFor || x->kind == Kind::LoopVar) {
      auto t = trip(x);
      s = t && *t <= 16;
    }
    for (size_t i = 0; i < x->kids.size() && s; ++i) s = small(x->kids[i], contracted);
    return small_[key] = s;
  }

  // ScalarCarry of a sequential loop whose body is `t = t_loop` bindings, then the one store
  // X[.., t, ..] (no guard, no second clause), reading X[.., t - 1, ..] (t + 1 reversed) with
  // the same names on the other axes.
  std::optional<ScalarCarry> carry(const NodeRef& loop, const NodeRef& tensor) {
    const NodeRef& body = ir::lfor_body(loop);
    std::vector<NodeRef> parts;
    if (body->kind == Kind::LSeq) parts = body->kids;
    else parts.push_back(body);
    if (parts.empty()) return std::nullopt;
    std::unordered_set<ir::DefId> var{loop->def};
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      const NodeRef& p = parts[i];
      if (!p || p->kind != Kind::LLet || ir::llet_value(p)->kind != Kind::Name || !var.count(ir::llet_value(p)->def))
        return std::nullopt;
      var.insert(p->def);
    }
    const NodeRef& st = parts.back();
    const ir::DefId x = tensor->def;
    if (!st || st->kind != Kind::LStore || st->def != x || static_cast<DType>(tensor->ival) == DType::Bool)
      return std::nullopt;
    // The store's subscripts: the loop's variable on one axis, names bound outside the loop on
    // the others (a row of a 2-D recurrence, `P[i, j]` with `i` of an enclosing loop).
    const size_t rank = ir::lstore_index_count(st);
    if (rank != ir::lshape_extents_count(ir::ltensor_shape(tensor))) return std::nullopt;
    std::optional<size_t> axis;
    for (size_t a = 0; a < rank; ++a) {
      const NodeRef& ix = ir::lstore_index(st)[a];
      if (ix->kind != Kind::Name) return std::nullopt;
      if (!var.count(ix->def)) continue;
      if (axis) return std::nullopt;
      axis = a;
    }
    if (!axis) return std::nullopt;
    const int64_t back = loop->has(ir::kReverse) ? 1 : -1;
    ScalarCarry c;
    c.tensor = tensor->name;
    c.axis = *axis;
    ir::for_each_node(ir::lstore_value(st), [&](const NodeRef& n) {
      if (n->kind != Kind::Index || ir::index_args_count(n) != rank || ir::index_base(n)->kind != Kind::Name ||
          ir::index_base(n)->def != x)
        return;
      for (size_t a = 0; a < rank; ++a) {
        const NodeRef &r = ir::index_args(n)[a], &w = ir::lstore_index(st)[a];
        if (a != *axis && (r->kind != Kind::Name || r->def != w->def)) return;
      }
      const NodeRef& i = ir::index_args(n)[*axis];
      if (i->kind != Kind::Binary) return;
      const NodeRef &iv = ir::bin_lhs(i), &ik = ir::bin_rhs(i);
      bool prev = iv->kind == Kind::Name && var.count(iv->def) && ik->kind == Kind::IntLit &&
                  ((static_cast<ir::BinOp>(i->ival) == ir::BinOp::Sub && ik->ival == -back) ||
                   (static_cast<ir::BinOp>(i->ival) == ir::BinOp::Add && ik->ival == back));
      if (prev) c.reads.insert(n->id);
    });
    if (c.reads.empty()) return std::nullopt;
    c.fixed_point = only_carried(ir::lstore_value(st), c, x, var);
    return c;
  }

  // The step's value depends on nothing that changes from step to step but the carried value:
  // no loop variable outside the carried reads, no other read of X, only pure operations.
  static bool only_carried(const NodeRef& value, const ScalarCarry& c, ir::DefId x,
                           const std::unordered_set<ir::DefId>& var) {
    bool pure = true;
    std::function<void(const NodeRef&)> visit = [&](const NodeRef& n) {
      if (!n || !pure) return;
      if (c.reads.count(n->id)) return;
      switch (n->kind) {
        case Kind::IntLit:
        case Kind::FloatLit:
        case Kind::BoolLit:
          return;
        case Kind::Name:
          pure = !var.count(n->def);
          return;
        case Kind::Index:
          if (ir::index_base(n)->kind != Kind::Name || ir::index_base(n)->def == x) pure = false;
          break;
        case Kind::Binary:
        case Kind::Unary:
        case Kind::Cast:
        case Kind::Call:
        case Kind::If:
        case Kind::IMin:
        case Kind::IMax:
        case Kind::DimOf:
          break;
        default:
          pure = false;
          return;
      }
      for (auto& k : n->kids) visit(k);
    };
    visit(value);
    return pure;
  }

  const CompileCtx& cx_;
  Unit& u_;
  std::unordered_set<uint32_t> planned_;
  std::unordered_map<uint32_t, std::optional<double>> trips_;
  std::unordered_map<uint64_t, double> work_;
  std::unordered_map<uint64_t, bool> small_;
};

std::string points(double w) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::min(w, 1e15));
  return buf;
}

}  // namespace

void loop_plan(CompileCtx& cx) {
  for (auto& u : cx.units) {
    u->loops.clear();
    if (!u->lowered) continue;
    Planner(cx, *u).run();
  }
}

std::string describe_loop(const Unit& u, const NodeRef& loop) {
  auto it = u.loops.find(loop->id);
  if (it == u.loops.end()) return "";
  const LoopFact& f = it->second;
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (f.unrolled) {
    add("unrolled");
  } else if (f.innermost) {
    add(f.trip && *f.trip <= 256 ? "innermost" : "innermost (strip-mined)");
    if (loop->has(ir::kParallel) && !loop->has(ir::kSequential)) add("simd");
  }
  if (f.team) add("threads when iterations x " + points(f.work) + " >= " + std::to_string(kParallelPoints) + " points");
  if (f.work_contracted != f.work) add(points(f.work_contracted) + " per iteration once its contractions are computed");
  if (f.carry) {
    add("carries " + f.carry->tensor + "[" + loop->name + (loop->has(ir::kReverse) ? " + 1" : " - 1") +
        "] in a register");
    if (f.carry->fixed_point) add("ends in a fill at a fixed point");
  }
  return out;
}

}  // namespace ein
