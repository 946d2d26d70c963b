#include "lang/passes/range_analysis.h"

#include <functional>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/range_site.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

using ranges::range_end;
using ranges::SiteSolver;

class SiteFinder : public ir::RecursiveVisitor {
 public:
  SiteFinder(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  bool pre(const NodeRef& n) override {
    // A function item seen from another unit (the cell's program holds its items): a
    // specialisation analyses it with its parameters' types and its calls' targets (SPEC §6:
    // errors that depend on them belong to the call that makes them). Functions nobody calls
    // are still analysed here.
    if (n->kind == Kind::Fn && n != u_.body && specialised(n->def)) return false;
    if (n->kind == Kind::EinGroup) {
      if (!done_.insert(n->id).second) return true;  // solved before its enclosing site
      for (auto& clause : n->kids) solve_nested(clause);
      std::vector<NodeRef> ext = group_extents(n, false);
      std::vector<NodeRef> prior;
      for (auto& clause : n->kids) {
        solve(clause, n->def, ext, n->kids.size() == 1, prior);
        extend_extents(prior, clause);
      }
      return true;
    }
    if (n->kind == Kind::Reduce && !covered_.count(n->id)) {
      solve_nested(n);
      solve(n, DefId{});
      return true;
    }
    return true;
  }

  bool specialised(DefId fn) const {
    for (const auto& v : cx_.units)
      if (v->kind == Unit::Kind::Fn && v->fn == fn) return true;
    return false;
  }

  // Definitions nested in a site (a block's `let wp[e] = W[t - 1, e];` in a clause body) are
  // solved before it: the site may then read their extents (see nested_groups). Their own
  // ranges never depend on the enclosing site's (its indices are not theirs to solve).
  void solve_nested(const NodeRef& root) {
    for (auto& k : root->kids) {
      if (!k || k->kind == Kind::Lambda) continue;
      if (k->kind == Kind::EinGroup) {
        pre(k);
        continue;
      }
      solve_nested(k);
    }
  }

  // Per nested definition of `root`: its allocation extent per axis (null where a clause's
  // range is unknown) and the reductions of the site it is computed inside.
  void nested_groups(const NodeRef& root, SiteSolver& s) {
    std::vector<uint32_t> reduces;
    std::function<void(const NodeRef&)> go = [&](const NodeRef& n) {
      if (!n || n->kind == Kind::Lambda) return;
      if (n != root && n->kind == Kind::EinGroup) {
        std::vector<NodeRef> ext = group_extents(n, true);
        s.note_nested(n->def, std::move(ext), reduces);
        return;
      }
      bool red = n->kind == Kind::Reduce;
      if (red) reduces.push_back(n->id);
      for (auto& k : n->kids) go(k);
      if (red) reduces.pop_back();
    };
    go(root);
  }

  // Per axis, the end a clause gives: a literal slot's point + 1, an explicit range's end, and
  // with `solved` an index's range as solved so far; null where it gives none.
  std::vector<NodeRef> clause_ends(const NodeRef& clause, bool solved) const {
    std::vector<NodeRef> out;
    for (const NodeRef& sl : ir::ein_slots(clause)) {
      NodeRef end;
      if (sl->kind == Kind::IdxLit) end = irb::lit(sl->ival + 1);
      if (!solved && sl->kind == Kind::IdxIn && ir::idxin_range(sl)->kind == Kind::RangeLit)
        end = range_end(ir::idxin_range(sl));
      if (solved && (sl->kind == Kind::IdxVar || sl->kind == Kind::IdxIn))
        if (auto it = u_.ranges.find(sl->def); it != u_.ranges.end()) end = it->second.hi;
      out.push_back(end);
    }
    return out;
  }

  // The allocation extent of each axis when every clause fixes it (SPEC §5.4: the per-axis
  // maximum of the ends); null where some clause does not. Without `solved`, only literal
  // slots and explicit ranges count (`t in 1..4`, `0`); with it, the ranges solved so far.
  std::vector<NodeRef> group_extents(const NodeRef& group, bool solved) const {
    std::vector<NodeRef> out;
    bool first = true;
    for (auto& clause : group->kids) {
      if (clause->kind != Kind::EinDecl) return {};
      std::vector<NodeRef> ends = clause_ends(clause, solved);
      if (first) out = ends;
      if (ends.size() != out.size()) return std::vector<NodeRef>(out.size(), nullptr);
      for (size_t a = 0; a < ends.size() && !first; ++a)
        out[a] = out[a] && ends[a] ? irb::imax(out[a], ends[a]) : nullptr;
      first = false;
    }
    return out;
  }

  // `ext` (per axis, the extent of the clauses so far) grows by `clause`'s solved ranges.
  void extend_extents(std::vector<NodeRef>& ext, const NodeRef& clause) const {
    if (clause->kind != Kind::EinDecl) return;
    std::vector<NodeRef> ends = clause_ends(clause, true);
    if (ext.empty()) ext.assign(ends.size(), nullptr);
    if (ext.size() != ends.size()) return;
    for (size_t a = 0; a < ends.size(); ++a)
      if (ends[a]) ext[a] = ext[a] ? irb::imax(ext[a], ends[a]) : ends[a];
  }

  void solve(const NodeRef& root, DefId self, std::vector<NodeRef> self_extents = {}, bool single_clause = false,
             std::vector<NodeRef> prior = {}) {
    SiteSolver s(cx_, u_);
    s.note_prior_extents(std::move(prior));
    // Where-bound locals inside the site are per-point values, never range sources.
    ir::for_each_node(root, [&](const NodeRef& n) {
      if (n->kind == Kind::WBind || n->kind == Kind::WDerived || n->kind == Kind::CompGen ||
          n->kind == Kind::CompLet)
        s.note_site_local(n->def);
      if (n->kind == Kind::WBind) s.note_where_value(n->def, ir::wbind_value(n));
      if (n->kind == Kind::Let && ir::let_pattern(*n)->kind == Kind::PBind)
        s.note_site_local(ir::let_pattern(*n)->def);
      if (n->kind == Kind::PBind) s.note_site_local(n->def);  // tuple patterns, match arms
      if (n->kind == Kind::Reduce) covered_.insert(n->id);
    });
    nested_groups(root, s);
    s.solve(root, self, std::move(self_extents), single_clause);
    // Every index of the site must have a range now (nested definitions are their own sites,
    // solved when the walk reaches them).
    std::function<void(const NodeRef&, bool)> check = [&](const NodeRef& n, bool is_root) {
      if (!n || n->kind == Kind::Lambda || (!is_root && n->kind == Kind::EinGroup)) return;
      if (n->kind == Kind::EinDecl || n->kind == Kind::Reduce) {
        for (const NodeRef& sl : ir::index_slots_of(n)) {
          if (sl->kind == Kind::IdxVar && !u_.ranges.count(sl->def) && !reported_.count(sl->def)) {
            reported_.insert(sl->def);
            cx_.error("E004", "cannot infer the range of index `" + sl->name + "`", sl->span,
                      "no array access determines its extent",
                      "give it an explicit range, e.g. `" + sl->name + " in 0..n`, or use it as a "
                      "plain index of an array");
          }
        }
      }
      for (auto& k : n->kids) check(k, false);
    };
    check(root, true);
  }

 private:
  CompileCtx& cx_;
  Unit& u_;
  std::unordered_set<uint32_t> covered_, done_;
  std::unordered_set<DefId> reported_;
};

}  // namespace

void range_analysis(CompileCtx& cx) {
  // Newest first: a specialisation is made when its first call is typed, so callees mostly
  // come after their callers, and a call's result extents read the callee's facts
  // (range_call.cpp).
  for (auto it = cx.units.rbegin(); it != cx.units.rend(); ++it) {
    SiteFinder f(cx, **it);
    f.walk((*it)->body);
  }
}

}  // namespace ein
