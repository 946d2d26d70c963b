#include "lang/passes/fusion_plan.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

bool proven(const Unit& u, const NodeRef& index) { return index->has(ir::kProven) || u.proven.count(index->id) > 0; }

// The clauses of a lowered tensor (its kids other than the shape and the checks).
std::vector<NodeRef> clauses_of(const NodeRef& t) {
  std::vector<NodeRef> out;
  for (const NodeRef& k : ir::ltensor_stmts(t))
    if (k->kind != Kind::LCheck) out.push_back(k);
  return out;
}

// What a candidate producer computes at each point: its own element (elementwise), or one
// reduction over a row of something else (a row reduction: `z[i] = sum[j](exp(X[i, j] - m[i]))`).
enum class Produces { Nothing, Element, RowReduction };

// The value a row-reduction producer stores: reductions (`sum[j](..)`, or `ln(sum[j](..))`), each
// a sum/max/min/prod (not an argmax/argmin), without a contraction plan (a GEMV stays a BLAS
// call) and with nothing nested (no reduction or tensor inside its body).
bool row_reduction(const Unit& u, const NodeRef& value) {
  bool ok = true, any = false;
  std::function<void(const NodeRef&)> walk = [&](const NodeRef& x) {
    if (!x || !ok) return;
    if (x->kind == Kind::LTensor || x->kind == Kind::Lambda) ok = false;
    if (x->kind != Kind::LReduce) {
      for (const NodeRef& k : x->kids) walk(k);
      return;
    }
    any = true;
    const std::string& op = x->name;
    if (u.contractions.count(x->id) || (op != "sum" && op != "max" && op != "min" && op != "prod")) ok = false;
    ir::for_each_node(ir::lreduce_body(x), [&](const NodeRef& y) {
      if (y->kind == Kind::LReduce || y->kind == Kind::LTensor || y->kind == Kind::Lambda) ok = false;
    });
  };
  walk(value);
  return ok && any;
}

// `hi` is the extent `ext` (or `ext` written as max(0, hi)).
bool is_extent(const NodeRef& ext, const NodeRef& hi) {
  return ir::structurally_equal(ext, hi) ||
         (ext->kind == Kind::IMax && ir::imax_a(ext)->kind == Kind::IntLit && ir::imax_a(ext)->ival == 0 &&
          ir::structurally_equal(ir::imax_b(ext), hi));
}

// The loops (outermost first) and the store of a clause that is a loop nest around one store
// (where-lets allowed), or nothing.
NodeRef nest_of(const NodeRef& clause, std::vector<NodeRef>& loops) {
  NodeRef cur = clause;
  while (cur->kind == Kind::LFor) {
    loops.push_back(cur);
    cur = ir::lfor_body(cur);
  }
  while (cur->kind == Kind::LSeq && ir::lseq_stmts_count(cur) == 2 && ir::lseq_stmts(cur)[0]->kind == Kind::LLet)
    cur = ir::lseq_stmts(cur)[1];
  return cur->kind == Kind::LStore ? cur : nullptr;
}

// guard_split's cut of one clause (the tensor's only rewrite: its note is guard_split's alone):
// boxes [lo, a), [a, b), [b, hi) per cut axis, in order, whose first and last clauses are the
// original store with every guard (lang/passes/guard_split.cpp `plan`). Such a tensor computes at
// each point what the last clause computes there, whatever box the point lies in.
bool guard_split_boxes(const NodeRef& t, const std::vector<NodeRef>& clauses) {
  if (clauses.size() < 3 || t->aux.rfind("split: ", 0) != 0 || t->aux.find("; ") != std::string::npos) return false;
  std::vector<NodeRef> first_loops, last_loops;
  NodeRef first = nest_of(clauses.front(), first_loops), last = nest_of(clauses.back(), last_loops);
  if (!first || !last || !ir::structurally_equal(first, last) || first_loops.size() != last_loops.size()) return false;
  for (const NodeRef& c : clauses) {
    std::vector<NodeRef> loops;
    if (!nest_of(c, loops) || loops.size() != first_loops.size()) return false;
    for (size_t a = 0; a < loops.size(); ++a)
      if (loops[a]->def != first_loops[a]->def) return false;
  }
  return true;
}

