#include "lang/passes/recurrence_order.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/recurrence_deps.h"
#include "lang/passes/shape_analysis.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

using recurrence::axis_of;
using recurrence::Clause;
using recurrence::Read;

class RecurrenceOrder : public ir::Mutator, private recurrence::ReadDeps {
 public:
  RecurrenceOrder(CompileCtx& cx, Unit& u) : ReadDeps(cx, u) {}

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::LTensor) return n;
    return order_tensor(n);
  }

 private:
  // An axis every recurrent clause loops over (or fixes at a literal step) and can run
  // outermost in a legal order; the clauses get those orders. -1 when there is none.
  int common_time_axis(std::vector<Clause>& clauses) {
    std::vector<int> axes;
    for (auto& c : clauses)
      if (c.recurrent() && c.time_axis >= 0 && std::find(axes.begin(), axes.end(), c.time_axis) == axes.end())
        axes.push_back(c.time_axis);
    for (int a : axes) {
      std::vector<std::vector<int>> orders(clauses.size());
      bool ok = true;
      for (size_t i = 0; i < clauses.size() && ok; ++i) {
        Clause& c = clauses[i];
        if (!c.recurrent()) continue;
        if (a >= static_cast<int>(c.write.size())) ok = false;
        else if (c.write[a]->kind != Kind::Name) continue;  // a point at one step
        std::vector<int> o;
        for (int l : c.order)
          if (axis_of(c, c.loops[l]->def) == a) o.insert(o.begin(), l);
          else o.push_back(l);
        ok = ok && legal(c, o);
        orders[i] = o;
      }
      if (!ok) continue;
      for (size_t i = 0; i < clauses.size(); ++i) {
        Clause& c = clauses[i];
        if (!c.recurrent() || orders[i].empty()) continue;
        c.order = orders[i];
        c.seq.assign(c.loops.size(), false);
        c.time_axis = -1;
        choose_order(c);  // keeps the legal order, marks the loops that carry
      }
      return a;
    }
    return -1;
  }

  bool legal_some_order(Clause& c) {
    if (legal(c, c.order)) return true;
    for (size_t l = 1; l < c.loops.size(); ++l) {
      std::vector<int> o{static_cast<int>(l)};
      for (size_t k = 0; k < c.loops.size(); ++k)
        if (k != l) o.push_back(static_cast<int>(k));
      if (legal(c, o)) return true;
    }
    return false;
  }

  // No forward order works, every clause is legal backwards, and the first backward step only
  // reads points inside the tensor (so they are given by an initial clause, not missing) or
  // reads them under a branch of the only clause.
  // A forward order that is legal only because a run-time position comes first (`V[t + 1,
  // P[s, a]]` carried by s) is not preferred to a reverse order the offsets prove: its
  // run-time check would stop the program (E012) at the first step.
  bool prefers_reverse(const NodeRef& t, std::vector<Clause>& clauses) {
    auto all_legal = [&](bool proven) {
      proven_only_ = proven;
      bool all = true;
      for (auto& c : clauses)
        if (c.recurrent() && !legal_some_order(c)) all = false;
      proven_only_ = false;
      return all;
    };
    if (all_legal(true)) return false;
    bool forward_ok = all_legal(false);
    reverse_ = true;
    bool ok = forward_ok ? all_legal(true) : all_legal(false);
    for (auto& c : clauses) {
      if (!c.recurrent()) continue;
      for (auto& r : c.reads) {
        if (other_step(c, r)) continue;
        auto v = vector_of(c, r);
        for (size_t l = 0; l < c.loops.size() && ok; ++l) {
          if (v[l].k != Comp::Exact || v[l].d <= 0) continue;
          int a = axis_of(c, c.loops[l]->def);
          auto hi = fold_int(cx_, u_, ir::lfor_hi(c.loops[l]));
          ir::Kids extents = ir::lshape_extents(ir::ltensor_shape(t));
          auto ext = a >= 0 && a < static_cast<int>(extents.size()) ? fold_int(cx_, u_, extents[a]) : std::nullopt;
          // A lone clause's read under a branch or guard is how a program writes its base
          // case inline (`if t == T - 1 { r[t] } else { r[t] + g * G[t + 1] }`); if the branch
          // does read past the end, the run-time bounds check stops it (E005).
          bool inline_base = clauses.size() == 1 && r.conditional;
          if (hi && ext && *hi - 1 + v[l].d >= *ext && !inline_base) ok = false;
        }
      }
    }
    reverse_ = false;
    return ok;
  }

  bool legal(Clause& c, const std::vector<int>& order) {
    for (auto& r : c.reads) {
      int carrier;
      if (!other_step(c, r) && classify(vector_of(c, r), order, &carrier) > 0) return false;
    }
    return true;
  }

  void choose_order(Clause& c) {
    if (!legal(c, c.order)) {
      for (size_t l = 1; l < c.loops.size(); ++l) {
        std::vector<int> o{static_cast<int>(l)};
        for (size_t k = 0; k < c.loops.size(); ++k)
          if (k != l) o.push_back(static_cast<int>(k));
        if (legal(c, o)) {
          c.order = o;
          break;
        }
      }
    }
    for (auto& r : c.reads) {
      if (other_step(c, r)) continue;
      int carrier;
      int k = classify(vector_of(c, r), c.order, &carrier);
      if (k > 0) {
        cx_.error("E012", "`" + cx_.sm.snippet(r.node->span) +
                              "` reads a point that is not computed yet",
                  r.node->span, "future read",
                  "a recurrence may only read earlier points, e.g. `x[t - 1]`");
      } else if (k < 0 && carrier >= 0 && reads_itself(c, r, carrier)) {
        // Run in order, the point would read itself and the later points as zeros.
        cx_.error("E012", "`" + cx_.sm.snippet(r.node->span) + "` reads the point being defined",
                  r.node->span, "cyclic dependency",
                  "bound the reduction index by the loop variable, e.g. `sum[k in 0..i](x[k])` or "
                  "`... where k < i`, so every point read comes earlier");
      } else if (k == 0 && same_literals(c, r)) {
        cx_.error("E012", "`" + cx_.sm.snippet(r.node->span) + "` reads the point being defined",
                  r.node->span, "cyclic dependency", "read an earlier point, e.g. `x[t - 1]`");
      } else if (carrier >= 0) {
        c.seq[carrier] = true;
        if (vector_of(c, r)[carrier].k == Comp::Unknown) c.dynamic.push_back(r.node);
      }
    }
    if (!c.order.empty()) {
      int a = axis_of(c, c.loops[c.order[0]]->def);
      if (c.seq[c.order[0]]) c.time_axis = a;
    }
  }

  // Rebuilds a nest from the loops in `order` (skipping `drop`, a loop index) around body.
  NodeRef rebuild(const Clause& c, const std::vector<int>& order, int drop) {
    NodeRef body = c.body;
    std::vector<int> kept;
    for (int l : order)
      if (l != drop) kept.push_back(l);
    for (size_t i = kept.size(); i-- > 0;) {
      const NodeRef& f = c.loops[kept[i]];
      uint32_t flags = c.seq[kept[i]] ? (ir::kSequential | (reverse_ ? ir::kReverse : 0u))
                                      : ir::kParallel;
      body = ir::edited(ir::with_kids(f, {ir::lfor_lo(f), ir::lfor_hi(f), body}), [&](ir::Node& m) {
        m.flags = (m.flags & ~(ir::kSequential | ir::kParallel | ir::kReverse)) | flags;
      });
    }
    return body;
  }

  // The order in which clauses that do not share a time loop run (SPEC §5.5: from the
  // dependencies, not the text): a clause runs after every clause whose points it certainly
  // reads; a read that may touch another clause's points keeps their textual order. Clauses
  // that read each other's points have no order: E012.
  std::vector<size_t> clause_order(const NodeRef& t, const std::vector<Clause>& clauses) {
    size_t n = clauses.size();
    std::vector<std::vector<const Read*>> after(n, std::vector<const Read*>(n, nullptr));  // [j][i]
    for (size_t i = 0; i < n; ++i)
      for (auto& r : clauses[i].reads)
        for (size_t j = 0; j < n; ++j) {
          if (j == i || after[j][i]) continue;
          int h = hits(r, clauses[j]);
          if (h == 1 || (h == -1 && j < i)) after[j][i] = &r;
        }
    std::vector<size_t> order;
    std::vector<bool> placed(n, false);
    while (order.size() < n) {
      size_t next = n;
      for (size_t i = 0; i < n && next == n; ++i) {
        if (placed[i]) continue;
        bool ready = true;
        for (size_t j = 0; j < n; ++j) ready = ready && (placed[j] || !after[j][i]);
        if (ready) next = i;
      }
      if (next == n) {
        for (size_t i = 0; i < n; ++i)
          for (size_t j = 0; j < n && !placed[i]; ++j)
            if (!placed[j] && after[j][i]) {
              const NodeRef& rd = after[j][i]->node;
              cx_.error("E012", "`" + cx_.sm.snippet(rd->span) + "` reads a point of `" + t->name +
                                    "` that is computed from this clause (cyclic dependency)",
                        rd->span, "cyclic dependency",
                        "the clauses of `" + t->name + "` read each other's points; a recurrence may "
                        "only read points computed before, e.g. `x[t - 1]` with a base clause");
              order.clear();
              for (size_t k = 0; k < n; ++k) order.push_back(k);
              return order;
            }
      }
      placed[next] = true;
      order.push_back(next);
    }
    return order;
  }

  NodeRef order_tensor(const NodeRef& t) {
    reverse_ = t->has(ir::kReverse);
    std::vector<NodeRef> head;  // LShape, LChecks
    std::vector<Clause> clauses;
    for (auto& k : t->kids) {
      if (k->kind == Kind::LShape || k->kind == Kind::LCheck) head.push_back(k);
      else clauses.push_back(analyze(k, t->def));
    }
    all_ = &clauses;
    // A recurrence that reads t + 1 and whose last point is given runs from high to low
    // (SPEC §5.5: the order comes from the dependencies, not from the text).
    if (!reverse_ && prefers_reverse(t, clauses)) reverse_ = true;
    bool any_rec = false;
    int time_axis = -2;     // agreed axis of the clauses whose outer loop carries a dependence
    int same_step_axis = -1;  // outer axis of a clause reading another clause's point this step
    size_t errors_before = cx_.diags.error_count();
    for (auto& c : clauses) {
      if (!c.recurrent()) continue;
      any_rec = true;
      choose_order(c);
      if (c.time_axis >= 0) {
        if (time_axis == -2) time_axis = c.time_axis;
        else if (time_axis != c.time_axis) time_axis = -1;
      }
    }
    // Clauses whose first legal orders put different axes outermost would run one after the
    // other, and a clause reading another's earlier steps (`s[0, n] = s[2, n - 1] ..` beside a
    // clause over `s[j, n]`) would read points not computed yet. When one axis can be every
    // recurrent clause's outer loop, that axis is the common time.
    if (time_axis == -1 && cx_.diags.error_count() == errors_before) time_axis = common_time_axis(clauses);
    for (auto& c : clauses) {
      if (!c.recurrent()) continue;
      for (auto& r : c.reads) {
        int carrier;
        if (other_step(c, r)) continue;
        if (!c.order.empty() && classify(vector_of(c, r), c.order, &carrier) == 0 &&
            !same_literals(c, r) && same_step_axis < 0)
          same_step_axis = axis_of(c, c.loops[c.order[0]]->def);
      }
    }
    // Clauses that only read each other's points of the same step still run step by step.
    if (time_axis == -2) time_axis = same_step_axis;
    std::vector<NodeRef> kids = head;
    if (!any_rec || time_axis < 0) {
      in_sequence(t, clauses, kids);
      return ir::with_kids(t, std::move(kids));
    }
    // Fuse every clause that loops over the time axis. A clause at a literal time step that
    // reads the tensor runs where its step falls in the evaluation order: before or after the
    // fused loop when its step lies outside the loop's range, else inside it under `t == step`
    // (`h[5] = h[4] * 2` between two ranges of `t`). Other clauses read nothing of the tensor
    // and run first.
    std::vector<size_t> timed;
    std::vector<std::optional<int64_t>> step_at;  // per timed entry: the literal step of a point
    std::vector<size_t> points;
    for (size_t i = 0; i < clauses.size(); ++i) {
      Clause& c = clauses[i];
      bool loops_time = time_axis < static_cast<int>(c.write.size()) &&
                        c.write[time_axis]->kind == Kind::Name;
      if (loops_time) {
        timed.push_back(i);
        step_at.push_back(std::nullopt);
        if (c.order.empty() || axis_of(c, c.loops[c.order[0]]->def) != time_axis) {
          // Put this clause's time loop outermost too (it carries nothing, so any order is legal).
          std::vector<int> o;
          for (size_t l = 0; l < c.loops.size(); ++l)
            if (axis_of(c, c.loops[l]->def) == time_axis) o.insert(o.begin(), static_cast<int>(l));
            else o.push_back(static_cast<int>(l));
          c.order = o;
        }
      } else if (c.recurrent() && time_axis < static_cast<int>(c.write.size()) &&
                 irb::as_lit(c.write[time_axis])) {
        points.push_back(i);
      } else {
        kids.push_back(rebuild(c, c.order, -1));
      }
    }
    std::optional<int64_t> range_lo, range_hi;  // of the fused loop, when they fold
    bool folds = true;
    for (size_t k : timed) {
      const NodeRef& tl = clauses[k].loops[clauses[k].order[0]];
      auto l = fold_int(cx_, u_, ir::lfor_lo(tl)), h = fold_int(cx_, u_, ir::lfor_hi(tl));
      folds = folds && l && h;
      if (!folds) break;
      range_lo = std::min(range_lo.value_or(*l), *l);
      range_hi = std::max(range_hi.value_or(*h), *h);
    }
    if (!folds) range_lo = range_hi = std::nullopt;
    std::vector<std::pair<int64_t, size_t>> before_loop, after_loop;
    for (size_t i : points) {
      int64_t v = *irb::as_lit(clauses[i].write[time_axis]);
      for (auto& r : clauses[i].reads) {
        auto x = fold_int(cx_, u_, r.idx[time_axis]);
        if (x && (reverse_ ? *x < v : *x > v))
          cx_.error("E012", "`" + cx_.sm.snippet(r.node->span) + "` reads a point that is not computed yet",
                    r.node->span, "future read", "a recurrence may only read earlier points, e.g. `x[t - 1]`");
      }
      bool below = range_lo && v < *range_lo, above = range_hi && v >= *range_hi;
      if (!range_lo) {
        // The loop's range is not known here: the step's place in it is not either.
        kids.push_back(rebuild(clauses[i], clauses[i].order, -1));
      } else if (below || above) {
        (below != reverse_ ? before_loop : after_loop).emplace_back(v, i);
      } else {
        timed.push_back(i);
        step_at.push_back(v);
      }
    }
    // In evaluation order: ascending steps, descending for a reverse recurrence.
    auto by_step = [&](const auto& a, const auto& b) { return reverse_ ? a.first > b.first : a.first < b.first; };
    std::sort(before_loop.begin(), before_loop.end(), by_step);
    std::sort(after_loop.begin(), after_loop.end(), by_step);
    for (auto& [v, i] : before_loop) kids.push_back(rebuild(clauses[i], clauses[i].order, -1));
    // The time component of a read of timed entry ii, relative to its step.
    auto time_comp = [&](size_t ii, const Read& r) -> Comp {
      const Clause& c = clauses[timed[ii]];
      if (!step_at[ii]) return relative(r.idx[time_axis], c.loops[c.order[0]]->def);
      auto x = fold_int(cx_, u_, r.idx[time_axis]);
      return x ? Comp{Comp::Exact, *x - *step_at[ii]} : Comp{};
    };
    // Can entries ii and jj run at one step? A point only at its own step (the clauses' ranges
    // fold whenever a point is inside the loop).
    auto same_steps = [&](size_t ii, size_t jj) {
      if (!step_at[ii] && !step_at[jj]) return true;
      if (step_at[ii] && step_at[jj]) return *step_at[ii] == *step_at[jj];
      size_t p = step_at[ii] ? ii : jj, r = step_at[ii] ? jj : ii;
      const NodeRef& tl = clauses[timed[r]].loops[clauses[timed[r]].order[0]];
      auto l = fold_int(cx_, u_, ir::lfor_lo(tl)), h = fold_int(cx_, u_, ir::lfor_hi(tl));
      return !l || !h || (*l <= *step_at[p] && *step_at[p] < *h);
    };
    // Same-step order: clause j must precede clause i if i reads, at the same time step, a point
    // on a literal axis that j writes.
    size_t n = timed.size();
    std::vector<std::vector<bool>> before(n, std::vector<bool>(n, false));
    int64_t lookback = 0;
    bool lookback_known = true, future_read = false;
    for (size_t ii = 0; ii < n; ++ii) {
      Clause& c = clauses[timed[ii]];
      for (auto& r : c.reads) {
        Comp tc = time_comp(ii, r);
        // (A loop running backwards has a lookback too: the rows above its step it reads;
        // storage_window keeps that many when the tensor is observed only at its low rows.)
        if (tc.k != Comp::Exact) {
          lookback_known = false;
          // Another fused clause's point at a step nothing orders (`sum[k](.. d[2, k])` from
          // row 1 of a row-split adjoint fused along the columns): not provably computed yet.
          for (size_t jj = 0; jj < n && !future_read; ++jj)
            if (jj != ii && hits_clause(r, clauses[timed[jj]], time_axis, &c)) future_read = true;
          continue;
        }
        lookback = std::max(lookback, reverse_ ? tc.d : -tc.d);
        if (reverse_ ? tc.d < 0 : tc.d > 0) {
          // A step the fused loop has not reached yet, written by a fused clause (adjoints split
          // into per-row clauses and fused along another axis: row 1 reads row 2 two columns
          // on): fusing would read it before it is computed.
          for (size_t jj = 0; jj < n && !future_read; ++jj)
            if (hits_clause(r, clauses[timed[jj]], time_axis, &c)) future_read = true;
          continue;
        }
        if (tc.d != 0) continue;
        for (size_t jj = 0; jj < n; ++jj) {
          if (jj == ii || !same_steps(ii, jj)) continue;
          if (hits_clause(r, clauses[timed[jj]], time_axis, &c)) before[jj][ii] = true;
        }
      }
    }
    if (future_read) {
      // Clause by clause, in dependency order (or E012 for a cycle), is right; fused is not.
      std::vector<NodeRef> plain = head;
      in_sequence(t, clauses, plain);
      return ir::with_kids(t, std::move(plain));
    }
    std::vector<size_t> order;
    std::vector<int> state(n, 0);
    bool cyclic = false;
    std::function<void(size_t)> visit = [&](size_t i) {
      if (state[i] == 2) return;
      if (state[i] == 1) {
        cyclic = true;
        return;
      }
      state[i] = 1;
      for (size_t j = 0; j < n; ++j)
        if (before[j][i] && j != i) visit(j);
      state[i] = 2;
      order.push_back(i);
    };
    for (size_t i = 0; i < n; ++i) visit(i);
    if (cyclic) {
      cx_.error("E012", "the clauses of `" + t->name + "` depend on each other within one step",
                t->span, "cyclic same-step dependency",
                "break the cycle by reading the previous step (`t - 1`) in one of the clauses");
      for (auto& c : clauses) kids.push_back(rebuild(c, c.order, -1));
      return ir::with_kids(t, std::move(kids));
    }
    for (size_t k = 0; k < n; ++k) {
      DynamicReadOrder o;
      o.time_axis = time_axis;
      for (size_t m = 0; m < n; ++m) o.fused.push_back(box_of(clauses[timed[order[m]]]));
      for (auto& [v, i] : after_loop) o.fused.push_back(box_of(clauses[i]));
      for (size_t m = k + 1; m < n; ++m) o.pending.push_back(box_of(clauses[timed[order[m]]]));
      guard_dynamic(t, clauses[timed[order[k]]], std::move(o));
    }
    // The fused loop: union of the clauses' time ranges; each clause guarded by its own.
    size_t named = 0;  // a clause looping over time names the loop
    while (step_at[named]) ++named;
    const Clause& first = clauses[timed[named]];
    const NodeRef& tloop0 = first.loops[first.order[0]];
    ir::DefId tf = cx_.resolver.new_def(tloop0->name, DefKind::Index, tloop0->span);
    u_.def_types[tf] = ir::t_i32();
    NodeRef tref = irb::ref(tloop0->name, tf, tloop0->span);
    NodeRef lo, hi;
    std::vector<NodeRef> steps;
    for (size_t k : order) {
      Clause& c = clauses[timed[k]];
      NodeRef l = step_at[k] ? irb::lit(*step_at[k]) : ir::lfor_lo(c.loops[c.order[0]]);
      NodeRef h = step_at[k] ? irb::lit(*step_at[k] + 1) : ir::lfor_hi(c.loops[c.order[0]]);
      lo = lo ? irb::imin(lo, l) : l;
      hi = hi ? irb::imax(hi, h) : h;
    }
    for (size_t k : order) {
      Clause& c = clauses[timed[k]];
      if (step_at[k]) {
        NodeRef cond = ir::make_binary(ir::BinOp::Eq, tref, irb::lit(*step_at[k]));
        u_.types[cond->id] = ir::t_bool();
        steps.push_back(ir::make({.kind = Kind::LIf, .span = c.nest->span,
                                  .kids = {cond, rebuild(c, c.order, -1)}}));
        continue;
      }
      const NodeRef& tl = c.loops[c.order[0]];
      NodeRef inner = rebuild(c, c.order, c.order[0]);
      NodeRef bind = ir::make({.kind = Kind::LLet, .span = tl->span, .kids = {tref},
                               .name = tl->name, .def = tl->def});
      NodeRef step = ir::make({.kind = Kind::LSeq, .span = c.nest->span, .kids = {bind, inner}});
      bool whole = ir::structurally_equal(ir::lfor_lo(tl), lo) && ir::structurally_equal(ir::lfor_hi(tl), hi);
      if (!whole) {
        NodeRef cond = ir::make_binary(
            ir::BinOp::And, ir::make_binary(ir::BinOp::Ge, tref, ir::lfor_lo(tl)),
            ir::make_binary(ir::BinOp::Lt, tref, ir::lfor_hi(tl)));
        u_.types[cond->id] = ir::t_bool();
        step = ir::make({.kind = Kind::LIf, .span = c.nest->span, .kids = {cond, step}});
      }
      steps.push_back(step);
    }
    NodeRef body = steps.size() == 1 ? steps[0]
                                     : ir::make({.kind = Kind::LSeq, .span = t->span, .kids = steps});
    NodeRef tloop = ir::make({.kind = Kind::LFor, .span = t->span, .kids = {lo, hi, body},
                              .name = tloop0->name, .def = tf,
                              .flags = ir::kSequential | (reverse_ ? ir::kReverse : 0u)});
    u_.recurrences[tloop->id] =
        RecurrenceFact{time_axis, lookback_known ? std::optional<int64_t>(lookback) : std::nullopt};
    kids.push_back(tloop);
    for (auto& [v, i] : after_loop) kids.push_back(rebuild(clauses[i], clauses[i].order, -1));
    return ir::with_kids(t, std::move(kids));
  }

  // Clauses one after the other in dependency order; each dynamic read checked against the
  // clauses still to run.
  void in_sequence(const NodeRef& t, std::vector<Clause>& clauses, std::vector<NodeRef>& out) {
    std::vector<size_t> seq = clause_order(t, clauses);
    for (size_t k = 0; k < seq.size(); ++k) {
      DynamicReadOrder o;
      for (size_t m = k + 1; m < seq.size(); ++m) o.pending.push_back(box_of(clauses[seq[m]]));
      guard_dynamic(t, clauses[seq[k]], std::move(o));
      out.push_back(rebuild(clauses[seq[k]], clauses[seq[k]].order, -1));
    }
  }

  // Wraps the reads of `c` whose position only the run knows in checks that they read a point
  // already computed (recurrence_dynamic.h). Adjoints autodiff generates read only what the
  // primal's order makes available.
  void guard_dynamic(const NodeRef& t, Clause& c, DynamicReadOrder o) {
    if (c.dynamic.empty() || t->has(ir::kAdjoint)) return;
    o.own = box_of(c);
    o.point = c.write;
    o.reverse = reverse_;
    for (int l : c.order) {
      o.lex.push_back(axis_of(c, c.loops[l]->def));
      o.ordered.push_back(c.seq[l]);
    }
    std::unordered_map<uint32_t, NodeRef> with;
    for (auto& r : c.dynamic) with[r->id] = guard_dynamic_read(cx_, u_, t, r, o);
    c.body = irb::replace_by_id(c.body, with);
  }
};

}  // namespace

void recurrence_order(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->lowered) continue;
    RecurrenceOrder r(cx, *u);
    u->lowered = r.mutate(u->lowered);
  }
}

}  // namespace ein