Produces producer_kind(const Unit& u, const NodeRef& t) {
  if (t->has(ir::kHasElem) || t->has(ir::kWindowed)) return Produces::Nothing;
  const auto dt = static_cast<DType>(t->ival);
  if (dt == DType::F16 || dt == DType::BF16) return Produces::Nothing;  // no native kernel computes these
  const ir::Kids extents = ir::lshape_extents(ir::ltensor_shape(t));
  std::vector<NodeRef> clauses = clauses_of(t);
  // One clause, or guard_split's boxes of one (a causal row sum `sum[j](.. where j <= i)` is cut
  // where the guard holds for every j): fused, the last box's store is computed at every point,
  // as before the cut. The first box starts every axis at 0 and the last ends every axis at its
  // extent; the boxes between tile the rest (guard_split's invariant).
  if (clauses.size() != 1 && !guard_split_boxes(t, clauses)) return Produces::Nothing;
  std::vector<NodeRef> loops, first_loops;
  NodeRef cur = nest_of(clauses.back(), loops);
  nest_of(clauses.front(), first_loops);
  if (!cur || ir::lstore_index_count(cur) != extents.size()) return Produces::Nothing;
  std::unordered_map<DefId, std::pair<NodeRef, NodeRef>> bounds;
  for (size_t a = 0; a < loops.size(); ++a) {
    const NodeRef& l = loops[a];
    if (l->has(ir::kSequential) || l->has(ir::kReverse)) return Produces::Nothing;
    bounds[l->def] = {ir::lfor_lo(first_loops[a]), ir::lfor_hi(l)};
  }
  for (size_t a = 0; a < extents.size(); ++a) {
    const NodeRef& ix = ir::lstore_index(cur)[a];
    auto b = bounds.find(ix->def);
    if (ix->kind != Kind::Name || b == bounds.end()) return Produces::Nothing;
    if (b->second.first->kind != Kind::IntLit || b->second.first->ival != 0) return Produces::Nothing;
    if (!is_extent(extents[a], b->second.second)) return Produces::Nothing;
    bounds.erase(b);
  }
  if (!bounds.empty()) return Produces::Nothing;
  bool ok = true;
  const bool reduction = row_reduction(u, ir::lstore_value(cur));
  ir::for_each_node(cur, [&](const NodeRef& x) {
    if ((x->kind == Kind::LReduce && !reduction) || x->kind == Kind::LTensor || x->kind == Kind::Lambda) ok = false;
    if (x->kind == Kind::Index && ir::index_base(x)->kind == Kind::Name && ir::index_base(x)->def == t->def) ok = false;
  });
  if (!ok) return Produces::Nothing;
  return reduction ? Produces::RowReduction : Produces::Element;
}

struct Use {
  NodeRef stmt;  // top-level statement holding the reference
  bool ok = true;
  std::optional<std::vector<DefId>> point;  // the indices of its point reads
};

void plan_unit(const CompileCtx& cx, Unit& u) {
  u.fusions.clear();
  const NodeRef& body = u.lowered;
  if (!body || (body->kind != Kind::Program && body->kind != Kind::Block)) return;
  // Producers and consumers are top-level LTensors of the unit body (a statement sequence).
  const ir::Kids stmts = body->kids;
  std::unordered_map<DefId, size_t> producer_at;
  std::unordered_set<DefId> row_reductions;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s || s->kind != Kind::LTensor) continue;
    const Produces kind_of = producer_kind(u, s);
    if (kind_of == Produces::Nothing) continue;
    DefKind kind = cx.resolver.info(s->def).kind;
    if (kind == DefKind::Global && !cx.opt.whole_program) continue;  // a later cell may read it
    producer_at[s->def] = i;
    if (kind_of == Produces::RowReduction) row_reductions.insert(s->def);
  }
  if (producer_at.empty()) return;
  // Every reference to a candidate must be a proven point read or an extent, inside one later
  // top-level LTensor with a single clause. A read must be "at the point": its indices are the
  // consumer's loop variables, each once, all of them, outside any reduction, and every read
  // has the same indices — so each producer element is computed exactly once.
  std::unordered_map<DefId, Use> uses;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s) continue;
    std::vector<DefId> loopvars;
    bool in_order = false;  // a loop of the consumer runs in order (a recurrence)
    if (s->kind == Kind::LTensor) {
      std::vector<NodeRef> cls = clauses_of(s);
      for (NodeRef cur = cls.size() == 1 ? cls[0] : nullptr; cur && cur->kind == Kind::LFor; cur = ir::lfor_body(cur)) {
        loopvars.push_back(cur->def);
        in_order = in_order || cur->has(ir::kSequential) || cur->has(ir::kReverse);
      }
    }
    // A row reduction may also be read at the consumer's outer loop variables, in order (`z[i]`
    // inside the loops over i and j): codegen computes it once per row, before the inner loops
    // (hoisted, since it cannot fail), or refuses the fused kernel.
    auto at_point = [&](const NodeRef& ix, bool row) -> std::optional<std::vector<DefId>> {
      const size_t n = ir::index_args_count(ix);
      if (row ? (n == 0 || n > loopvars.size()) : n != loopvars.size()) return std::nullopt;
      std::vector<DefId> seen;
      for (const NodeRef& x : ir::index_args(ix)) {
        if (x->kind != Kind::Name) return std::nullopt;
        if (std::find(loopvars.begin(), loopvars.end(), x->def) == loopvars.end()) return std::nullopt;
        if (std::find(seen.begin(), seen.end(), x->def) != seen.end()) return std::nullopt;
        if (row && x->def != loopvars[seen.size()]) return std::nullopt;
        seen.push_back(x->def);
      }
      return seen;
    };
    std::function<void(const NodeRef&, bool, bool)> scan = [&](const NodeRef& n, bool lam, bool red) {
      if (!n) return;
      lam = lam || n->kind == Kind::Lambda;
      red = red || n->kind == Kind::LReduce;
      // `point`: the indices of a point read (null for an extent, which reads no point).
      auto note = [&](DefId d, bool good, const std::vector<DefId>* point) {
        auto it = producer_at.find(d);
        if (it == producer_at.end() || it->second == i) return;
        Use& use = uses[d];
        if (use.stmt && use.stmt != s) use.ok = false;
        use.stmt = s;
        if (!good || lam || s->kind != Kind::LTensor || it->second > i) use.ok = false;
        if (point) {
          if (use.point && *use.point != *point) use.ok = false;
          use.point = *point;
        }
      };
      if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && producer_at.count(ir::index_base(n)->def)) {
        const bool row = row_reductions.count(ir::index_base(n)->def) > 0;
        auto point = at_point(n, row);
        // A row reduction computed in parallel stays so: not moved into a loop run in order.
        bool good = proven(u, n) && !n->has(ir::kWindowed) && !red && point.has_value() && !(row && in_order);
        const std::vector<DefId> indices = point.value_or(std::vector<DefId>{});
        note(ir::index_base(n)->def, good, &indices);
        for (const NodeRef& ix : ir::index_args(n)) scan(ix, lam, red);
        return;
      }
      if (n->kind == Kind::DimOf && ir::dimof_tensor(n)->kind == Kind::Name) {
        note(ir::dimof_tensor(n)->def, true, nullptr);
        return;
      }
      if ((n->kind == Kind::Name || n->kind == Kind::Path) && producer_at.count(n->def)) note(n->def, false, nullptr);
      for (auto& k : n->kids) scan(k, lam, red);
    };
    scan(s, false, false);
  }
  // Other units (functions reading a global) observe it too. A local binding of this unit
  // (every candidate unless whole_program admits globals) can be named elsewhere only by a
  // closure capturing it: the other units are walked only then. Walking all of them for every
  // unit with a candidate was quadratic in the units, on every statement: ~5 ms per call of a
  // std function with a padded copy once a program had used a few dozen library functions.
  bool global = false;
  for (auto& [d, at] : producer_at) global = global || cx.resolver.info(d).kind == DefKind::Global;
  for (auto& other : cx.units) {
    if (other.get() == &u || !other->lowered) continue;
    if (!global && other->kind != Unit::Kind::Lambda && other->captures.empty()) continue;
    ir::for_each_node(other->lowered, [&](const NodeRef& n) {
      if ((n->kind == Kind::Name || n->kind == Kind::Path) && producer_at.count(n->def)) uses[n->def].ok = false;
    });
  }
  std::unordered_map<DefId, NodeRef> elided;  // producer def -> its LTensor
  // A consumer that reads only the producer's extents (an adjoint shaped like its primal) has no
  // loop to compute it in, and its shape still needs it: such a producer stays stored.
  for (auto& [d, use] : uses)
    if (use.ok && use.point && use.stmt && clauses_of(use.stmt).size() == 1) elided[d] = stmts[producer_at[d]];
  if (elided.empty()) return;
  // Consumers that are not themselves elided compute the whole chain of producers they reach.
  for (const NodeRef& c : stmts) {
    if (!c || c->kind != Kind::LTensor || elided.count(c->def)) continue;
    FusionGroup g;
    std::unordered_set<DefId> reached;
    std::function<void(const NodeRef&)> reach = [&](const NodeRef& n) {
      ir::for_each_node(n, [&](const NodeRef& x) {
        // Marked before the walk into it (each producer is reached once), listed after it (what
        // it reads is computed first).
        if (x->kind == Kind::Name && elided.count(x->def) && reached.insert(x->def).second) {
          reach(elided[x->def]);
          g.producers.push_back(x->def);
        }
      });
    };
    reach(c);
    if (g.producers.empty()) continue;
    g.consumer = c->id;
    g.clause = clauses_of(c).back()->id;
    u.fusions.push_back(std::move(g));
  }
}

}  // namespace

ir::NodeRef fused_clause(const ir::NodeRef& producer) {
  std::vector<NodeRef> cls = clauses_of(producer);
  return cls.empty() ? nullptr : cls.back();
}

void fusion_plan(CompileCtx& cx) {
  for (auto& u : cx.units) plan_unit(cx, *u);
}

std::string describe_fusion(const Unit& u) {
  std::string out;
  std::unordered_map<uint32_t, std::string> names;  // LTensor id -> name
  std::unordered_map<DefId, std::string> by_def;
  ir::for_each_node(u.lowered, [&](const NodeRef& n) {
    if (n->kind != Kind::LTensor) return;
    names[n->id] = n->name;
    by_def[n->def] = n->name;
  });
  for (const FusionGroup& g : u.fusions) {
    std::string ps;
    for (DefId d : g.producers) ps += (ps.empty() ? "" : ", ") + by_def[d];
    out += ";;   fusion: " + ps + (g.producers.size() == 1 ? " is" : " are") + " computed inside the loops of " +
           names[g.consumer] + ", not stored (when " + names[g.consumer] + " runs as a native kernel)\n";
  }
  return out;
}

}  // namespace ein
